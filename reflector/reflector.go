package reflector

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Reflector keeps a Store in step with one resource of an API server: it lists
// every object, then watches for changes, and recovers from every way a list
// or a watch can fail (see doc.go for the state machine).
//
// LastSyncResourceVersion, Name and TypeDescription are safe for concurrent
// use. Run and ListAndWatch drive the Reflector and must not run concurrently
// with each other or themselves.
//
// Invariants (checkInvariants):
//   - state is a known state, and every transition taken is in transitions;
//   - backoff.cfg.Initial <= backoff.step <= backoff.cfg.Cap;
//   - a resync goroutine runs only while watching or backing off to re-watch.
//
// client-go: tools/cache.Reflector.
type Reflector struct {
	name            string
	typeDescription string
	lw              ListerWatcher
	store           Store
	expectedType    reflect.Type             // nil: accept any type
	expectedGVK     *schema.GroupVersionKind // set for an Unstructured with apiVersion and kind
	opts            Options                  // with defaults applied
	logger          *slog.Logger
	rand            func() float64 // watch timeouts and backoff jitter; tests replace it

	// paginatedResult records that the first list, at resourceVersion "0",
	// came back in several pages: the server has no watch cache for this
	// resource, so every later list is paginated too. Only the goroutine
	// running ListAndWatch touches it.
	paginatedResult bool

	// metrics records lists, watches, relists, re-watches and the last
	// resourceVersion; nil when no MetricsProvider was given.
	metrics *reflectorMetrics
	// cycles counts ListAndWatch cycles; every one after the first is a
	// relist. Only the goroutine running ListAndWatch touches it.
	cycles int

	// listedShard is the shard and label selector of the last list: the
	// Store holds their objects, and watches carry them.
	// clientSideFilterLogged and labelFilterLogged record that the
	// client-side filtering has been logged. Only the goroutine running
	// ListAndWatch touches them.
	listedShard            shard
	clientSideFilterLogged bool
	labelFilterLogged      bool
	// relistAtOnce tells Run that ListAndWatch returned for a change of
	// shard selector: relist without a backoff delay. Only the goroutine
	// running Run and ListAndWatch touches it.
	relistAtOnce bool
	// widenFrom is set when a watch ended for a change of selector: the
	// selection the Store holds, which the next list may only widen
	// (widen.go). Only the goroutine running ListAndWatch touches it.
	widenFrom *shard
	// replay is set when a widening's list came back newer than the Store
	// was: the watch that follows replays events the list already brought
	// (widen.go). Only the goroutine running ListAndWatch touches it.
	replay *gainedReplay
	// shardChanged wakes the watch when SetShardSelector changes shard.
	shardChanged chan struct{}

	// observe, when set (by tests), is told about every transition.
	observe func(from, to state, cause string)

	mu sync.Mutex // guards the fields below
	// lastSyncResourceVersion is the resourceVersion of the last list, or of
	// the last watch event the Reflector recorded.
	lastSyncResourceVersion string
	// lastSyncResourceVersionUnavailable is set when a list or a streaming
	// list at lastSyncResourceVersion failed with 410 Expired or "too large
	// resource version"; the next list is then at "" (a consistent read).
	lastSyncResourceVersionUnavailable bool
	state                              state
	badTransition                      string // first transition not in transitions
	backoff                            *backoffTimer
	resyncRunning                      bool
	// shard is the shard selector to list and watch with (shard.go).
	shard shard
}

