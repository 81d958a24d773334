package demoengine

import (
	"slices"
	"strings"
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
	// gone are the "kind key"s whose deletion reached the cache, oldest
	// first, with the sequence number goneAt holds for each until the key
	// is seen again: see deleted.
	gone   []goneKey
	goneAt map[string]int
	seq    int
}

// goneKey is one deletion: the "kind key" and its sequence number.
type goneKey struct {
	id  string
	seq int
}

// maxGoneKeys is how many deleted keys a kindIndex remembers.
const maxGoneKeys = 1024

type listSeen struct {
	kind string
	n    int
	rv   string
}

func newKindIndex() *kindIndex {
	return &kindIndex{kinds: map[string][]string{}, last: map[string]string{}, deltas: map[string][]string{}, goneAt: map[string]int{}}
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
	delete(k.goneAt, kind+" "+key)
}

// deleted records that kind's key left the cache. Its kind is still needed
// by the trace lines that follow (the handlers'), and by a watch event or
// relist still on its way, so it is forgotten only maxGoneKeys deletions
// later, unless it was seen again: a page that runs for hours, creating
// and deleting objects, keeps a bounded index.
func (k *kindIndex) deleted(kind, key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.seq++
	id := kind + " " + key
	k.goneAt[id] = k.seq
	k.gone = append(k.gone, goneKey{id: id, seq: k.seq})
	for len(k.gone) > maxGoneKeys {
		g := k.gone[0]
		k.gone = k.gone[1:]
		if at, ok := k.goneAt[g.id]; !ok || at != g.seq {
			continue // seen again since, or deleted again later (that deletion is in gone too)
		}
		old := g.id
		delete(k.goneAt, old)
		delete(k.deltas, old)
		okind, okey, _ := strings.Cut(old, " ")
		k.kinds[okey] = slices.DeleteFunc(k.kinds[okey], func(s string) bool { return s == okind })
		if len(k.kinds[okey]) == 0 {
			delete(k.kinds, okey)
			delete(k.last, okey)
		} else if k.last[okey] == okind {
			k.last[okey] = k.kinds[okey][len(k.kinds[okey])-1]
		}
	}
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
