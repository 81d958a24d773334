package demoengine

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
	"github.com/informerlab/informerlab/internal/pipelinetrace"
	"github.com/informerlab/informerlab/internal/pipelineweb"
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
//   - steps 1 and 2: each informer lists and watches through a narratedLW,
//     whose calls and watch events become typed events (package
//     internal/pipelinetrace) for the narrator and the page;
//   - steps 2 to 5: the informers' debug trace, typed by package
//     internal/pipelinetrace, through traceNarrator;
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
	// One event stream, two renderers: the ListerWatchers' calls and
	// events and the informers' trace become typed events in one place (a
	// pipelinetrace.Stream), for the terminal's narrator and, with --web,
	// the page's Recorder. (The Observer's events are typed already; they
	// go to both too, below.)
	kinds := newKindIndex()
	sinks := []func(pipelinetrace.Event){newStreamNarrator(n, kinds, w.resyncs, false).event}
	if n.web != nil {
		sinks = append(sinks, n.web.Trace)
	}
	stream := pipelinetrace.NewStream(sinks...)
	w.fooLW = newNarratedLW(api(sc.FoosGVR, namespace), "Foo", g, stream)
	w.depLW = newNarratedLW(api(sc.DeploymentsGVR, namespace), "Deployment", g, stream)
	w.fooLW.gated.writes, w.depLW.gated.writes = w.writes, w.writes
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
	observe := obs.observe
	if n.web != nil {
		observe = teeObserver(observe, n.web.Observe)
	}
	ctl, err := sc.New(narrated, sc.Options{
		Namespace:           namespace,
		ResyncPeriod:        resyncPeriod,
		DeploymentSimulator: simulate,
		Logger:              slog.New(stream.Handler()),
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
		key = pipelineweb.ObjectKey(obj)
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
		r.writes.replaced(pipelineweb.ObjectKey(out), pipelineweb.ObjectRV(obj), pipelineweb.ObjectRV(out))
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
			r.writes.replaced(pipelineweb.ObjectKey(out), p.Metadata.ResourceVersion, pipelineweb.ObjectRV(out))
		}
		if acc, aerr := meta.Accessor(out); aerr == nil && acc.GetDeletionTimestamp() != nil && len(acc.GetFinalizers()) == 0 {
			// The last finalizer went: the server deleted the Foo and,
			// like a real one, answered with the version the patch replaced.
			r.writes.deletedBy(pipelineweb.ObjectKey(out), p.Metadata.ResourceVersion)
			r.writes.note(r.gvr.Resource, "patch", pipelineweb.ObjectKey(out), writeAnswer{text: fmt.Sprintf(
				"the Foo is deleted (the answer carries rv %s, the version the patch replaced; the DELETED event gets a new one)", pipelineweb.ObjectRV(out))})
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
		r.writes.note(r.gvr.Resource, verb, pipelineweb.ObjectKey(out), writeAnswer{text: "rv " + pipelineweb.ObjectRV(out)})
	}
	return out, err
}
