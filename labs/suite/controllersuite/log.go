package controllersuite

import (
	"context"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	sc "github.com/informerlab/informerlab/samplecontroller"
)

// The practices lab 7 teaches are about what the controller sends and
// how its Reconciles end, which the objects left on the server do not
// show: a status written on every Reconcile ends as right as one written
// when it changed, and a Foo retried forever is gone all the same. So the
// controller's handles to the API record every write, and its Observer
// every Reconcile's outcome and every backoff.

// write is one write the controller sent.
type write struct {
	// resource is "foos" or "deployments"; verb "create", "update",
	// "update status", "patch" or "delete"; name the object's.
	resource, verb, name string
	// resourceVersion is the one an update carried ("" for none: an
	// unconditional overwrite), or a patch's metadata.resourceVersion.
	resourceVersion string
}

// outcome is how one Reconcile of the Foo controller ended, or a backoff.
type outcome struct {
	step sc.Step
	key  string
	res  bool // the Result asked for a requeue
	err  error
}

// controllerLog is what the controller wrote and how its Reconciles
// ended. It is safe for concurrent use.
type controllerLog struct {
	mu       sync.Mutex // guards writes and outcomes
	writes   []write
	outcomes []outcome
}

func (l *controllerLog) wrote(w write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

// observe is the controller's Observer.
func (l *controllerLog) observe(ev sc.Event) {
	if ev.Controller != sc.FooControllerName || (ev.Step != sc.StepReconcile && ev.Step != sc.StepBackoff) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outcomes = append(l.outcomes, outcome{step: ev.Step, key: ev.Request.String(),
		res: ev.Result.RequeueAfter > 0, err: ev.Err})
}

// mark returns where the log stands now, for since.
func (l *controllerLog) mark() (writes, outcomes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes), len(l.outcomes)
}

// since returns the Foo controller's writes (the simulator's status
// writes of Deployments left out) and outcomes after mark.
func (l *controllerLog) since(writes, outcomes int) ([]write, []outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ws []write
	for _, w := range l.writes[writes:] {
		if w.resource == "foos" || w.resource == "deployments" && w.verb != "update status" {
			ws = append(ws, w)
		}
	}
	return ws, append([]outcome(nil), l.outcomes[outcomes:]...)
}

// recordingResource is the controller's handle to one resource, which
// records every write it passes on.
type recordingResource struct {
	sc.Resource
	resource string
	log      *controllerLog
}

func (r recordingResource) note(verb string, obj runtime.Object, name string) {
	w := write{resource: r.resource, verb: verb, name: name}
	if m, err := meta.Accessor(obj); err == nil && obj != nil {
		w.name, w.resourceVersion = m.GetName(), m.GetResourceVersion()
	}
	r.log.wrote(w)
}

func (r recordingResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	r.note("create", obj, "")
	return r.Resource.Create(ctx, obj, opts)
}

func (r recordingResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.note("update", obj, "")
	return r.Resource.Update(ctx, obj, opts)
}

func (r recordingResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.note("update status", obj, "")
	return r.Resource.UpdateStatus(ctx, obj, opts)
}

func (r recordingResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	w := write{resource: r.resource, verb: "patch", name: name}
	var body struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(data, &body) == nil {
		w.resourceVersion = body.Metadata.ResourceVersion
	}
	r.log.wrote(w)
	return r.Resource.Patch(ctx, name, pt, data, opts)
}

func (r recordingResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	r.log.wrote(write{resource: r.resource, verb: "delete", name: name})
	return r.Resource.Delete(ctx, name, opts)
}
