package demoengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/internal/pipelinetrace"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	"github.com/informerlab/informerlab/reflector"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// parseResource reads RESOURCE (core v1) or RESOURCE.VERSION.GROUP.
func parseResource(s string) (schema.GroupVersionResource, error) {
	parts := strings.SplitN(s, ".", 3)
	switch {
	case s == "" || parts[0] == "":
		return schema.GroupVersionResource{}, fmt.Errorf("--resource must not be empty")
	case len(parts) == 1:
		return schema.GroupVersionResource{Version: "v1", Resource: s}, nil
	case len(parts) == 3 && parts[1] != "" && parts[2] != "":
		return schema.GroupVersionResource{Group: parts[2], Version: parts[1], Resource: parts[0]}, nil
	}
	return schema.GroupVersionResource{}, fmt.Errorf("--resource %q: want RESOURCE (a core v1 resource) or RESOURCE.VERSION.GROUP, such as deployments.v1.apps", s)
}

// runRemote narrates a running API server: the sample controller if the Foo
// CRD is installed, otherwise the informer of one resource (steps 1-6).
func runRemote(ctx context.Context, o options, n *narrator, e env) error {
	var cfg *client.Config
	var err error
	if o.server != "" {
		cfg, err = client.ConfigFromURL(o.server)
	} else {
		cfg, err = client.LoadKubeconfig(o.kubeconfig)
	}
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	cfg.Logger = quietLogger
	c, err := client.New(cfg, nil)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	g := newGate(nil)
	// Discovery first: is this an API server at all, and what does it serve?
	err = e.waitForAnswer(ctx, n, cfg.RedactedServer(), func(ctx context.Context) error {
		_, err := c.ServerGroups(ctx)
		return err
	})
	if errors.Is(err, ErrNoAnswer) {
		return err
	}
	if err != nil {
		return discoveryError(cfg.RedactedServer(), err)
	}
	hasFoos, err := serves(ctx, c, sc.FoosGVR)
	if err != nil {
		return discoveryError(cfg.RedactedServer(), err)
	}
	if hasFoos {
		hasDeployments, err := serves(ctx, c, sc.DeploymentsGVR)
		if err != nil {
			return discoveryError(cfg.RedactedServer(), err)
		}
		if !hasDeployments {
			return fmt.Errorf("demo: %s serves Foos but no Deployments (%s): the Foo controller needs both", cfg.RedactedServer(), sc.DeploymentsGVR.GroupVersion())
		}
		return runRemoteController(ctx, n, g, c, o, e)
	}
	// No Foo CRD: narrate one resource, if the server has it.
	gvr, _ := parseResource(o.resource)
	if err := checkResource(ctx, c, cfg.RedactedServer(), gvr); err != nil {
		return err
	}
	if o.simulate {
		n.say("(--simulate-deployments has nothing to do without the Foo CRD: there are no Deployments of Foos to simulate.)")
	}
	kind := gvr.Resource
	stream := pipelinetrace.NewStream(newStreamNarrator(n, newKindIndex(), nil, true).event)
	l := newNarratedLW(c.Resource(gvr).Namespace(o.namespace), kind, g, stream)
	inf := informer.NewSharedIndexInformer(l, nil, 0, nil,
		informer.WithLogger(slog.New(stream.Handler())),
		informer.WithReflectorOptions(reflector.Options{Name: kind}))
	if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { n.step(tagHandler, "%s %s: handler called: OnAdd", kind, pipelineweb.ObjectKey(obj)) },
		UpdateFunc: func(old, obj any) {
			n.step(tagHandler, "%s %s: handler called: OnUpdate (rv %s → %s)", kind, pipelineweb.ObjectKey(obj), pipelineweb.ObjectRV(old), pipelineweb.ObjectRV(obj))
			if n.verbose {
				if d := diffObjects(old, obj); d != "" {
					n.detail(stageHandler, 0, "%s", d)
				}
			}
		},
		DeleteFunc: func(obj any) { n.step(tagHandler, "%s %s: handler called: OnDelete", kind, pipelineweb.ObjectKey(obj)) },
	}); err != nil {
		return err
	}
	n.say("informerlab demo: no Foo CRD on %s, so this is watch-only narration of %s (steps 1-6). Change some %s; Ctrl-C stops.",
		cfg.RedactedServer(), o.resource, gvr.Resource)
	n.say("(To run the Foo controller too, install the CRD: kubectl apply -f samplecontroller/testdata/foo-crd.yaml)")
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	<-ctx.Done()
	<-done
	n.say("\nInterrupted: the informer stopped, every goroutine has exited. Bye.")
	return nil
}

