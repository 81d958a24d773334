package reflector_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// ---- a scripted ListerWatcher ----

// scriptedLW hands every List and Watch call to the test, which inspects its
// options and answers it: the test walks the Reflector one call at a time.
// Inside a synctest bubble, a Reflector waiting on a timer lets fake time move
// on while the test waits for the next call, so the test can measure exact
// delays with time.Since.
type scriptedLW struct {
	calls chan *call
	start time.Time // when it was made: calls are logged relative to it
}

type call struct {
	verb  string // "list" or "watch"
	opts  metav1.ListOptions
	reply chan reply
}

type reply struct {
	obj runtime.Object
	w   watch.Interface
	err error
}

func newScriptedLW() *scriptedLW { return &scriptedLW{calls: make(chan *call), start: time.Now()} }

func (s *scriptedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	r, err := s.do(ctx, "list", opts)
	if err != nil {
		return nil, err
	}
	return r.obj, r.err
}

func (s *scriptedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r, err := s.do(ctx, "watch", opts)
	if err != nil {
		return nil, err
	}
	return r.w, r.err
}

func (s *scriptedLW) do(ctx context.Context, verb string, opts metav1.ListOptions) (reply, error) {
	c := &call{verb: verb, opts: opts, reply: make(chan reply, 1)}
	select {
	case s.calls <- c:
	case <-ctx.Done():
		return reply{}, ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r, nil
	case <-ctx.Done():
		return reply{}, ctx.Err()
	}
}

// next waits for the Reflector's next call; an hour (of bubble time) without
// one fails the test.
func (s *scriptedLW) next(t *testing.T) *call {
	t.Helper()
	select {
	case c := <-s.calls:
		t.Logf("%8v  %s", time.Since(s.start).Round(time.Millisecond), c)
		return c
	case <-time.After(time.Hour):
		t.Fatal("no List or Watch call within an hour")
		return nil
	}
}

// expectList waits for the next call and checks it is a List at rv with limit.
func (s *scriptedLW) expectList(t *testing.T, rv string, limit int64) *call {
	t.Helper()
	c := s.next(t)
	require.Equal(t, "list", c.verb, "expected a List, got a Watch with %+v", c.opts)
	assert.Equal(t, rv, c.opts.ResourceVersion, "list resourceVersion")
	assert.Equal(t, limit, c.opts.Limit, "list limit")
	return c
}

// expectWatch waits for the next call and checks it is a plain Watch from rv
// with bookmarks and a timeout.
func (s *scriptedLW) expectWatch(t *testing.T, rv string) *call {
	t.Helper()
	c := s.next(t)
	require.Equal(t, "watch", c.verb, "expected a Watch, got a List with %+v", c.opts)
	assert.Equal(t, rv, c.opts.ResourceVersion, "watch resourceVersion")
	assert.True(t, c.opts.AllowWatchBookmarks, "watch asks for bookmarks")
	assert.NotNil(t, c.opts.TimeoutSeconds, "watch has a timeout")
	assert.Nil(t, c.opts.SendInitialEvents, "plain watch does not ask for initial events")
	return c
}

// expectNoCall checks the Reflector makes no call for d (bubble time).
func (s *scriptedLW) expectNoCall(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case c := <-s.calls:
		t.Fatalf("unexpected %s with %+v", c.verb, c.opts)
	case <-time.After(d):
	}
}

// String renders a call for the test's log: LIST rv="0" limit=500, WATCH rv="7".
func (c *call) String() string {
	s := fmt.Sprintf("%s rv=%q", strings.ToUpper(c.verb), c.opts.ResourceVersion)
	if c.opts.Limit != 0 {
		s += fmt.Sprintf(" limit=%d", c.opts.Limit)
	}
	if c.opts.Continue != "" {
		s += fmt.Sprintf(" continue=%q", c.opts.Continue)
	}
	if c.opts.SendInitialEvents != nil && *c.opts.SendInitialEvents {
		s += " sendInitialEvents=true"
	}
	return s
}

func (c *call) respondList(l runtime.Object) { c.reply <- reply{obj: l} }
func (c *call) fail(err error)               { c.reply <- reply{err: err} }

// respondWatch answers a Watch with a fresh fake watcher and returns it.
func (c *call) respondWatch() *watch.RaceFreeFakeWatcher {
	w := watch.NewRaceFreeFake()
	c.reply <- reply{w: w}
	return w
}

// ---- objects ----

func pod(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv},
	}
}

func podList(rv string, pods ...*metav1.PartialObjectMetadata) *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, p := range pods {
		l.Items = append(l.Items, *p)
	}
	return l
}

func page(rv, next string, pods ...*metav1.PartialObjectMetadata) *metav1.PartialObjectMetadataList {
	l := podList(rv, pods...)
	l.Continue = next
	return l
}

func bookmark(rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv},
	}
}

func initialEventsEnd(rv string) *metav1.PartialObjectMetadata {
	b := bookmark(rv)
	b.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	return b
}

// ---- a recording Store ----

