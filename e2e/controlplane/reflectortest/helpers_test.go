package reflectortest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// wait bounds every wait on the real server.
const wait = 60 * time.Second

// listAll is a list of the newest state.
var listAll = metav1.ListOptions{}

var (
	configMaps   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	podTemplates = schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"}
)

// resource returns a typed handle on gvr in namespace ns, through a client
// configured from the control plane's kubeconfig.
func resource(t *testing.T, gvr schema.GroupVersionResource, ns string) *client.ResourceClient {
	return testenv.Client(t, testenv.Scheme(t)).Resource(gvr).Namespace(ns)
}

func newConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Data:       map[string]string{"made-by": "reflectortest"},
	}
}

func newPodTemplate(name string) *corev1.PodTemplate {
	return &corev1.PodTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PodTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
		}},
	}
}

// create creates obj and returns its resourceVersion.
func create(t *testing.T, res *client.ResourceClient, obj runtime.Object) string {
	t.Helper()
	out, err := res.Create(t.Context(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	m, err := meta.Accessor(out)
	require.NoError(t, err)
	return m.GetResourceVersion()
}

// rvAtLeast reports whether resourceVersion a is at least b. kube-apiserver's
// resourceVersions are etcd revisions: decimal integers that only grow.
// Comparing them is fine in a test of this server, never in a client.
func rvAtLeast(a, b string) bool {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	return errA == nil && errB == nil && x >= y
}

// call is one request a Reflector made through a recordingLW.
type call struct {
	verb string // "list" or "watch"
	opts metav1.ListOptions
	at   time.Time
	err  error // what the call returned
}

func (c call) String() string {
	s := fmt.Sprintf("%s rv=%q", c.verb, c.opts.ResourceVersion)
	if c.opts.Limit > 0 {
		s += fmt.Sprintf(" limit=%d", c.opts.Limit)
	}
	if c.opts.Continue != "" {
		s += " continue"
	}
	if c.opts.SendInitialEvents != nil && *c.opts.SendInitialEvents {
		s += " sendInitialEvents"
	}
	if c.err != nil {
		s += fmt.Sprintf(" -> %v", c.err)
	}
	return s
}

// recordingLW passes List and Watch through to a real client and records
// each call and its error. Its watches are wrapped so that the ERROR events
// that end them are recorded too, as calls with verb "watch-error".
type recordingLW struct {
	next reflector.ListerWatcher

	mu      sync.Mutex // guards calls
	calls   []call
	changed chan struct{} // signalled (without blocking) after every record
}

func newRecordingLW(next reflector.ListerWatcher) *recordingLW {
	return &recordingLW{next: next, changed: make(chan struct{}, 1)}
}

func (l *recordingLW) record(c call) {
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *recordingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := l.next.List(ctx, opts)
	l.record(call{verb: "list", opts: opts, at: time.Now(), err: err})
	return obj, err
}

func (l *recordingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.next.Watch(ctx, opts)
	l.record(call{verb: "watch", opts: opts, at: time.Now(), err: err})
	if err != nil || w == nil {
		return w, err
	}
	return newErrorRecordingWatch(w, func(status *metav1.Status) {
		l.record(call{verb: "watch-error", opts: opts, at: time.Now(),
			err: fmt.Errorf("%d %s: %s", status.Code, status.Reason, status.Message)})
	}), nil
}

// snapshot returns the calls so far.
func (l *recordingLW) snapshot() []call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]call(nil), l.calls...)
}

// count returns how many calls so far have the verb.
func (l *recordingLW) count(verb string) int {
	n := 0
	for _, c := range l.snapshot() {
		if c.verb == verb {
			n++
		}
	}
	return n
}

// waitFor waits until cond holds for the calls so far, re-checking after
// every call, and fails the test after d.
func (l *recordingLW) waitFor(t *testing.T, d time.Duration, what string, cond func([]call) bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for !cond(l.snapshot()) {
		select {
		case <-l.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s; calls: %v", d, what, l.snapshot())
		}
	}
}

// errorRecordingWatch forwards every event of a watch, telling onError about
// each ERROR event's Status on the way.
type errorRecordingWatch struct {
	w    watch.Interface
	out  chan watch.Event
	stop chan struct{} // closed by Stop: nobody reads out any more
	once sync.Once
}

