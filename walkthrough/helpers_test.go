package walkthrough

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

var (
	cmGVR   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	foosGVR = schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}
)

// quiet is the logger of every component under test: the walkthroughs
// assert what happens, they do not read logs.
var quiet = slog.New(slog.DiscardHandler)

// newServer returns a fakeapi server with the Foo resource registered (with
// a status subresource, like a CRD), closed at the end of the test.
func newServer(t *testing.T, opts fakeapi.Options) *fakeapi.Server {
	t.Helper()
	srv := fakeapi.New(opts)
	t.Cleanup(srv.Close)
	require.NoError(t, srv.Register(fakeapi.ResourceInfo{GVR: foosGVR, Kind: "Foo", Namespaced: true, HasStatus: true}))
	return srv
}

// exampleConfigMap is the exampleObject of ConfigMap informers: fakeapi
// serves unstructured objects when it has no scheme.
func exampleConfigMap() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	return u
}

// configMap returns a ConfigMap whose data.value is value.
func configMap(ns, name, value string) *unstructured.Unstructured {
	u := exampleConfigMap()
	u.SetNamespace(ns)
	u.SetName(name)
	u.Object["data"] = map[string]any{"value": value}
	return u
}

// exampleFoo is the exampleObject of Foo informers.
func exampleFoo() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("samplecontroller.k8s.io/v1alpha1")
	u.SetKind("Foo")
	return u
}

// newFoo returns a Foo with spec.replicas.
func newFoo(ns, name string, replicas int64) *unstructured.Unstructured {
	u := exampleFoo()
	u.SetNamespace(ns)
	u.SetName(name)
	u.Object["spec"] = map[string]any{"replicas": replicas}
	return u
}

// create stores obj through c and returns it as stored.
func create(t *testing.T, c *fakeapi.ResourceClient, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := c.Create(context.Background(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}

// setValue merge-patches data.value of a ConfigMap through c and returns the
// object as stored.
func setValue(t *testing.T, c *fakeapi.ResourceClient, name, value string) *unstructured.Unstructured {
	t.Helper()
	patch := fmt.Sprintf(`{"data":{"value":%q}}`, value)
	out, err := c.Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}

// value returns data.value of a ConfigMap.
func value(obj any) string {
	v, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "data", "value")
	return v
}

// rvOf returns an object's resourceVersion.
func rvOf(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	return m.GetResourceVersion()
}

// startInformer registers handlers on inf, runs it until the end of the
// test and waits until the informer and every registration have synced.
func startInformer(t *testing.T, inf informer.SharedIndexInformer, handlers ...informer.ResourceEventHandler) []informer.ResourceEventHandlerRegistration {
	t.Helper()
	checkers := []informer.DoneChecker{inf}
	var regs []informer.ResourceEventHandlerRegistration
	for _, h := range handlers {
		reg, err := inf.AddEventHandler(h)
		require.NoError(t, err)
		regs = append(regs, reg)
		checkers = append(checkers, reg)
	}
	runInformer(t, inf)
	require.True(t, informer.WaitForCacheSync(t.Context(), checkers...), "the informer did not sync")
	// The informer reports synced a moment before its Reflector records the
	// list's resourceVersion and opens the watch; wait until every goroutine
	// is blocked, so what a test does next meets an open watch.
	synctest.Wait()
	return regs
}

// runInformer runs inf on its own goroutine and, at the end of the test,
// stops it and waits until Run has returned.
func runInformer(t *testing.T, inf informer.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// recorder is a ResourceEventHandler that writes one line per notification:
//
//	add ns/a@2 [initial]   update ns/a@2->3   delete ns/a@4   delete ns/a (tombstone of @3)
//
// It is safe for concurrent use.
type recorder struct {
	mu    sync.Mutex // guards lines and objs
	lines []string
	objs  []any // the object of each notification (the new one for updates)
}

func (r *recorder) record(line string, obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	r.objs = append(r.objs, obj)
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	line := fmt.Sprintf("add %s@%s", keyOf(obj), rvOf(obj))
	if isInInitialList {
		line += " initial"
	}
	r.record(line, obj)
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	r.record(fmt.Sprintf("update %s@%s->%s", keyOf(newObj), rvOf(oldObj), rvOf(newObj)), newObj)
}

func (r *recorder) OnDelete(obj any) {
	if t, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		r.record(fmt.Sprintf("delete %s (tombstone of @%s)", t.Key, rvOf(t.Obj)), obj)
		return
	}
	r.record(fmt.Sprintf("delete %s@%s", keyOf(obj), rvOf(obj)), obj)
}

// take returns the lines and objects recorded since the last take.
func (r *recorder) take() ([]string, []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines, objs := r.lines, r.objs
	r.lines, r.objs = nil, nil
	return lines, objs
}

// takeLines is take without the objects.
func (r *recorder) takeLines() []string {
	lines, _ := r.take()
	return lines
}

func keyOf(obj any) string {
	key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	return key
}

// countingLW passes every call to a ListerWatcher and records it, with the
// time it was made, as `list rv="..."` or `watch rv="..."`.
type countingLW struct {
	inner reflector.ListerWatcher

	mu    sync.Mutex // guards calls
	calls []lwCall
}

type lwCall struct {
	what string
	at   time.Time
}

func (c *countingLW) record(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, lwCall{what: what, at: time.Now()})
}

func (c *countingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	c.record(fmt.Sprintf("list rv=%q", opts.ResourceVersion))
	return c.inner.List(ctx, opts)
}

func (c *countingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	c.record(fmt.Sprintf("watch rv=%q", opts.ResourceVersion))
	return c.inner.Watch(ctx, opts)
}

// all returns every call so far.
func (c *countingLW) all() []lwCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// whats returns what each call so far was.
func (c *countingLW) whats() []string {
	var out []string
	for _, call := range c.all() {
		out = append(out, call.what)
	}
	return out
}

// count returns how many calls of verb ("list" or "watch") were made.
func (c *countingLW) count(verb string) int {
	n := 0
	for _, call := range c.all() {
		if strings.HasPrefix(call.what, verb+" ") {
			n++
		}
	}
	return n
}