// New returns a Reflector that fills store from lw. expectedType is an example
// of the objects lw serves (a typed object such as &corev1.Pod{}, or an
// *unstructured.Unstructured with apiVersion and kind set); watch events
// carrying anything else are logged and skipped. A nil expectedType accepts
// every object.
//
// New starts no goroutine; Run does. It panics if lw or store is nil, which
// is a programming error.
//
// client-go: tools/cache.NewReflectorWithOptions.
func New(lw ListerWatcher, expectedType runtime.Object, store Store, opts Options) *Reflector {
	if lw == nil {
		panic("reflector: New called with a nil ListerWatcher")
	}
	if store == nil {
		panic("reflector: New called with a nil Store")
	}
	opts = opts.withDefaults()
	if opts.Name == "" {
		opts.Name = callSite()
	}
	r := &Reflector{
		name:  opts.Name,
		lw:    lw,
		store: store,
		opts:  opts,
		rand:  rand.Float64,

		shardChanged: make(chan struct{}, 1),
	}
	r.shard.expr = opts.ShardSelector
	r.shard.sel, r.shard.err = parseShard(opts.ShardSelector)
	r.shard.label = opts.LabelSelector
	r.shard.labelSel, r.shard.labelErr = parseLabel(opts.LabelSelector)
	r.expectedType, r.expectedGVK, r.typeDescription = describeType(expectedType)
	r.logger = opts.Logger.With(slog.String("reflector", r.name), slog.String("type", r.typeDescription))
	r.backoff = newBackoffTimer(opts.Backoff, func() float64 { return r.rand() })
	r.metrics = newReflectorMetrics(opts.MetricsProvider, r.name)
	return r
}

// callSite names a Reflector after the line that built it.
func callSite() string {
	_, file, line, ok := goruntime.Caller(2)
	if !ok {
		return "reflector"
	}
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

func describeType(expected runtime.Object) (reflect.Type, *schema.GroupVersionKind, string) {
	if expected == nil {
		return nil, nil, "<unspecified>"
	}
	t := reflect.TypeOf(expected)
	if u, ok := expected.(*unstructured.Unstructured); ok {
		gvk := u.GroupVersionKind()
		if gvk.Kind != "" {
			return t, &gvk, gvk.String()
		}
	}
	return t, nil, t.String()
}

// Name returns the name the Reflector logs under.
func (r *Reflector) Name() string { return r.name }

// TypeDescription describes the objects the Reflector expects.
func (r *Reflector) TypeDescription() string { return r.typeDescription }

// Run lists and watches until ctx is cancelled: it calls ListAndWatch, hands
// any error it returns to the WatchErrorHandler, waits for the backoff delay,
// and starts again (a relist). Run blocks; when it returns, every goroutine
// the Reflector started has exited and the last watch has been stopped.
//
// client-go: tools/cache.Reflector.RunWithContext.
func (r *Reflector) Run(ctx context.Context) {
	r.logger.Info("reflector: starting", "resyncPeriod", r.opts.ResyncPeriod)
	defer r.logger.Info("reflector: stopped")
	for {
		if err := r.ListAndWatch(ctx); err != nil {
			r.opts.WatchErrorHandler(ctx, r, err)
		}
		if ctx.Err() != nil {
			r.stopped()
			return
		}
		// State: backing off to relist (entered by ListAndWatch on its way out).
		// A change of selector is no failure: relist at once.
		delay := time.Duration(0)
		if !r.relistAtOnce {
			delay = r.nextDelay()
		}
		r.relistAtOnce = false
		r.logger.Debug("reflector: backing off before relisting", "delay", delay)
		if !sleep(ctx, delay) {
			r.stopped()
			return
		}
	}
}

// ListAndWatch runs one cycle of the state machine: it lists (or streams the
// initial list), replaces the Store's contents, then watches from the list's
// resourceVersion, re-opening the watch for as long as that needs no relist.
// It returns nil when a relist is needed or ctx is cancelled, and an error
// when the list failed or a watch could not be opened.
//
// client-go: tools/cache.Reflector.ListAndWatchWithContext.
func (r *Reflector) ListAndWatch(ctx context.Context) error {
	c := &cycle{internalErrors: retryWithDeadline{maxDuration: r.opts.MaxInternalErrorRetryDuration}}
	defer c.close(r)
	if ctx.Err() != nil {
		r.enter(stateStopped, "context cancelled")
		return nil
	}

	if r.cycles > 0 {
		r.metrics.relist()
	}
	r.cycles++
	st := stateListing
	if r.opts.UseWatchList {
		st = stateWatchListing
	}
	r.enter(st, "list and watch")
	for {
		var t transition
		switch st {
		case stateListing:
			t = r.list(ctx)
		case stateWatchListing:
			t = r.watchList(ctx, c)
		case stateWatching:
			c.startResync(ctx, r)
			t = r.watch(ctx, c)
		case stateRewatchBackoff:
			t = r.waitToRewatch(ctx, c.resume)
		default:
			panic(fmt.Sprintf("reflector: ListAndWatch in state %v", st))
		}
		r.enter(t.to, t.cause)
		switch t.to {
		case stateRelistBackoff:
			return t.err
		case stateStopped:
			return nil
		case stateRewatchBackoff:
			c.resume = t.resume
		}
		st = t.to
	}
}

// stopped enters stateStopped unless the Reflector is there already.
func (r *Reflector) stopped() {
	r.mu.Lock()
	already := r.state == stateStopped
	r.mu.Unlock()
	if !already {
		r.enter(stateStopped, "context cancelled")
	}
}

// nextDelay returns the next backoff delay.
func (r *Reflector) nextDelay() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.backoff.next(time.Now())
}

