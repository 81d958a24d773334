package demoengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	"github.com/informerlab/informerlab/internal/sameorigin"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// page is the world behind the pipeline page: the sample controller
// recorded for it, its controls, and the page's Server (package
// internal/pipelineweb), which HTTP serves (runWeb) or a browser tab calls
// directly (Tab).
type page struct {
	rec *pipelineweb.Recorder
	ctl *webControls
	w   *world
	srv *pipelineweb.Server
}

// newPage builds the world of the page: on the embedded fakeapi, or, with
// o.server or o.kubeconfig, on that server. The narrator hears every event
// the page does (world.go).
func newPage(ctx context.Context, o options, n *narrator, e env) (*page, error) {
	model := pipelineweb.NewModel()
	hub := pipelineweb.NewHub(model, pipelineweb.DefaultHistory)
	rec := pipelineweb.NewRecorder(hub, model)
	n.web = rec

	ctl := &webControls{rec: rec, n: n, runCtx: ctx}
	var w *world
	var err error
	if o.server != "" || o.kubeconfig != "" {
		w, err = webRemoteWorld(ctx, o, n, ctl, e)
	} else {
		w, err = webEmbeddedWorld(ctx, n, ctl)
	}
	if err != nil {
		rec.Close()
		if ctl.srv != nil {
			ctl.srv.Close()
		}
		return nil, err
	}
	model.SetInformer("Foo", w.fooInf)
	model.SetInformer("Deployment", w.depInf)
	ctl.w = w
	return &page{rec: rec, ctl: ctl, w: w, srv: pipelineweb.NewServer(hub, model, rec, ctl)}, nil
}

// stop ends the page's world: the recorder first (a slow handler must not
// hold up the shutdown), then the scenarios, which end with the run's
// context, then the controller and its informers, then the embedded API
// server.
func (p *page) stop() error {
	p.rec.Close()
	p.ctl.wait()
	err := p.w.stop()
	if p.ctl.srv != nil {
		p.ctl.srv.Close()
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// runWeb serves the pipeline page (package internal/pipelineweb) at
// o.webAddr while the sample controller runs: on the embedded fakeapi, or
// on the server of --server or --kubeconfig. The terminal shows the usual
// narration; the page shows the same events moving across the diagram.
func runWeb(ctx context.Context, o options, n *narrator, e env) error {
	ln, err := net.Listen("tcp", o.webAddr)
	if err != nil {
		return fmt.Errorf("demo: --web-addr: %w", err)
	}
	defer ln.Close()

	p, err := newPage(ctx, o, n, e)
	if err != nil {
		return err
	}
	p.w.start(ctx)
	url := "http://" + ln.Addr().String() + "/"
	n.say("informerlab demo: the pipeline page is at %s — open it in a browser to watch the sample controller's Foos cross the diagram (%s). Ctrl-C stops.", url, p.ctl.info.Mode)
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		n.say("warning: %s is reachable from other machines, and the page's controls write to the API server with no authentication: anyone who can open it can create and delete Foos and inject faults.", ln.Addr())
	}
	// Pages of other sites open in the same browser are refused: their
	// forms, their text/plain fetches, their reads through a rebound DNS
	// name. The page's own controls also carry its per-run token.
	host, _, _ := net.SplitHostPort(o.webAddr)
	guard, err := sameorigin.New(ln.Addr(), sameorigin.Options{Hosts: []string{host}, Refuse: refuseJSON(n)})
	if err != nil {
		_ = p.stop()
		return fmt.Errorf("demo: %w", err)
	}
	serveErr := pipelineweb.Serve(ctx, ln, guard.Handler(p.srv))
	stopErr := p.stop()
	if serveErr != nil {
		return serveErr
	}
	if stopErr != nil {
		return stopErr
	}
	n.say("\nInterrupted: the page's server, the controllers and the informers stopped; every goroutine has exited. Bye.")
	return nil
}

// refuseJSON answers a request the guard refused in the page's own shape,
// {"error": reason}, and says on the terminal what was refused: a page of
// another site tried to use this one.
func refuseJSON(n *narrator) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, reason string) {
		n.say("the page's server refused %s %s: %s", r.Method, r.URL.Path, strings.TrimPrefix(reason, "sameorigin: refused: "))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": reason})
	}
}