func newErrorRecordingWatch(w watch.Interface, onError func(*metav1.Status)) *errorRecordingWatch {
	ew := &errorRecordingWatch{w: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go func() {
		defer close(ew.out)
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				if st, ok := ev.Object.(*metav1.Status); ok {
					onError(st)
				}
			}
			select {
			case ew.out <- ev:
			case <-ew.stop:
				return
			}
		}
	}()
	return ew
}

func (ew *errorRecordingWatch) Stop() {
	ew.once.Do(func() { close(ew.stop) })
	ew.w.Stop()
}

func (ew *errorRecordingWatch) ResultChan() <-chan watch.Event { return ew.out }

// waitStore is a concurrency-safe reflector.Store that keeps each object's
// resourceVersion by key, records every call ("replace@RV n", "add ns/name",
// ...) and lets a test wait for a condition.
type waitStore struct {
	mu      sync.Mutex // guards ops and objs
	ops     []string
	objs    map[string]string // key -> resourceVersion
	changed chan struct{}     // signalled (without blocking) after every call
}

func newWaitStore() *waitStore {
	return &waitStore{objs: map[string]string{}, changed: make(chan struct{}, 1)}
}

func objKeyRV(obj any) (string, string) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T>", obj), ""
	}
	return m.GetNamespace() + "/" + m.GetName(), m.GetResourceVersion()
}

func (s *waitStore) record(op string, f func()) error {
	s.mu.Lock()
	s.ops = append(s.ops, op)
	f()
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

func (s *waitStore) Add(obj any) error {
	k, rv := objKeyRV(obj)
	return s.record("add "+k, func() { s.objs[k] = rv })
}

func (s *waitStore) Update(obj any) error {
	k, rv := objKeyRV(obj)
	return s.record("update "+k, func() { s.objs[k] = rv })
}

func (s *waitStore) Delete(obj any) error {
	k, _ := objKeyRV(obj)
	return s.record("delete "+k, func() { delete(s.objs, k) })
}

func (s *waitStore) Replace(list []any, rv string) error {
	return s.record(fmt.Sprintf("replace@%s %d", rv, len(list)), func() {
		clear(s.objs)
		for _, o := range list {
			k, objRV := objKeyRV(o)
			s.objs[k] = objRV
		}
	})
}

func (s *waitStore) Resync() error { return s.record("resync", func() {}) }

// has reports whether the Store holds key k.
func (s *waitStore) has(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.objs[k]
	return ok
}

// contents returns a copy of the Store's contents: key -> resourceVersion.
func (s *waitStore) contents() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.objs))
	for k, v := range s.objs {
		out[k] = v
	}
	return out
}

// calls returns the recorded calls so far.
func (s *waitStore) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ops...)
}

// replacedAt returns the resourceVersion of the last Replace ("" if none).
// A test reads the list's resourceVersion here rather than from the
// Reflector, which records it only after Replace has returned.
func (s *waitStore) replacedAt() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.ops) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(s.ops[i], "replace@"); ok {
			rv, _, _ := strings.Cut(rest, " ")
			return rv
		}
	}
	return ""
}

// countPrefix counts the recorded calls that start with prefix.
func (s *waitStore) countPrefix(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, op := range s.ops {
		if strings.HasPrefix(op, prefix) {
			n++
		}
	}
	return n
}

// waitFor waits until cond holds, re-checking after every Store call, and
// fails the test after d.
func (s *waitStore) waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-s.changed:
		case <-deadline.C:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("timed out after %v waiting for %s; Store calls: %v", d, what, s.ops)
		}
	}
}

// runReflector runs a Reflector for ConfigMaps-like objects of expected's type
// on lw until the test ends, logging through log.
func runReflector(t *testing.T, lw reflector.ListerWatcher, expected runtime.Object, store reflector.Store, log *testenv.Transitions, opts reflector.Options) *reflector.Reflector {
	t.Helper()
	opts.Logger = log.Logger()
	r := reflector.New(lw, expected, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return within 10s of cancel")
		}
	})
	return r
}