func runRemoteController(ctx context.Context, n *narrator, g *gate, c *client.Client, o options, e env) error {
	api := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return c.Resource(gvr).Namespace(ns) }
	w, err := newWorld(n, g, api, o.namespace, nil, o.simulate)
	if err != nil {
		return err
	}
	n.say("informerlab demo: the Foo CRD is installed, so the sample controller runs against this server. Create, scale and delete Foos (kubectl); Ctrl-C stops.")
	if o.simulate {
		n.say("(--simulate-deployments: the demo plays kube-controller-manager's Deployment controller and writes each Deployment's status.)")
	}
	wctx, stopWatchdog := context.WithCancel(ctx)
	watchdogDone := make(chan struct{})
	if !o.simulate {
		go func() {
			defer close(watchdogDone)
			watchDeploymentStatus(wctx, n, w.deployments, e.stallAfter())
		}()
	} else {
		close(watchdogDone)
	}
	w.start(ctx)
	<-ctx.Done()
	stopWatchdog()
	<-watchdogDone
	if err := w.stop(); err != nil {
		return err
	}
	n.say("\nInterrupted: the controller finished the Reconcile in progress, the informers stopped, every goroutine has exited. Bye.")
	return nil
}

// serves reports whether the server serves gvr, from discovery. A group
// version it does not serve at all is a plain no.
func serves(ctx context.Context, c *client.Client, gvr schema.GroupVersionResource) (bool, error) {
	list, err := c.ServerResourcesForGroupVersion(ctx, gvr.GroupVersion())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return true, nil
		}
	}
	return false, nil
}

// checkResource fails, naming the resource and how to see the ones there
// are, if the server does not serve gvr: its list would be 404 at every
// retry, and the informer would never sync.
func checkResource(ctx context.Context, c *client.Client, server string, gvr schema.GroupVersionResource) error {
	gv := gvr.GroupVersion()
	list, err := c.ServerResourcesForGroupVersion(ctx, gv)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("demo: %s serves no API group version %q, so there is no resource %q: see what it serves with `kubectl api-resources`", server, gv.String(), gvr.Resource)
	case err != nil:
		return discoveryError(server, err)
	}
	var names []string
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return nil
		}
		if !strings.Contains(r.Name, "/") { // subresources such as foos/status
			names = append(names, r.Name)
		}
	}
	slices.Sort(names)
	return fmt.Errorf("demo: %s has no resource %q in %s; it serves %s there. See every resource with `kubectl api-resources`, and pass one as --resource RESOURCE (core v1) or RESOURCE.VERSION.GROUP",
		server, gvr.Resource, gv.String(), strings.Join(names, ", "))
}

// discoveryError explains why discovery failed: not an API server, an API
// server that refuses us, or one we cannot reach.
func discoveryError(server string, err error) error {
	switch {
	case errors.Is(err, client.ErrNotAPIServer):
		return fmt.Errorf("demo: %s is not a Kubernetes API server (it does not answer discovery as one does): %w", server, err)
	case apierrors.IsUnauthorized(err), apierrors.IsForbidden(err):
		return fmt.Errorf("demo: the API server at %s refused the demo's credentials: %s", server, errorText(err))
	}
	return fmt.Errorf("demo: cannot reach the API server: %w", err)
}
