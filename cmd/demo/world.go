package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
	"github.com/informerlab/informerlab/workqueue"
)

// Timing of the demo's machinery.
const (
	// resyncPeriod is the resync period of the Foo controller's Deployment
	// informer (the only informer that resyncs, so that resyncs of different
	// informers never coincide in the deterministic transcript).
	resyncPeriod = 20 * time.Second
	// retryBase is the first retry delay of a failed Reconcile; it doubles
	// on each failure up to retryMax (controller-runtime: 5ms to 1000s).
	retryBase = 100 * time.Millisecond
	retryMax  = 6 * time.Hour
	// watchTimeout is the smallest server-side timeout a watch asks for.
	watchTimeout = time.Hour
)

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// world is the running program of the demo: three informers (Foos and
// Deployments for the Foo controller, Deployments for the simulator), the
// Foo controller and the Deployment simulator.
type world struct {
	n *narrator
	g *gate

	fooInf, depInf, simInf informer.SharedIndexInformer
	fooLW, depLW, simLW    *narratedLW
	fooCtl, simCtl         *controller.Controller
	foos, deployments      informer.Lister[*unstructured.Unstructured]

	// resyncs counts Sync deltas popped by the Deployment informer.
	resyncs *atomic.Int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// newWorld builds everything; start runs it.
func newWorld(n *narrator, g *gate, lw informer.ListerWatcherFunc, api apiFunc, simulate bool) (*world, error) {
	w := &world{n: n, g: g, resyncs: new(atomic.Int64)}
	refl := reflector.Options{MinWatchTimeout: watchTimeout, IdleTimeout: -1}
	if g.deterministic() {
		// No random jitter: Reflectors that back off together relist
		// together, and the gate orders them.
		b := reflector.DefaultBackoff()
		b.Jitter = 0
		refl.Backoff = b
	}
	newInf := func(l *narratedLW, kind string, resync time.Duration, logger *slog.Logger) informer.SharedIndexInformer {
		ro := refl
		ro.Name = kind
		return informer.NewSharedIndexInformer(l, nil, resync, nil,
			informer.WithLogger(logger), informer.WithReflectorOptions(ro))
	}
	w.fooLW = newNarratedLW(lw(fooGVR, ""), "Foos", n, g, false)
	w.depLW = newNarratedLW(lw(deployGVR, ""), "Deployments", n, g, false)
	w.fooInf = newInf(w.fooLW, "Foo", 0, slog.New(traceHandler{n: n, kind: "Foo"}))
	w.depInf = newInf(w.depLW, "Deployment", resyncPeriod, slog.New(traceHandler{n: n, kind: "Deployment", syncs: w.resyncs}))
	w.foos = informer.NewLister[*unstructured.Unstructured](w.fooInf.GetIndexer(), fooGVR.GroupResource())
	w.deployments = informer.NewLister[*unstructured.Unstructured](w.depInf.GetIndexer(), deployGVR.GroupResource())

	ctlLogger := quietLogger
	if n.verbose {
		ctlLogger = slog.New(traceHandler{n: n, kind: "controller"})
	}
	rec := &fooReconciler{n: n, api: api, foos: w.foos, deployments: w.deployments}
	limiter := narratedLimiter{RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[controller.Request](retryBase, retryMax), n: n, who: "foo-controller"}
	ctl, err := controller.New("foo-controller", reconcileErrors{inner: rec, n: n}, controller.Options{RateLimiter: limiter, Logger: ctlLogger})
	if err != nil {
		return nil, err
	}
	fooHandler := &narratedHandler{inner: controller.EnqueueRequestForObject{}, n: n, who: "foo-controller", kind: "Foo"}
	generation := narratedPredicate{inner: controller.GenerationChangedPredicate{}, name: "GenerationChangedPredicate", n: n, who: "foo-controller", kind: "Foo"}
	if err := ctl.Watch(controller.Kind(w.fooInf, fooHandler, generation)); err != nil {
		return nil, err
	}
	depHandler := &narratedHandler{inner: controller.EnqueueRequestForOwner(fooGK, controller.OnlyControllerOwner()), n: n, who: "foo-controller", kind: "Deployment"}
	if err := ctl.Watch(controller.Kind(w.depInf, depHandler)); err != nil {
		return nil, err
	}
	w.fooCtl = ctl

	if simulate {
		w.simLW = newNarratedLW(lw(deployGVR, ""), "Deployments", n, g, true)
		w.simInf = newInf(w.simLW, "Deployment (simulator)", 0, quietLogger)
		sim := &deploymentSimulator{n: n, api: api,
			deployments: informer.NewLister[*unstructured.Unstructured](w.simInf.GetIndexer(), deployGVR.GroupResource())}
		simCtl, err := controller.New("deployment-simulator", sim, controller.Options{Logger: quietLogger})
		if err != nil {
			return nil, err
		}
		simHandler := &narratedHandler{inner: controller.EnqueueRequestForObject{}, n: n, who: "deployment-simulator", kind: "Deployment", quiet: true}
		if err := simCtl.Watch(controller.Kind(w.simInf, simHandler)); err != nil {
			return nil, err
		}
		w.simCtl = simCtl
	}
	return w, nil
}

// start runs the informers and controllers until stop.
func (w *world) start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	// Controllers first: their Start registers the event handlers, so the
	// handlers hear the initial list as it is processed rather than as a
	// replay of the cache. (In deterministic mode the gate holds the first
	// LIST until they have.)
	for _, c := range []*controller.Controller{w.fooCtl, w.simCtl} {
		if c != nil {
			w.wg.Go(func() {
				if err := c.Start(ctx); err != nil {
					w.n.say("demo: controller %s: %v", c.Name(), err)
				}
			})
		}
	}
	if !w.g.deterministic() {
		time.Sleep(20 * time.Millisecond)
	}
	for _, inf := range w.informers() {
		w.wg.Go(func() { inf.Run(ctx) })
	}
}

func (w *world) informers() []informer.SharedIndexInformer {
	infs := []informer.SharedIndexInformer{w.fooInf, w.depInf}
	if w.simInf != nil {
		infs = append(infs, w.simInf)
	}
	return infs
}

// stop ends every goroutine the world started and waits for them: each
// controller lets its workers finish the Reconcile in progress, then the
// informers stop their Reflectors, process loops and handler goroutines.
func (w *world) stop() {
	if w.cancel != nil {
		w.cancel()
	}
	w.wg.Wait()
}

// lwFunc adapts a resource client constructor to informer.ListerWatcherFunc.
func lwFunc(f func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher) informer.ListerWatcherFunc {
	return informer.ListerWatcherFunc(f)
}
