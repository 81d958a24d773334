package demoengine

import (
	"slices"
	"sync"
)

// kindIndex remembers which informer's ListerWatcher delivered each key,
// to name the kind in the informers' trace lines, and which deltas each
// object last popped, to tell a relist from a resync.
type kindIndex struct {
	mu sync.Mutex // guards all below
	// kinds are the kinds each key was seen as; last, the latest.
	kinds map[string][]string
	last  map[string]string
	// lists are the LISTs whose Replace has not been traced yet.
	lists []listSeen
	// deltas are the delta types each "kind key" popped last.
	deltas map[string][]string
}

type listSeen struct {
	kind string
	n    int
	rv   string
}

func newKindIndex() *kindIndex {
	return &kindIndex{kinds: map[string][]string{}, last: map[string]string{}, deltas: map[string][]string{}}
}

// popped records the delta types kind's key popped (step 3).
func (k *kindIndex) popped(kind, key string, types []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.deltas[kind+" "+key] = types
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

// saw records that kind's ListerWatcher delivered key.
func (k *kindIndex) saw(kind, key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !slices.Contains(k.kinds[key], kind) {
		k.kinds[key] = append(k.kinds[key], kind)
	}
	k.last[key] = kind
}

// listed records a LIST of n objects at rv; its Replace follows.
func (k *kindIndex) listed(kind string, n int, rv string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lists = append(k.lists, listSeen{kind: kind, n: n, rv: rv})
}

// replaced returns the kind of the oldest LIST of n objects at rv, and
// forgets it.
func (k *kindIndex) replaced(n int, rv string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, l := range k.lists {
		if l.n == n && l.rv == rv {
			k.lists = slices.Delete(k.lists, i, i+1)
			return l.kind
		}
	}
	return "?"
}

// of returns the kind of key: the only one it was seen as, or, when a Foo
// and a Deployment share a name, the latest.
func (k *kindIndex) of(key string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ks := k.kinds[key]; len(ks) == 1 {
		return ks[0]
	}
	if kind, ok := k.last[key]; ok {
		return kind
	}
	return "?"
}
