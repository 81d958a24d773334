package reflectorsuite_test

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// refl is a Reflector as a learner writes it for labs/5-reflector from the
// README's hints: an outer loop of lists, an inner loop of watches, one
// backoff. With every switch off it passes the suite, which shows that the
// suite asks for nothing only informerlab's own Reflector does. Each
// switch is one mistake of the catalogue in mutants_test.go.
type refl struct {
	lw    reflector.ListerWatcher
	store reflector.Store
	m     mistakes

	mu sync.Mutex // guards rv
	rv string
	// racyRV is rv without the lock, for the unguarded mistake.
	racyRV string
}

// mistakes are the switches of refl.
type mistakes struct {
	watchFromEmpty       bool // every watch asks for resourceVersion ""
	relistAtOnce         bool // after a 410, list again at once, without a backoff
	relistAtZero         bool // every list asks for resourceVersion "0"
	everyErrorRelists    bool // a 429 relists like a 410
	noShortWatchBackoff  bool // a watch that ends cleanly is re-watched at once, however short it was
	unguardedRV          bool // the resourceVersion is a plain field, read by other goroutines without a lock
	neverStopWatch       bool // a watch is never stopped, only abandoned
	relistOnClose        bool // a watch the server closed cleanly makes the Reflector list again
	ignoreBookmarks      bool // BOOKMARK events are skipped
	rvFromListOnly       bool // only the list's resourceVersion is remembered, not the events'
	ignoreErrorEvents    bool // an ERROR event is skipped, the watch read on
	uncancellableBackoff bool // the backoff is a time.Sleep, deaf to ctx
	fixedBackoff         bool // every retry waits the same second
	resetOnList          bool // the backoff starts again from its first delay after every successful list
	backoffEveryClose    bool // every watch the server ends cleanly is followed by a backoff before the next
}

const initialDelay, maxDelay = 800 * time.Millisecond, 30 * time.Second

var errRelist = errors.New("relist")

func newRefl(lw reflector.ListerWatcher, store reflector.Store, m mistakes) *refl {
	return &refl{lw: lw, store: store, m: m}
}

func (r *refl) LastSyncResourceVersion() string {
	if r.m.unguardedRV {
		return r.racyRV
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rv
}

func (r *refl) setRV(rv string) {
	if r.m.unguardedRV {
		r.racyRV = rv
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rv = rv
}

// wait sleeps for *delay, then doubles it up to maxDelay. It reports
// false if ctx ended first.
func (r *refl) wait(ctx context.Context, delay *time.Duration) bool {
	d := *delay
	if !r.m.fixedBackoff {
		*delay = min(2**delay, maxDelay)
	} else {
		d = time.Second
	}
	if r.m.uncancellableBackoff {
		time.Sleep(d)
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *refl) Run(ctx context.Context) {
	delay := initialDelay
	listRV := "0"
	for ctx.Err() == nil {
		if err := r.list(ctx, listRV); err != nil {
			if !r.wait(ctx, &delay) {
				return
			}
			continue
		}
		if r.m.resetOnList {
			delay = initialDelay
		}
		err := r.watchLoop(ctx, &delay)
		if ctx.Err() != nil {
			return
		}
		if !r.m.relistAtZero {
			listRV = r.LastSyncResourceVersion()
		}
		if errors.Is(err, errRelist) && r.m.relistAtOnce {
			continue
		}
		if !r.wait(ctx, &delay) {
			return
		}
	}
}

func (r *refl) list(ctx context.Context, rv string) error {
	list, err := r.lw.List(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	objs := make([]any, len(items))
	for i, item := range items {
		objs[i] = item
	}
	if err := r.store.Replace(objs, acc.GetResourceVersion()); err != nil {
		return err
	}
	r.setRV(acc.GetResourceVersion())
	return nil
}

// watchLoop watches until it must relist (errRelist) or ctx ends.
func (r *refl) watchLoop(ctx context.Context, delay *time.Duration) error {
	for {
		rv := r.LastSyncResourceVersion()
		if r.m.watchFromEmpty {
			rv = ""
		}
		began := time.Now()
		w, err := r.lw.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err == nil {
			var events int
			events, err = r.consume(ctx, w)
			if events > 0 {
				*delay = initialDelay // the server works again
			}
			if !r.m.neverStopWatch {
				w.Stop()
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err == nil {
				if r.m.relistOnClose {
					return errRelist
				}
				if r.m.backoffEveryClose && (events > 0 || time.Since(began) >= time.Second) {
					if !r.wait(ctx, delay) {
						return ctx.Err()
					}
					continue
				}
				if events > 0 || time.Since(began) >= time.Second || r.m.noShortWatchBackoff {
					continue // a clean end: watch again at once
				}
				return errRelist // a very short watch: something refuses watches
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if apierrors.IsTooManyRequests(err) && !r.m.everyErrorRelists {
			if !r.wait(ctx, delay) {
				return ctx.Err()
			}
			continue
		}
		return errRelist
	}
}

// consume applies w's events until it ends (nil) or sends an error.
func (r *refl) consume(ctx context.Context, w watch.Interface) (int, error) {
	events := 0
	for {
		select {
		case <-ctx.Done():
			return events, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return events, nil
			}
			events++
			if ev.Type == watch.Error {
				if r.m.ignoreErrorEvents {
					continue
				}
				if status, ok := ev.Object.(*metav1.Status); ok {
					return events, apierrors.FromObject(status)
				}
				return events, apierrors.NewInternalError(errors.New("watch error"))
			}
			obj, err := meta.Accessor(ev.Object)
			if err != nil {
				return events, err
			}
			switch ev.Type {
			case watch.Added:
				err = r.store.Add(ev.Object)
			case watch.Modified:
				err = r.store.Update(ev.Object)
			case watch.Deleted:
				err = r.store.Delete(ev.Object)
			case watch.Bookmark:
				if r.m.ignoreBookmarks {
					continue
				}
			}
			if err != nil {
				return events, err
			}
			if !r.m.rvFromListOnly {
				r.setRV(obj.GetResourceVersion())
			}
		}
	}
}
