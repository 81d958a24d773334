package informer

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestCacheMutationDetectorPanicsByDefault: without a report function the
// detector does what client-go's does, the strong failure a CI run wants:
// it logs the mutation and panics. Tombstones are never watched.
//
// Diagram: steps 5-6. client-go: defaultCacheMutationDetector.CompareObjects
func TestCacheMutationDetectorPanicsByDefault(t *testing.T) {
	d := newCacheMutationDetector(nil, slog.New(slog.DiscardHandler))
	obj := cm("a", "1")
	d.add(obj)
	d.add(deltafifo.DeletedFinalStateUnknown{Key: "ns/gone", Obj: cm("gone", "1")})
	d.check(time.Now())

	obj.SetLabels(map[string]string{"touched": "by-mistake"})

	assert.PanicsWithValue(t, "informer: cached object ns/a was mutated in place (DeepCopy before changing an object from a lister or a handler):\n"+
		diffOf(t, d), func() { d.check(time.Now()) })
}

// diffOf is the diff the detector will report for its one watched object.
func diffOf(t *testing.T, d *cacheMutationDetector) string {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	var found []CacheMutation
	kept := append([]trackedObject(nil), d.current...)
	d.unchangedLocked(kept, &found)
	if len(found) != 1 {
		t.Fatalf("want one mutation, found %d", len(found))
	}
	return found[0].Diff
}
