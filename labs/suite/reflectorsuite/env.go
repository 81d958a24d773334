package reflectorsuite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
	"github.com/informerlab/informerlab/reflector"
)

// env is one behaviour's world, inside a synctest bubble: a fakeapi
// server with ConfigMaps in namespace "ns", a ListerWatcher that records
// every call, a Store that records every write, and the Reflector under
// test running on its own goroutine.
type env struct {
	*world.World
	lw    *recordingLW
	store *recordingStore
	r     Reflector

	cancel context.CancelFunc
	done   <-chan struct{}
}

// start creates the objects, then starts the Reflector and lets the
// bubble settle (the initial list and watch happen).
func start(t *testing.T, impl Impl, prepare func(*env), objects ...string) *env {
	t.Helper()
	return startOn(t, world.New(t, objects...), impl, prepare)
}

// startOn is start in the world w.
func startOn(t *testing.T, w *world.World, impl Impl, prepare func(*env)) *env {
	t.Helper()
	e := &env{World: w, store: &recordingStore{objects: map[string]string{}}}
	e.lw = &recordingLW{inner: e.CMs}
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

// stop cancels Run and waits for it to return.
func (e *env) stop() {
	e.cancel()
	<-e.done
}

// recordingLW passes every call to fakeapi and records it as
// "list rv=X" or "watch rv=X". It hands out every watch wrapped, to see
// whether the Reflector stops it.
type recordingLW struct {
	inner reflector.ListerWatcher
	// endAtOnce makes every watch after the first end as soon as it
	// opens, with no event: a server or proxy that refuses watches.
	endAtOnce bool

	mu      sync.Mutex
	calls   []string
	at      []time.Time // when each call was made
	watches []*stopRecorder
	// unstopped lists, for each watch call made while an earlier watch
	// was still open (not stopped), the call.
	unstopped []string
}

// stopRecorder is a watch.Interface that notes whether Stop was called.
type stopRecorder struct {
	watch.Interface
	result  <-chan watch.Event
	stopped atomic.Bool
}

func (s *stopRecorder) Stop() {
	s.stopped.Store(true)
	s.Interface.Stop()
}

func (s *stopRecorder) ResultChan() <-chan watch.Event { return s.result }

// openWatches returns how many watches were handed out and not stopped.
func (l *recordingLW) openWatches() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, w := range l.watches {
		if !w.stopped.Load() {
			n++
		}
	}
	return n
}

// hotLoop is a number of calls no Reflector makes in one behaviour unless
// it retries without waiting.
const hotLoop = 500

// record notes the call. Past hotLoop calls it makes the caller wait a
// minute (or until ctx ends) before each further call: a Reflector that
// retries in a tight loop never blocks, so synctest.Wait would never
// return and the grader would hang; this way it blocks, and the
// behaviour fails on the number of calls instead.
func (l *recordingLW) record(ctx context.Context, verb string, opts metav1.ListOptions) error {
	l.mu.Lock()
	l.calls = append(l.calls, fmt.Sprintf("%s rv=%q", verb, opts.ResourceVersion))
	l.at = append(l.at, time.Now())
	n := len(l.calls)
	l.mu.Unlock()
	if n <= hotLoop {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return nil
	}
}

func (l *recordingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := l.record(ctx, "list", opts); err != nil {
		return nil, err
	}
	return l.inner.List(ctx, opts)
}

func (l *recordingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if open := l.openWatches(); open > 0 {
		l.mu.Lock()
		l.unstopped = append(l.unstopped, fmt.Sprintf("watch rv=%q with %d earlier watch(es) not stopped", opts.ResourceVersion, open))
		l.mu.Unlock()
	}
	if err := l.record(ctx, "watch", opts); err != nil {
		return nil, err
	}
	w, err := l.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	rec := &stopRecorder{Interface: w, result: w.ResultChan()}
	l.mu.Lock()
	endAtOnce := l.endAtOnce && len(l.watches) > 0
	l.watches = append(l.watches, rec)
	l.mu.Unlock()
	if endAtOnce {
		closed := make(chan watch.Event)
		close(closed)
		rec.result = closed
	}
	return rec, nil
}

// stopProblems returns the watches opened while an earlier one was still
// open, and how many are open now.
func (l *recordingLW) stopProblems() ([]string, int) {
	open := l.openWatches()
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.unstopped...), open
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

func (s *recordingStore) write(verb string, obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, rv := world.NameRV(obj)
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
		name, objRV := world.NameRV(obj)
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

// concurrentReads runs a Reflector outside any synctest bubble, on real
// goroutines and the real clock, and reads LastSyncResourceVersion from
// another goroutine while events arrive: a field written by Run and read
// without a lock or an atomic is a data race that -race reports. Inside a
// bubble it would go unseen, since the bubble's goroutines take turns.
func concurrentReads(t *testing.T, impl Impl) {
	const deadline = 3 * time.Second
	w := world.New(t, "a", "b")
	lw := &recordingLW{inner: w.CMs}
	r := impl.New(lw, &recordingStore{objects: map[string]string{}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := grade.Go(t, func() { r.Run(ctx) })

	stop := make(chan struct{})
	reader := grade.Go(t, func() {
		for {
			select {
			case <-stop:
				return
			default:
				r.LastSyncResourceVersion()
			}
		}
	})
	for i := range 20 {
		w.Create(t, fmt.Sprintf("n%d", i))
	}
	want := w.RV()
	caughtUp := false
	for end := time.Now().Add(deadline); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if r.LastSyncResourceVersion() == want {
			caughtUp = true
			break
		}
	}
	close(stop)
	<-reader
	cancel()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("Run did not return within %v of its context being cancelled", deadline)
	}
	assert.True(t, caughtUp, "LastSyncResourceVersion is %q after %v, the server is at %s", r.LastSyncResourceVersion(), deadline, want)
}
