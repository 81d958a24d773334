package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// resyncPeriod is the resync period of the sample controller's informers.
const resyncPeriod = 20 * time.Second

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// eventsGVR is where the controller records Events (core v1).
var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// world is the running program of the demo: the project's sample controller
// (samplecontroller.New: a Manager with a Foo informer and a Deployment
// informer, the Foo controller and, on the embedded server, the Deployment
// simulator), wired to narrate every step:
//
//   - steps 1 and 2: each informer lists and watches through a narratedLW;
//   - steps 2 to 5: the informers' debug trace, through traceHandler;
//   - steps 6 to 9, the controller's writes, its Reconcile results and its
//     backoff: the sample controller's Observer (observer.go).
type world struct {
	n *narrator
	g *gate

	ctl            *sc.SampleController
	fooLW, depLW   *narratedLW
	fooInf, depInf informer.SharedIndexInformer
	foos           informer.Lister[*sc.Foo]
	deployments    informer.Lister[*sc.Deployment]
	resyncs        *atomic.Int64 // Sync deltas popped, by either informer
	writes         *writeLog

	cancel context.CancelFunc
	wg     sync.WaitGroup
	runErr error // Run's error, read after wg.Wait
}

// base returns the server's handle of a resource in a namespace.
type base func(gvr schema.GroupVersionResource, namespace string) sc.Resource

// newWorld builds the sample controller against api; start runs it.
// namespace is the one its informers watch ("" for all); events, when set,
// is where the controller's Events go (so that they leave the story's
// resourceVersions alone); simulate runs the Deployment simulator.
func newWorld(n *narrator, g *gate, api base, namespace string, events base, simulate bool) (*world, error) {
	w := &world{n: n, g: g, resyncs: new(atomic.Int64), writes: newWriteLog()}
	kinds := newKindIndex()
	w.fooLW = newNarratedLW(api(sc.FoosGVR, namespace), "Foo", n, g, kinds)
	w.depLW = newNarratedLW(api(sc.DeploymentsGVR, namespace), "Deployment", n, g, kinds)
	narrated := func(gvr schema.GroupVersionResource, ns string) sc.Resource {
		if gvr == eventsGVR && events != nil {
			return events(gvr, ns)
		}
		r := narratedResource{Resource: api(gvr, ns), gvr: gvr, writes: w.writes}
		if ns == namespace {
			switch gvr {
			case sc.FoosGVR:
				r.lw = w.fooLW
			case sc.DeploymentsGVR:
				r.lw = w.depLW
			}
		}
		return r
	}
	obs := newObserver(n, w.writes)
	observe, trace := obs.observe, slog.Handler(&traceHandler{n: n, kinds: kinds, syncs: w.resyncs})
	if n.web != nil {
		observe, trace = teeObserver(observe, n.web.Observe), teeHandler{trace, n.web.Handler()}
	}
	ctl, err := sc.New(narrated, sc.Options{
		Namespace:           namespace,
		ResyncPeriod:        resyncPeriod,
		DeploymentSimulator: simulate,
		Logger:              slog.New(trace),
		Observer:            observe,
	})
	if err != nil {
		return nil, err
	}
	w.ctl = ctl
	if w.fooInf, err = ctl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{}); err != nil {
		return nil, err
	}
	if w.depInf, err = ctl.Manager().GetInformer(sc.DeploymentsGVR, &sc.Deployment{}); err != nil {
		return nil, err
	}
	w.foos = informer.NewLister[*sc.Foo](w.fooInf.GetIndexer(), sc.FoosGVR.GroupResource())
	w.deployments = informer.NewLister[*sc.Deployment](w.depInf.GetIndexer(), sc.DeploymentsGVR.GroupResource())
	obs.foos, obs.deployments = w.foos, w.deployments
	return w, nil
}

// start runs the sample controller until stop. Its Manager starts the
// informers, waits for their caches to sync, then starts the controllers.
func (w *world) start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	w.wg.Go(func() { w.runErr = w.ctl.Run(ctx) })
}

