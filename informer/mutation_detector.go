package informer

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/informerlab/informerlab/deltafifo"
)

// MutationDetectorEnv is the environment variable that turns the cache
// mutation detector on for every informer built while it is set to a true
// value ("true", "1", ...), as in client-go. [WithCacheMutationDetector]
// turns it on for one informer, and takes precedence.
const MutationDetectorEnv = "KUBE_CACHE_MUTATION_DETECTOR"

// Detector timing, as in client-go: every object handed to the handlers is
// compared with its copy every second, for between two and four minutes
// after it was cached.
const (
	mutationCheckPeriod     = time.Second
	mutationRetainDuration  = 2 * time.Minute
	mutationDetectorWarning = "informer: the cache mutation detector is on: it keeps a deep copy of every object cached in the last minutes; use it in tests and CI, not in production"
)

// CacheMutation is what the cache mutation detector reports: a cached object,
// shared by the cache, every lister and every handler, was changed in place.
// Diff is a unified diff of the object as the informer cached it ("-" lines)
// and as it is now ("+" lines).
//
// client-go: tools/cache mutation_detector.go (the "CACHE ... ALTERED" message).
type CacheMutation struct {
	Key  string
	Diff string
}

func (m CacheMutation) String() string {
	return fmt.Sprintf("informer: cached object %s was mutated in place (DeepCopy before changing an object from a lister or a handler):\n%s", m.Key, m.Diff)
}

// WithCacheMutationDetector turns on the cache mutation detector: every
// object the informer hands to its handlers is deep-copied when it is
// cached, and the copies are compared with the cached objects every second
// (and once more when the informer stops) for two to four minutes.
// report is called once for each object found changed. A nil report does
// what client-go does: log the mutation and panic, ending the process, the
// strong failure a test or CI run wants.
//
// Mutating a cached object is a bug (docs/confusions.md, "Mutating a cached
// object"); this finds it, at the cost of a copy of every recent object.
//
// client-go: KUBE_CACHE_MUTATION_DETECTOR, tools/cache.NewCacheMutationDetector.
func WithCacheMutationDetector(report func(CacheMutation)) Option {
	return func(o *options) {
		o.mutationDetector = true
		o.mutationReport = report
	}
}

// mutationDetectorFromEnv reports whether MutationDetectorEnv asks for the
// detector.
func mutationDetectorFromEnv() bool {
	on, _ := strconv.ParseBool(os.Getenv(MutationDetectorEnv))
	return on
}

// cacheMutationDetector keeps a deep copy of every object handed to the
// handlers and reports objects that no longer equal their copy. A nil
// *cacheMutationDetector is off: its methods do nothing.
//
// Objects are kept in two generations: those added since the last rotation
// (current) and those of the generation before (previous). Every
// mutationRetainDuration the previous generation is dropped and current
// becomes previous, so each object is watched for two to four minutes and
// memory stays bounded by the rate of change.
type cacheMutationDetector struct {
	report func(CacheMutation)

	mu sync.Mutex // guards the fields below
	// Invariant: every tracked entry's copied was made when cached was
	// cached, and is owned by the detector alone.
	current, previous []trackedObject
	rotated           time.Time
}

// trackedObject is one cached object and its copy.
type trackedObject struct {
	key    string
	cached runtime.Object
	copied runtime.Object
}

func newCacheMutationDetector(report func(CacheMutation), logger *slog.Logger) *cacheMutationDetector {
	logger.Warn(mutationDetectorWarning)
	if report == nil {
		report = func(m CacheMutation) {
			logger.Error(m.String())
			panic(m.String())
		}
	}
	return &cacheMutationDetector{report: report}
}

// add starts watching obj, the object just cached. Tombstones and objects
// that cannot be deep-copied are not watched.
func (d *cacheMutationDetector) add(obj any) {
	if d == nil {
		return
	}
	if _, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		return
	}
	o, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		key = fmt.Sprintf("<%T without a key>", obj)
	}
	copied := o.DeepCopyObject()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.current = append(d.current, trackedObject{key: key, cached: o, copied: copied})
}

// run compares every mutationCheckPeriod until ctx is done, then once more.
func (d *cacheMutationDetector) run(ctx context.Context) {
	if d == nil {
		return
	}
	t := time.NewTicker(mutationCheckPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			d.check(time.Now())
			return
		case now := <-t.C:
			d.check(now)
		}
	}
}

// check rotates the generations when due, then reports every watched object
// that differs from its copy, once: a reported object is no longer watched.
func (d *cacheMutationDetector) check(now time.Time) {
	d.mu.Lock()
	if d.rotated.IsZero() {
		d.rotated = now
	} else if now.Sub(d.rotated) >= mutationRetainDuration {
		d.previous, d.current = d.current, nil
		d.rotated = now
	}
	var found []CacheMutation
	d.previous = d.unchangedLocked(d.previous, &found)
	d.current = d.unchangedLocked(d.current, &found)
	d.mu.Unlock()

	for _, m := range found {
		d.report(m)
	}
}

// unchangedLocked returns the entries of gen whose object still equals its
// copy, appending a CacheMutation to found for each of the others.
func (d *cacheMutationDetector) unchangedLocked(gen []trackedObject, found *[]CacheMutation) []trackedObject {
	kept := gen[:0]
	for _, t := range gen {
		if reflect.DeepEqual(t.cached, t.copied) {
			kept = append(kept, t)
			continue
		}
		*found = append(*found, CacheMutation{Key: t.key, Diff: diff.Diff(t.copied, t.cached)})
	}
	clear(gen[len(kept):])
	return kept
}
