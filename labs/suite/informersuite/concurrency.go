package informersuite

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
)

// concurrentDeadline bounds, in real time, each wait of concurrentUse.
const concurrentDeadline = 3 * time.Second

// concurrentUse runs an informer outside any synctest bubble, on real
// goroutines and the real clock: objects are created while handlers are
// added to the running informer from other goroutines and HasSynced and
// the cache are read from yet another. Every handler must end up with the
// server's state, each object added exactly once, and -race must find
// nothing.
func concurrentUse(t *testing.T, impl Impl) {
	w := world.New(t, "a", "b", "c")
	inf := impl.New(w.CMs)
	early := &recorder{}
	require.NoError(t, inf.AddEventHandler(early))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := grade.Go(t, func() { inf.Run(ctx) })

	stop := make(chan struct{})
	reader := grade.Go(t, func() {
		for {
			select {
			case <-stop:
				return
			default:
				inf.HasSynced()
				inf.GetIndexer().List()
			}
		}
	})
	late := make([]*recorder, 3)
	var adders []<-chan struct{}
	for i := range late {
		late[i] = &recorder{}
		adders = append(adders, grade.Go(t, func() { assert.NoError(t, inf.AddEventHandler(late[i])) }))
	}
	for i := range 30 {
		w.Create(t, fmt.Sprintf("n%d", i))
	}
	for _, a := range adders {
		<-a
	}

	want := w.View(t)
	handlers := append([]*recorder{early}, late...)
	views := make([]map[string]string, len(handlers))
	var problems []string
	for end := time.Now().Add(concurrentDeadline); ; time.Sleep(time.Millisecond) {
		problems = nil
		caughtUp := true
		for i, h := range handlers {
			var p []string
			views[i], p = replay(h.snapshot())
			problems = append(problems, p...)
			caughtUp = caughtUp && fmt.Sprint(views[i]) == fmt.Sprint(want)
		}
		if caughtUp || len(problems) > 0 || time.Now().After(end) {
			break
		}
	}
	close(stop)
	<-reader
	cancel()
	select {
	case <-done:
	case <-time.After(concurrentDeadline):
		t.Fatalf("Run did not return within %v of its context being cancelled", concurrentDeadline)
	}
	assert.Empty(t, problems)
	for i, view := range views {
		assert.Equal(t, want, view, "handler %d (0 was added before Run) after %v", i, concurrentDeadline)
	}
}

// replay applies a handler's log to an empty view and reports the calls
// that make no sense: an add of an object the handler already has, an
// update or delete of one it does not.
func replay(log []string) (map[string]string, []string) {
	view := map[string]string{}
	var problems []string
	for _, line := range log {
		f := strings.Fields(line)
		switch f[0] {
		case "add":
			if _, ok := view[f[1]]; ok {
				problems = append(problems, "a second add of "+f[1]+": "+line)
			}
			view[f[1]] = f[2]
		case "update":
			if _, ok := view[f[1]]; !ok {
				problems = append(problems, "an update of "+f[1]+" before its add: "+line)
			}
			view[f[1]] = f[2][strings.Index(f[2], "->")+2:]
		case "delete":
			delete(view, f[1])
		}
	}
	return view, problems
}

// waitFor polls cond until it holds or concurrentDeadline passes, and
// reports whether it held.
func waitFor(cond func() bool) bool {
	for end := time.Now().Add(concurrentDeadline); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// slowHandler runs SlowHandlerDoesNotHoldUpOthers outside a synctest
// bubble: an informer that calls its handlers from the process loop, or
// through a channel that fills up, blocks its Reflector on the queue's
// lock, which a bubble cannot tell from work in progress; on the real
// clock it is simply late, and the behaviour fails after a deadline.
func slowHandler(t *testing.T, impl Impl) {
	// A watch buffer that holds every create: on a loaded machine the
	// Reflector may fall behind the tight loop below, and a server that cut
	// it off would make it relist, which is not what this behaviour is about.
	w := world.NewWith(t, fakeapi.Options{WatchBufferSize: 2 * slowHandlerBacklog}, "a", "b")
	inf := impl.New(w.CMs)
	slow := &recorder{hold: make(chan struct{})}
	fast := &recorder{}
	require.NoError(t, inf.AddEventHandler(slow))
	require.NoError(t, inf.AddEventHandler(fast))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := grade.Go(t, func() { inf.Run(ctx) })
	released := false
	release := func() {
		if !released {
			released = true
			close(slow.hold)
		}
	}
	defer func() {
		release()
		cancel()
		select {
		case <-done:
		case <-time.After(concurrentDeadline):
			t.Errorf("Run did not return within %v of its context being cancelled", concurrentDeadline)
		}
	}()
	require.True(t, waitFor(func() bool { return len(fast.snapshot()) == 2 }), "the fast handler got the initial list: %v", fast.snapshot())
	fast.take()

	// More than any fixed buffer a listener might have.
	const n = slowHandlerBacklog
	for i := range n {
		w.Create(t, "n"+strconv.Itoa(i))
	}
	want := w.View(t)
	gotAll := waitFor(func() bool { return len(fast.snapshot()) >= n })
	assert.True(t, gotAll, "the fast handler got %d of %d adds within %v while the slow one was stuck", len(fast.snapshot()), n, concurrentDeadline)
	if gotAll {
		assert.Equal(t, want, viewOf(inf), "the cache kept up")
	}

	release()
	require.True(t, waitFor(func() bool { return len(slow.snapshot()) >= n+2 }),
		"once released, the slow handler got %d of %d calls within %v", len(slow.snapshot()), n+2, concurrentDeadline)
	got := slow.take()
	require.Len(t, got, n+2, "2 initial adds and %d adds", n)
	var outOfOrder []string
	for i := range n {
		if want := "add n" + strconv.Itoa(i) + " "; !strings.HasPrefix(got[2+i], want) {
			outOfOrder = append(outOfOrder, fmt.Sprintf("call %d: %q, want %q...", 2+i, got[2+i], want))
		}
	}
	assert.Empty(t, outOfOrder, "the slow handler's calls out of order")
}

// viewOf is name → resourceVersion of an informer's cache.
func viewOf(inf Informer) map[string]string {
	view := map[string]string{}
	for _, obj := range inf.GetIndexer().List() {
		name, rv := world.NameRV(obj)
		view[name] = rv
	}
	return view
}