// webAPI puts the Foo and Deployment handles of api behind the
// recorder's valve: their lists, watches and watch events wait while the
// page is paused. Their step 1 events reach the page from the world's
// ListerWatchers (world.go), as they reach the narrator. Other resources
// (Events) are untouched.
func webAPI(rec *pipelineweb.Recorder, api base) base {
	return func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		r := api(gvr, namespace)
		switch gvr {
		case sc.FoosGVR, sc.DeploymentsGVR:
			return rec.Valved(r)
		}
		return r
	}
}

// webEmbeddedWorld builds the world of the text demo's story: a seeded
// fakeapi, and the controller with the Deployment simulator.
func webEmbeddedWorld(ctx context.Context, n *narrator, ctl *webControls) (*world, error) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme(), NamespaceLifecycle: true})
	ctl.srv = srv
	if err := sc.Register(srv); err != nil {
		return nil, err
	}
	if err := seed(ctx, srv); err != nil {
		return nil, err
	}
	// The controller's Events go to a server of their own, as in the story.
	eventSrv := fakeapi.New(fakeapi.Options{})
	context.AfterFunc(ctx, eventSrv.Close)
	api := webAPI(ctl.rec, func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	})
	events := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return eventSrv.Resource(gvr).Namespace(namespace)
	}
	w, err := newWorld(n, newGate(nil), api, "", events, true)
	if err != nil {
		return nil, err
	}
	// The page runs for as long as it is open: its Events expire.
	w.wg.Go(func() { expireEvents(ctx, events, eventTTL) })
	ctl.namespace = ns
	ctl.setHandles(srv.Resource(sc.FoosGVR).Namespace(ns), srv.Resource(sc.DeploymentsGVR).Namespace(ns))
	ctl.info = pipelineweb.Info{Mode: "the embedded fakeapi", Namespace: ns, Faults: true, Scenarios: webScenarios()}
	return w, nil
}

// webRemoteWorld builds the controller against a running API server, which
// must serve Foos (the CRD installed). Faults that need fakeapi are off.
func webRemoteWorld(ctx context.Context, o options, n *narrator, ctl *webControls, e env) (*world, error) {
	var cfg *client.Config
	var err error
	if o.server != "" {
		cfg, err = client.ConfigFromURL(o.server)
	} else {
		cfg, err = client.LoadKubeconfig(o.kubeconfig)
	}
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	cfg.Logger = quietLogger
	c, err := client.New(cfg, nil)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	err = e.waitForAnswer(ctx, n, cfg.RedactedServer(), func(ctx context.Context) error {
		_, err := c.Resource(sc.FoosGVR).Namespace(o.namespace).List(ctx, metav1.ListOptions{Limit: 1})
		return err
	})
	switch {
	case errors.Is(err, ErrNoAnswer):
		return nil, err
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("demo: --web needs the Foo CRD on %s: kubectl apply -f samplecontroller/testdata/foo-crd.yaml", cfg.RedactedServer())
	case err != nil:
		return nil, fmt.Errorf("demo: cannot reach the API server: %w", err)
	}
	api := webAPI(ctl.rec, func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return c.Resource(gvr).Namespace(namespace)
	})
	w, err := newWorld(n, newGate(nil), api, o.namespace, nil, false)
	if err != nil {
		return nil, err
	}
	ctl.namespace = cmpOr(o.namespace, "default")
	ctl.setHandles(c.Resource(sc.FoosGVR).Namespace(ctl.namespace), c.Resource(sc.DeploymentsGVR).Namespace(ctl.namespace))
	ctl.info = pipelineweb.Info{Mode: "the cluster at " + cfg.RedactedServer(), Namespace: ctl.namespace}
	return w, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// webScenarios are the scenarios of --list-scenarios, without their first
// chapter (the initial list, which the page has already shown).
func webScenarios() []pipelineweb.Scenario {
	all := chapters()
	var out []pipelineweb.Scenario
	for _, s := range scenarioChapters {
		var titles []string
		for _, c := range s.chapters {
			if c != "initial" {
				titles = append(titles, all[c].title)
			}
		}
		out = append(out, pipelineweb.Scenario{Name: s.name, Help: s.help, Chapters: titles})
	}
	return out
}

// teeObserver calls both observers, in order.
func teeObserver(a, b sc.Observer) sc.Observer {
	return func(e sc.Event) {
		a(e)
		b(e)
	}
}