// stop ends every goroutine the world started and waits for them: the
// Manager lets each controller finish the Reconcile in progress, then stops
// the informers (Reflectors, process loops, handler goroutines).
func (w *world) stop() error {
	if w.cancel != nil {
		w.cancel()
	}
	w.wg.Wait()
	return w.runErr
}

// lws returns the narrated ListerWatchers, for the story's counts.
func (w *world) lws() []*narratedLW { return []*narratedLW{w.fooLW, w.depLW} }

// narratedResource is the handle the sample controller gets: its List and
// Watch are the informer's narrated ones (for the informers' namespace),
// and its writes note the resourceVersion the server answered, for the
// observer's [API write] lines.
type narratedResource struct {
	sc.Resource
	gvr    schema.GroupVersionResource
	lw     *narratedLW // nil: List and Watch go straight to the server
	writes *writeLog
}

func (r narratedResource) listerWatcher() reflector.ListerWatcher {
	if r.lw != nil {
		return r.lw
	}
	return r.Resource
}

func (r narratedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return r.listerWatcher().List(ctx, opts)
}

func (r narratedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return r.listerWatcher().Watch(ctx, opts)
}

func (r narratedResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	out, err := r.Resource.Create(ctx, obj, opts)
	return r.noted("create", out, err)
}

func (r narratedResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	out, err := r.Resource.Update(ctx, obj, opts)
	return r.noted("update", out, err)
}

func (r narratedResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	out, err := r.Resource.UpdateStatus(ctx, obj, opts)
	if err == nil && out != nil && r.gvr == sc.FoosGVR {
		r.writes.replaced(objectKey(out), objectRV(obj), objectRV(out))
	}
	return r.noted("update status", out, err)
}

func (r narratedResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	out, err := r.Resource.Patch(ctx, name, pt, data, opts)
	if err == nil && out != nil && r.gvr == sc.FoosGVR {
		// The controller's patches carry the resourceVersion they were
		// computed from (optimistic locking).
		var p struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if json.Unmarshal(data, &p) == nil {
			r.writes.replaced(objectKey(out), p.Metadata.ResourceVersion, objectRV(out))
		}
	}
	return r.noted("patch", out, err)
}

func (r narratedResource) noted(verb string, out runtime.Object, err error) (runtime.Object, error) {
	if err == nil && out != nil {
		r.writes.note(r.gvr.Resource, verb, objectKey(out), objectRV(out))
	}
	return out, err
}

// writeLog holds the resourceVersion the server gave each controller write
// until the observer narrates it: the Observer's Event says what was
// written, the answer says which version it made. Keyed by resource, verb
// and object: each is written by one worker at a time.
//
// It also follows, per Foo, the chain of the controller's own writes, as
// the controller does to read its own writes: when the cache hands out a
// version one of them replaced, the cache is behind the controller.
type writeLog struct {
	mu  sync.Mutex // guards rvs and own
	rvs map[string]string
	own map[string]ownChain
}

// ownChain is a Foo's run of own writes: the versions they replaced, and
// the latest they made.
type ownChain struct {
	replaced map[string]bool
	latest   string
}

func newWriteLog() *writeLog {
	return &writeLog{rvs: map[string]string{}, own: map[string]ownChain{}}
}

// replaced records that a controller write of the Foo key replaced
// resourceVersion before with after.
func (l *writeLog) replaced(key, before, after string) {
	if before == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.own[key]
	if !ok || c.latest != before {
		c = ownChain{replaced: map[string]bool{}} // not a chain of own writes: start again
	}
	c.replaced[before] = true
	c.latest = after
	l.own[key] = c
}

// newerOwn returns the version of the controller's latest own write of the
// Foo key if cached is a version that write chain replaced, else "" (and
// then forgets the chain: the cache has caught up).
func (l *writeLog) newerOwn(key, cached string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.own[key]
	if ok && c.replaced[cached] {
		return c.latest
	}
	delete(l.own, key)
	return ""
}

func (l *writeLog) note(resource, verb, key, rv string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rvs[resource+" "+verb+" "+key] = rv
}

// take returns and forgets the resourceVersion of a write ("" if none).
func (l *writeLog) take(resource, verb, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := resource + " " + verb + " " + key
	rv := l.rvs[k]
	delete(l.rvs, k)
	return rv
}
