package demoengine

import (
	"slices"
	"sync"
)

// kindIndex remembers which deltas each object last popped, to tell a
// relist from a resync. (Which kind each key is, the Stream of package
// internal/pipelinetrace says in every event.)
type kindIndex struct {
	mu sync.Mutex // guards deltas
	// deltas are the delta types each "kind key" popped last.
	deltas map[string][]string
}

func newKindIndex() *kindIndex {
	return &kindIndex{deltas: map[string][]string{}}
}

// popped records the delta types kind's key popped (step 3).
func (k *kindIndex) popped(kind, key string, types []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.deltas[kind+" "+key] = types
}

// deleted forgets kind's key, which left the cache: no unchanged update of
// it will follow, and a page open for hours keeps a bounded index.
func (k *kindIndex) deleted(kind, key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.deltas, kind+" "+key)
}

// unchangedBy says what delivered an update of kind's key whose
// resourceVersion did not change: a relist (a Replaced delta: the Reflector
// listed again and found the object as it was) or a resync (a Sync delta:
// the informer replayed its own cache).
func (k *kindIndex) unchangedBy(kind, key string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if slices.Contains(k.deltas[kind+" "+key], "Replaced") {
		return "the relist found it unchanged"
	}
	return "a resync"
}