// recordingStore records every call as a line such as "add ns/a@3" or
// "replace@7 [ns/a@3 ns/b@5]". Errors can be scripted per method.
type recordingStore struct {
	mu   sync.Mutex // guards the fields below
	ops  []string
	errs map[string]error     // by method name: "add", "replace", "resync"
	logf func(string, ...any) // if set, told of every call
}

func (s *recordingStore) Add(obj any) error    { return s.record("add", "add "+describe(obj)) }
func (s *recordingStore) Update(obj any) error { return s.record("update", "update "+describe(obj)) }
func (s *recordingStore) Delete(obj any) error { return s.record("delete", "delete "+describe(obj)) }
func (s *recordingStore) Resync() error        { return s.record("resync", "resync") }

func (s *recordingStore) Replace(list []any, rv string) error {
	names := make([]string, len(list))
	for i, o := range list {
		names[i] = describe(o)
	}
	return s.record("replace", fmt.Sprintf("replace@%s [%s]", rv, strings.Join(names, " ")))
}

func (s *recordingStore) record(method, op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op)
	if s.logf != nil {
		s.logf("          store: %s", op)
	}
	return s.errs[method]
}

// failWith makes method return err from now on (nil: succeed again).
func (s *recordingStore) failWith(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errs == nil {
		s.errs = make(map[string]error)
	}
	s.errs[method] = err
}

// take returns the calls recorded since the last take.
func (s *recordingStore) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ops := s.ops
	s.ops = nil
	return ops
}

func describe(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%s/%s@%s", m.GetNamespace(), m.GetName(), m.GetResourceVersion())
}

// ---- logs ----

// logBuffer is a concurrency-safe sink for a test's slog output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// ---- running a Reflector ----

// harness runs a Reflector inside the test's bubble.
type harness struct {
	r      *reflector.Reflector
	lw     *scriptedLW
	store  *recordingStore
	logs   *logBuffer
	errs   chan error // what the WatchErrorHandler saw
	cancel context.CancelFunc
	done   chan struct{}

	mu          sync.Mutex // guards transitions
	transitions []string
}

// start runs a Reflector on a scripted ListerWatcher inside the test's bubble.
// Unless changed by a tweak, the expected type is *metav1.PartialObjectMetadata,
// rand returns 0 (no jitter, minimum watch timeouts), logs go to h.logs and
// errors handed to the WatchErrorHandler are recorded in h.errs.
func start(t *testing.T, opts reflector.Options, tweaks ...func(*setup)) *harness {
	t.Helper()
	su := setup{expected: &metav1.PartialObjectMetadata{}, rand: func() float64 { return 0 }}
	for _, f := range tweaks {
		f(&su)
	}
	h := &harness{lw: newScriptedLW(), store: &recordingStore{logf: t.Logf}, logs: &logBuffer{}, errs: make(chan error, 100), done: make(chan struct{})}
	if opts.Logger == nil {
		opts.Logger = h.logs.logger()
	}
	if opts.WatchErrorHandler == nil {
		opts.WatchErrorHandler = func(_ context.Context, _ *reflector.Reflector, err error) { h.errs <- err }
	}
	h.r = reflector.New(h.lw, su.expected, h.store, opts)
	reflector.SetRand(h.r, su.rand)
	reflector.Observe(h.r, func(from, to, cause string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.transitions = append(h.transitions, from+" -> "+to)
		t.Logf("          %s -> %s (%s)", from, to, cause)
	})
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	go func() {
		defer close(h.done)
		h.r.Run(ctx)
	}()
	t.Cleanup(h.stop)
	return h
}

// setup is what a tweak of start may change.
type setup struct {
	expected runtime.Object
	rand     func() float64
}

func withExpectedType(obj runtime.Object) func(*setup) {
	return func(s *setup) { s.expected = obj }
}

func withRand(f func() float64) func(*setup) {
	return func(s *setup) { s.rand = f }
}

// stop cancels Run and waits for it to return.
func (h *harness) stop() {
	h.cancel()
	<-h.done
}

// takeTransitions returns the transitions since the last call.
func (h *harness) takeTransitions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.transitions
	h.transitions = nil
	return out
}

// sync lists pods at rv for the first list and answers the first watch,
// returning it: the common opening of a test.
func (h *harness) sync(t *testing.T, rv string, pods ...*metav1.PartialObjectMetadata) *watch.RaceFreeFakeWatcher {
	t.Helper()
	h.lw.expectList(t, "0", 500).respondList(podList(rv, pods...))
	return h.lw.expectWatch(t, rv).respondWatch()
}

// settle waits until every goroutine of the bubble is blocked, then checks the
// Reflector's invariants.
func (h *harness) settle(t *testing.T) {
	t.Helper()
	waitBubble()
	require.NoError(t, h.r.CheckInvariants())
}

// waitBubble waits until every other goroutine of the bubble is blocked.
func waitBubble() { synctest.Wait() }

var podsGR = schema.GroupResource{Resource: "pods"}

// testLogger sends a Reflector's log lines to the test's log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}
