package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/informer"
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
func runRemote(ctx context.Context, o options, n *narrator, stdout io.Writer) error {
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
	_, err = c.Resource(sc.FoosGVR).Namespace(o.namespace).List(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case err == nil:
		return runRemoteController(ctx, n, g, c, o.namespace)
	case apierrors.IsNotFound(err):
		// No Foo CRD: narrate one resource.
	default:
		return fmt.Errorf("demo: cannot reach the API server: %w", err)
	}
	gvr, _ := parseResource(o.resource)
	kind := gvr.Resource
	kinds := newKindIndex()
	l := newNarratedLW(c.Resource(gvr).Namespace(o.namespace), kind, n, g, kinds)
	inf := informer.NewSharedIndexInformer(l, nil, 0, nil,
		informer.WithLogger(slog.New(&traceHandler{n: n, kinds: kinds, dispatch: true})),
		informer.WithReflectorOptions(reflector.Options{Name: kind}))
	if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { n.step(tagHandler, "%s %s: handler called: OnAdd", kind, objectKey(obj)) },
		UpdateFunc: func(old, obj any) {
			n.step(tagHandler, "%s %s: handler called: OnUpdate (rv %s → %s)", kind, objectKey(obj), objectRV(old), objectRV(obj))
			if n.verbose {
				if d := diffObjects(old, obj); d != "" {
					n.detail(stageHandler, 0, "%s", d)
				}
			}
		},
		DeleteFunc: func(obj any) { n.step(tagHandler, "%s %s: handler called: OnDelete", kind, objectKey(obj)) },
	}); err != nil {
		return err
	}
	n.say("informerlab demo: no Foo CRD on %s, so this is watch-only narration of %s (steps 1-6). Change some %s; Ctrl-C stops.",
		cfg.Server, o.resource, gvr.Resource)
	n.say("(To run the Foo controller too, install the CRD: kubectl apply -f samplecontroller/testdata/foo-crd.yaml)")
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	<-ctx.Done()
	<-done
	n.say("\nInterrupted: the informer stopped, every goroutine has exited. Bye.")
	return nil
}

func runRemoteController(ctx context.Context, n *narrator, g *gate, c *client.Client, namespace string) error {
	api := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return c.Resource(gvr).Namespace(ns) }
	w, err := newWorld(n, g, api, namespace, nil, false)
	if err != nil {
		return err
	}
	n.say("informerlab demo: the Foo CRD is installed, so the sample controller runs against this server. Create, scale and delete Foos (kubectl); Ctrl-C stops.")
	w.start(ctx)
	<-ctx.Done()
	if err := w.stop(); err != nil {
		return err
	}
	n.say("\nInterrupted: the controller finished the Reconcile in progress, the informers stopped, every goroutine has exited. Bye.")
	return nil
}
