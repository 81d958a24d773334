package pipelinetrace

import (
	"slices"
	"strings"
	"sync"
)

// kindIndex remembers which informer's ListerWatcher delivered each key,
// to name the kind of the trace's records, which carry only the key.
type kindIndex struct {
	mu sync.Mutex // guards all below
	// kinds are the kinds each key was seen as; last, the latest.
	kinds map[string][]string
	last  map[string]string
	// lists are the LISTs whose Replace has not been traced yet, newest
	// last, at most maxLists.
	lists []listSeen
	// gone are the "kind key"s whose deletion reached the cache, oldest
	// first; goneAt holds each one's sequence number until the key is seen
	// again: see deleted.
	gone   []goneKey
	goneAt map[string]int
	seq    int
}

type listSeen struct {
	kind string
	keys []string
	rv   string
}

// goneKey is one deletion: the "kind key" and its sequence number.
type goneKey struct {
	id  string
	seq int
}

// maxLists bounds the LISTs waiting for their Replace; maxGoneKeys, the
// deleted keys remembered.
const (
	maxLists    = 16
	maxGoneKeys = 1024
)

func newKindIndex() *kindIndex {
	return &kindIndex{kinds: map[string][]string{}, last: map[string]string{}, goneAt: map[string]int{}}
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

// of returns key's kind: the only one it was seen as, or, when a Foo and a
// Deployment share a name, the latest; "" if it was never seen.
func (k *kindIndex) of(key string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ks := k.kinds[key]; len(ks) == 1 {
		return ks[0]
	}
	return k.last[key]
}

// listed records a LIST of kind at rv; its Replace follows.
func (k *kindIndex) listed(kind string, keys []string, rv string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lists = append(k.lists, listSeen{kind: kind, keys: keys, rv: rv})
	if len(k.lists) > maxLists {
		k.lists = k.lists[1:]
	}
}

// replaced returns and forgets the oldest LIST of n objects at rv.
func (k *kindIndex) replaced(n int, rv string) (listSeen, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, l := range k.lists {
		if len(l.keys) == n && l.rv == rv {
			k.lists = slices.Delete(k.lists, i, i+1)
			return l, true
		}
	}
	return listSeen{}, false
}

// deleted records that kind's key left the cache. Its kind is still needed
// by the records that follow (the handlers'), and by a watch event or
// relist still on its way, so it is forgotten only maxGoneKeys deletions
// later, unless it was seen again: a pipeline that runs for hours,
// creating and deleting objects, keeps a bounded index.
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
		delete(k.goneAt, g.id)
		okind, okey, _ := strings.Cut(g.id, " ")
		k.kinds[okey] = slices.DeleteFunc(k.kinds[okey], func(s string) bool { return s == okind })
		if len(k.kinds[okey]) == 0 {
			delete(k.kinds, okey)
			delete(k.last, okey)
		} else if k.last[okey] == okind {
			k.last[okey] = k.kinds[okey][len(k.kinds[okey])-1]
		}
	}
}
