package reflectorsuite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/reflector"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// env is one behaviour's world, inside a synctest bubble: a fakeapi
// server with ConfigMaps in namespace "ns", a ListerWatcher that records
// every call, a Store that records every write, and the Reflector under
// test running on its own goroutine.
type env struct {
	srv    *fakeapi.Server
	cms    *fakeapi.ResourceClient
	silent *fakeapi.ResourceClient
	lw     *recordingLW
	store  *recordingStore
	r      Reflector

	cancel context.CancelFunc
	done   <-chan struct{}
}

// start creates the objects, then starts the Reflector and lets the
// bubble settle (the initial list and watch happen).
func start(t *testing.T, impl Impl, prepare func(*env), objects ...string) *env {
	t.Helper()
	srv := fakeapi.New(fakeapi.Options{})
	e := &env{
		srv:    srv,
		cms:    srv.Resource(configMaps).Namespace("ns"),
		silent: srv.SilentResource(configMaps).Namespace("ns"),
		store:  &recordingStore{objects: map[string]string{}},
	}
	e.lw = &recordingLW{inner: e.cms}
	for _, name := range objects {
		e.create(t, name)
	}
	if prepare != nil {
		prepare(e)
	}
	e.r = impl.New(e.lw, e.store)
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.done = grade.Go(t, func() { e.r.Run(ctx) })
	t.Cleanup(e.stop)
	synctest.Wait()
	return e
}

// stop cancels Run, waits for it to return and closes the server.
func (e *env) stop() {
	e.cancel()
	<-e.done
	e.srv.Close()
}

func (e *env) create(t *testing.T, name string) {
	t.Helper()
	_, err := e.cms.Create(context.Background(), configMap(name), metav1.CreateOptions{})
	require.NoError(t, err)
}

// rv is the server's current resourceVersion.
func (e *env) rv() string { return fmt.Sprint(e.srv.CurrentResourceVersion()) }

// serverView is name → resourceVersion of every ConfigMap on the server.
func (e *env) serverView(t *testing.T) map[string]string {
	t.Helper()
	list, err := e.cms.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	view := map[string]string{}
	items, ok := list.(*unstructured.UnstructuredList)
	require.True(t, ok, "list is %T", list)
	for _, item := range items.Items {
		view[item.GetName()] = item.GetResourceVersion()
	}
	return view
}

// advance lets d pass on the fake clock and lets the bubble settle.
func advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func configMap(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("ns")
	u.SetName(name)
	return u
}

// recordingLW passes every call to fakeapi and records it as
// "list rv=X" or "watch rv=X".
type recordingLW struct {
	inner reflector.ListerWatcher
	mu    sync.Mutex
	calls []string
}

func (l *recordingLW) record(verb string, opts metav1.ListOptions) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, fmt.Sprintf("%s rv=%q", verb, opts.ResourceVersion))
}

func (l *recordingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l.record("list", opts)
	return l.inner.List(ctx, opts)
}

func (l *recordingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	l.record("watch", opts)
	return l.inner.Watch(ctx, opts)
}

// count returns how many calls of verb were made.
func (l *recordingLW) count(verb string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.calls {
		if strings.HasPrefix(c, verb+" ") {
			n++
		}
	}
	return n
}

func (l *recordingLW) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// recordingStore is a reflector.Store that keeps name → resourceVersion
// and a log of every write, e.g. "replace rv=7 [a b]", "add c 8".
type recordingStore struct {
	mu      sync.Mutex
	objects map[string]string
	log     []string
}

func nameRV(obj any) (string, string) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return fmt.Sprintf("<%T>", obj), ""
	}
	return m.GetName(), m.GetResourceVersion()
}

func (s *recordingStore) write(verb string, obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, rv := nameRV(obj)
	if verb == "delete" {
		delete(s.objects, name)
	} else {
		s.objects[name] = rv
	}
	s.log = append(s.log, verb+" "+name+" "+rv)
	return nil
}

func (s *recordingStore) Add(obj any) error    { return s.write("add", obj) }
func (s *recordingStore) Update(obj any) error { return s.write("update", obj) }
func (s *recordingStore) Delete(obj any) error { return s.write("delete", obj) }
func (s *recordingStore) Resync() error        { return nil }

func (s *recordingStore) Replace(list []any, rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects = map[string]string{}
	var names []string
	for _, obj := range list {
		name, objRV := nameRV(obj)
		s.objects[name] = objRV
		names = append(names, name)
	}
	sort.Strings(names)
	s.log = append(s.log, fmt.Sprintf("replace rv=%s %v", rv, names))
	return nil
}

// view is a copy of name → resourceVersion.
func (s *recordingStore) view() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.objects))
	for k, v := range s.objects {
		out[k] = v
	}
	return out
}

// writes returns the log since the last call.
func (s *recordingStore) writes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.log
	s.log = nil
	return out
}
