package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
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
	w.fooLW.writes, w.depLW.writes = w.writes, w.writes
	narrated := func(gvr schema.GroupVersionResource, ns string) sc.Resource {
		if gvr == eventsGVR && events != nil {
			return events(gvr, ns)
		}
		r := narratedResource{Resource: api(gvr, ns), gvr: gvr, ns: ns, writes: w.writes}
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
	obs := newObserver(n, w.writes, kinds)
	logger := slog.New(&traceHandler{n: n, kinds: kinds, syncs: w.resyncs})
	ctl, err := sc.New(narrated, sc.Options{
		Namespace:           namespace,
		ResyncPeriod:        resyncPeriod,
		DeploymentSimulator: simulate,
		Logger:              logger,
		Observer:            obs.observe,
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
	ns     string
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

// starting registers a write of the controller's (a Foo or a Deployment)
// before it is sent; the observer's line for it unregisters it.
func (r narratedResource) starting(verb string, obj runtime.Object, name string) {
	if r.gvr != sc.FoosGVR && r.gvr != sc.DeploymentsGVR {
		return // Events and the like get no line of their own
	}
	key := r.ns + "/" + name
	if obj != nil {
		key = objectKey(obj)
	}
	r.writes.start(r.gvr.Resource, verb, key)
}

func (r narratedResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	r.starting("create", obj, "")
	out, err := r.Resource.Create(ctx, obj, opts)
	return r.noted("create", out, err)
}

func (r narratedResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.starting("update", obj, "")
	out, err := r.Resource.Update(ctx, obj, opts)
	return r.noted("update", out, err)
}

func (r narratedResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	r.starting("delete", nil, name)
	return r.Resource.Delete(ctx, name, opts)
}

func (r narratedResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.starting("update status", obj, "")
	out, err := r.Resource.UpdateStatus(ctx, obj, opts)
	if err == nil && out != nil && r.gvr == sc.FoosGVR {
		r.writes.replaced(objectKey(out), objectRV(obj), objectRV(out))
	}
	return r.noted("update status", out, err)
}

func (r narratedResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	r.starting("patch", nil, name)
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
		if acc, aerr := meta.Accessor(out); aerr == nil && acc.GetDeletionTimestamp() != nil && len(acc.GetFinalizers()) == 0 {
			// The last finalizer went: the server deleted the Foo and,
			// like a real one, answered with the version the patch replaced.
			r.writes.deletedBy(objectKey(out), p.Metadata.ResourceVersion)
			r.writes.note(r.gvr.Resource, "patch", objectKey(out), writeAnswer{text: fmt.Sprintf(
				"the Foo is deleted (the answer carries rv %s, the version the patch replaced; the DELETED event gets a new one)", objectRV(out))})
			return out, err
		}
	}
	if apierrors.IsNotFound(err) && r.gvr == sc.FoosGVR {
		// The controller treats a finalizer patch of a Foo that is gone as
		// done (someone else removed the finalizer, or the controller's
		// memory of its own writes was lost); say why it found nothing.
		r.writes.note(r.gvr.Resource, "patch", r.ns+"/"+name, writeAnswer{gone: true,
			text: errorSummary(err) + ": the Foo is already deleted (the cache has not seen that yet), so there is no finalizer left to remove"})
	}
	return r.noted("patch", out, err)
}

func (r narratedResource) noted(verb string, out runtime.Object, err error) (runtime.Object, error) {
	if err == nil && out != nil {
		r.writes.note(r.gvr.Resource, verb, objectKey(out), writeAnswer{text: "rv " + objectRV(out)})
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
//
// And it keeps causes before effects in a live run: a controller write's
// watch event can reach a Reflector before the write's own line is
// printed. Each write of a Foo or Deployment is registered before it is
// sent (start) and unregistered once its line is printed (done); watch
// events wait (idle) until no write is in flight. (The gate orders the
// deterministic transcript by itself.)
type writeLog struct {
	mu      sync.Mutex // guards answers, own, inflight, pending and idle
	answers map[string]writeAnswer
	own     map[string]ownChain
	// inflight counts, per "resource verb key", the writes sent and not
	// yet narrated; pending is their total plus the story's held writes.
	inflight map[string]int
	pending  int
	idle     chan struct{} // closed while pending is 0
}

// writeAnswer is what the server answered a write, as the transcript
// says it: "rv 7", or a sentence when the answer needs one. gone marks a
// write that found its object already deleted, which the controller treats
// as done.
type writeAnswer struct {
	text string
	gone bool
}

// ownChain is a Foo's run of own writes: the versions they replaced, and
// the latest they made ("" when the last one deleted the Foo).
type ownChain struct {
	replaced map[string]bool
	latest   string
	deleted  bool
}

func newWriteLog() *writeLog {
	idle := make(chan struct{})
	close(idle)
	return &writeLog{answers: map[string]writeAnswer{}, own: map[string]ownChain{}, inflight: map[string]int{}, idle: idle}
}

// start registers a write about to be sent; take unregisters it once it
// has been narrated.
func (l *writeLog) start(resource, verb, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight[resource+" "+verb+" "+key]++
	l.holdLocked()
}

// hold and release bracket a write narrated outside the observer (the
// story's own writes).
func (l *writeLog) hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holdLocked()
}

func (l *writeLog) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked()
}

func (l *writeLog) holdLocked() {
	if l.pending == 0 {
		l.idle = make(chan struct{})
	}
	l.pending++
}

func (l *writeLog) releaseLocked() {
	l.pending--
	if l.pending == 0 {
		close(l.idle)
	}
}

// idleChan returns a channel that is closed once no write is in flight.
func (l *writeLog) idleChan() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.idle
}

// replaced records that a controller write of the Foo key replaced
// resourceVersion before with after.
//
// A write whose answer carries before made no new version (a no-op, or the
// removal of a deleting Foo's last finalizer, which deletes it): there is
// nothing newer to follow.
func (l *writeLog) replaced(key, before, after string) {
	if before == "" || before == after {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.chain(key, before, after)
}

// deletedBy records that a controller write of the Foo key replaced
// resourceVersion before by deleting the Foo (the last finalizer went).
func (l *writeLog) deletedBy(key, before string) {
	if before == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.chain(key, before, "")
}

// chain adds one own write to key's chain; after is "" for a deletion.
// l.mu must be held.
func (l *writeLog) chain(key, before, after string) {
	c, ok := l.own[key]
	if !ok || c.deleted || c.latest != before {
		c = ownChain{replaced: map[string]bool{}} // not a chain of own writes: start again
	}
	c.replaced[before] = true
	c.latest, c.deleted = after, after == ""
	l.own[key] = c
}

// newerOwn tells whether cached is a version the controller's own write
// chain for the Foo key replaced: then it returns the version its latest
// write made, or deleted when that write deleted the Foo. Otherwise it
// returns ok false and forgets the chain: the cache has caught up.
func (l *writeLog) newerOwn(key, cached string) (latest string, deleted, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, found := l.own[key]
	if found && c.replaced[cached] {
		return c.latest, c.deleted, true
	}
	delete(l.own, key)
	return "", false, false
}

// note records what the server answered a write.
func (l *writeLog) note(resource, verb, key string, answer writeAnswer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answers[resource+" "+verb+" "+key] = answer
}

// take returns and forgets what the server answered a write (the zero
// writeAnswer if nothing was noted).
func (l *writeLog) take(resource, verb, key string) writeAnswer {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := resource + " " + verb + " " + key
	a := l.answers[k]
	delete(l.answers, k)
	return a
}

// done unregisters a write whose line has been printed.
func (l *writeLog) done(resource, verb, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := resource + " " + verb + " " + key
	if l.inflight[k] > 0 {
		if l.inflight[k]--; l.inflight[k] == 0 {
			delete(l.inflight, k)
		}
		l.releaseLocked()
	}
}