// sleep waits for d, or until ctx is cancelled; it reports whether the whole
// delay elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// watchTimeoutSeconds picks a watch's server-side timeout in
// [MinWatchTimeout, 2*MinWatchTimeout], so that reflectors started together
// spread their re-watches.
func (r *Reflector) watchTimeoutSeconds() int64 {
	s := int64(r.opts.MinWatchTimeout.Seconds() * (1 + r.rand()))
	return max(s, 1)
}

// LastSyncResourceVersion is the resourceVersion the Reflector last recorded:
// from the last list, or from the last watch event it applied. It is where the
// next watch starts. It says nothing about what the Store's consumers have
// processed.
//
// client-go: tools/cache.Reflector.LastSyncResourceVersion.
func (r *Reflector) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSyncResourceVersion
}

func (r *Reflector) setLastSyncResourceVersion(rv string) {
	r.mu.Lock()
	r.lastSyncResourceVersion = rv
	r.mu.Unlock()
	r.metrics.resourceVersion(rv)
}

func (r *Reflector) setResourceVersionUnavailable(unavailable bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastSyncResourceVersionUnavailable = unavailable
}

// relistResourceVersion is the resourceVersion of the next list: "0" for the
// first (any recent state will do, and the server can answer from its cache),
// the last seen resourceVersion afterwards (never older than what the
// Reflector has already seen: it must not go back in time), and "" (the
// newest state, a consistent read) once that resourceVersion is known to be
// unavailable.
func (r *Reflector) relistResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.lastSyncResourceVersionUnavailable:
		return ""
	case r.lastSyncResourceVersion == "":
		return "0"
	default:
		return r.lastSyncResourceVersion
	}
}

// rewatchResourceVersion is the resourceVersion a streaming list starts from.
func (r *Reflector) rewatchResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastSyncResourceVersionUnavailable {
		return ""
	}
	return r.lastSyncResourceVersion
}

// checkInvariants reports the first broken invariant of the struct comment.
// Tests call it when the Reflector's goroutine is blocked.
func (r *Reflector) checkInvariants() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state < 0 || r.state >= numStates {
		return fmt.Errorf("reflector: unknown state %v", r.state)
	}
	if r.badTransition != "" {
		return fmt.Errorf("reflector: took a transition that is not in the table: %s", r.badTransition)
	}
	if b := r.backoff; b.step < b.cfg.Initial || b.step > b.cfg.Cap {
		return fmt.Errorf("reflector: backoff step %v outside [%v, %v]", b.step, b.cfg.Initial, b.cfg.Cap)
	}
	if r.resyncRunning && r.state != stateWatching && r.state != stateRewatchBackoff {
		return fmt.Errorf("reflector: resync goroutine running in state %v", r.state)
	}
	return nil
}
