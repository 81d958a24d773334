package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

var cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// exampleCM is the exampleObject for ConfigMaps served without a scheme.
func exampleCM() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	return u
}

func newCM(ns, name, value string) *unstructured.Unstructured {
	u := exampleCM()
	u.SetNamespace(ns)
	u.SetName(name)
	u.Object["data"] = map[string]any{"value": value}
	return u
}

// newServer returns a fakeapi server closed at the end of the test.
func newServer(t *testing.T, opts fakeapi.Options) *fakeapi.Server {
	t.Helper()
	s := fakeapi.New(opts)
	t.Cleanup(s.Close)
	return s
}

func create(t *testing.T, c *fakeapi.ResourceClient, ns, name, value string) *unstructured.Unstructured {
	t.Helper()
	obj, err := c.Namespace(ns).Create(context.Background(), newCM(ns, name, value), metav1.CreateOptions{})
	require.NoError(t, err)
	return obj.(*unstructured.Unstructured)
}

// setValue sets the ConfigMap's data.value.
func setValue(obj runtime.Object, value string) {
	obj.(*unstructured.Unstructured).Object["data"] = map[string]any{"value": value}
}

func update(t *testing.T, c *fakeapi.ResourceClient, ns, name, value string) *unstructured.Unstructured {
	t.Helper()
	obj, err := c.Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	u := obj.(*unstructured.Unstructured)
	setValue(u, value)
	obj, err = c.Namespace(ns).Update(context.Background(), u, metav1.UpdateOptions{})
	require.NoError(t, err)
	return obj.(*unstructured.Unstructured)
}

func remove(t *testing.T, c *fakeapi.ResourceClient, ns, name string) {
	t.Helper()
	require.NoError(t, c.Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{}))
}

// run starts inf.Run and stops it (waiting for Run to return) at the end of
// the test.
func run(t *testing.T, inf informer.SharedIndexInformer) {
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

// rvOf returns an object's resourceVersion.
func rvOf(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	return m.GetResourceVersion()
}

// describe renders a notification the way tests compare them:
//
//	add ns/name@rv [initial]   update ns/name@old->new   delete ns/name@rv | delete ns/name (tombstone)
func keyOf(obj any) string {
	key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	return key
}

// recorder is a ResourceEventHandler spy: it renders each call as a line and
// keeps, from the calls alone, its own view of the objects (key -> rv). It
// also checks that the calls are consistent with that view: an add for an
// unknown key, an update whose old object is the one it last saw, a delete
// of a known key. It is safe for concurrent use.
type recorder struct {
	mu       sync.Mutex // guards the fields below
	lines    []string
	view     map[string]string
	problems []string
}

func newRecorder() *recorder { return &recorder{view: map[string]string{}} }

func (r *recorder) OnAdd(obj any, initial bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key, rv := keyOf(obj), rvOf(obj)
	line := fmt.Sprintf("add %s@%s", key, rv)
	if initial {
		line += " initial"
	}
	r.lines = append(r.lines, line)
	if old, ok := r.view[key]; ok {
		r.problems = append(r.problems, fmt.Sprintf("%s: already had %s@%s", line, key, old))
	}
	r.view[key] = rv
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := keyOf(newObj)
	line := fmt.Sprintf("update %s@%s->%s", key, rvOf(oldObj), rvOf(newObj))
	r.lines = append(r.lines, line)
	if have, ok := r.view[key]; !ok || have != rvOf(oldObj) {
		r.problems = append(r.problems, fmt.Sprintf("%s: had %q (known %v)", line, have, ok))
	}
	r.view[key] = rvOf(newObj)
}

func (r *recorder) OnDelete(obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := keyOf(obj)
	var line string
	if t, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		line = fmt.Sprintf("delete %s (tombstone of @%s)", key, rvOf(t.Obj))
	} else {
		line = fmt.Sprintf("delete %s@%s", key, rvOf(obj))
	}
	r.lines = append(r.lines, line)
	if _, ok := r.view[key]; !ok {
		r.problems = append(r.problems, line+": unknown key")
	}
	delete(r.view, key)
}

// take returns the lines recorded since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := r.lines
	r.lines = nil
	return lines
}

func (r *recorder) snapshot() (view map[string]string, problems []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.view), slices.Clone(r.problems)
}

// serverView lists the server: key -> resourceVersion.
func serverView(t *testing.T, c *fakeapi.ResourceClient) map[string]string {
	t.Helper()
	list, err := c.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	objs, err := meta.ExtractList(list)
	require.NoError(t, err)
	view := map[string]string{}
	for _, o := range objs {
		view[keyOf(o)] = rvOf(o)
	}
	return view
}

// cacheView reads an informer's cache: key -> resourceVersion.
func cacheView(inf informer.SharedIndexInformer) map[string]string {
	view := map[string]string{}
	for _, o := range inf.GetStore().List() {
		view[keyOf(o)] = rvOf(o)
	}
	return view
}

// logCapture is a slog.Handler that keeps every record's message and key attribute.
type logCapture struct {
	mu    *sync.Mutex
	lines *[]string
}

func newLogCapture() logCapture { return logCapture{mu: &sync.Mutex{}, lines: &[]string{}} }

func (c logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (c logCapture) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c logCapture) WithGroup(string) slog.Handler            { return c }
func (c logCapture) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.lines = append(*c.lines, b.String())
	return nil
}

// all returns every captured line.
func (c logCapture) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(*c.lines)
}

// spyLW wraps a ListerWatcher and records the status codes of the watch
// ERROR events it passes on, and how many lists it served.
type spyLW struct {
	lw reflector.ListerWatcher

	mu          sync.Mutex // guards the fields below
	lists       int
	watchErrors []int32
}

func (s *spyLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	s.lists++
	s.mu.Unlock()
	return s.lw.List(ctx, opts)
}

func (s *spyLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := s.lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		if st, ok := e.Object.(*metav1.Status); ok && e.Type == watch.Error {
			s.mu.Lock()
			s.watchErrors = append(s.watchErrors, st.Code)
			s.mu.Unlock()
		}
		return e, true
	}), nil
}

func (s *spyLW) seen() (lists int, watchErrors []int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, slices.Clone(s.watchErrors)
}
