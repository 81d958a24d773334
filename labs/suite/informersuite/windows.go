package informersuite

import (
	"context"
	"regexp"
	"runtime"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// The races of an informer live where the process loop has popped a
// change and not yet written it to the cache: a handler registered then,
// or notified then, sees a cache the change has not reached. Left alone,
// the loop crosses that point in nanoseconds and a wrong informer passes
// nine runs in ten. So the suite holds the loop there on purpose.
//
// The only code of the suite's that the loop runs before it writes the
// cache is the object's own: the cache's key function asks a popped
// object for its namespace and name. A probe hands the informer, through
// its ListerWatcher, watch events whose objects are *probed: the same
// ConfigMap, whose GetNamespace calls the probe's hook when the process
// loop asks (its stack is inside a queue's Pop). The hook runs outside
// every lock of the cache's, so the other goroutines — handlers, a late
// AddEventHandler, readers of the cache — all run meanwhile; it yields the
// processor rather than block, so a synctest bubble's goroutines blocked
// on a mutex the loop holds do no harm.

// popFrame matches a queue's Pop (or PopBatch) in a goroutine's stack.
var popFrame = regexp.MustCompile(`\)\.Pop(Batch)?\(`)

// yieldSpins bounds how long a hook waits for the other side of a race:
// that many turns of runtime.Gosched, a few milliseconds of real time.
const yieldSpins = 20000

// yieldUntil gives the processor to the other goroutines until cond holds,
// at most spins times, and reports whether cond held.
func yieldUntil(cond func() bool, spins int) bool {
	for range spins {
		if cond() {
			return true
		}
		runtime.Gosched()
	}
	return cond()
}

// probe is what the objects of a probedLW call back into.
type probe struct {
	mu sync.Mutex // guards hook
	// hook, if set, is called with the object whenever the process loop
	// asks a watched object for its namespace.
	hook func(name, rv string)
}

// setHook sets (or, with nil, clears) the probe's hook.
func (p *probe) setHook(hook func(name, rv string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hook = hook
}

// keyed is called by a probed object asked for its namespace.
func (p *probe) keyed(u *unstructured.Unstructured) {
	p.mu.Lock()
	hook := p.hook
	p.mu.Unlock()
	if hook == nil || !inPop() {
		return
	}
	hook(u.GetName(), u.GetResourceVersion())
}

// inPop reports whether the calling goroutine is inside a queue's Pop:
// the process loop, handling what it popped.
func inPop() bool {
	buf := make([]byte, 16<<10)
	return popFrame.Match(buf[:runtime.Stack(buf, false)])
}

// probed is a watched ConfigMap that tells its probe when the process loop
// asks for its namespace, as the cache's key function does.
type probed struct {
	*unstructured.Unstructured
	probe *probe
}

func (o *probed) GetNamespace() string {
	o.probe.keyed(o.Unstructured)
	return o.Unstructured.GetNamespace()
}

// probedLW is a ListerWatcher whose watch events carry *probed objects.
// Lists are passed on as they are: the initial list is not probed.
type probedLW struct {
	reflector.ListerWatcher
	probe *probe
}

func (lw probedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := lw.ListerWatcher.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	pw := &probedWatch{inner: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go pw.forward(lw.probe)
	return pw, nil
}

// probedWatch forwards a watch's events, each object wrapped in a probed.
type probedWatch struct {
	inner    watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (w *probedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *probedWatch) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	w.inner.Stop()
}

func (w *probedWatch) forward(p *probe) {
	defer close(w.out)
	for {
		select {
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			if u, isU := ev.Object.(*unstructured.Unstructured); isU && ev.Type != watch.Bookmark {
				ev.Object = &probed{Unstructured: u, probe: p}
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}
