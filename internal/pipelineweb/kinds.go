package pipelineweb

import (
	"slices"
	"strings"
	"sync"
)

// kindIndex remembers which kind each key was delivered as, to name the
// kind of the informers' trace records, which carry only the key.
type kindIndex struct {
	mu    sync.Mutex          // guards all below
	kinds map[string][]string // every kind each key was seen as
	last  map[string]string   // the latest
	lists []listSeen          // LISTs whose Replace has not been traced yet
	// gone are the "kind key"s whose deletion reached the cache, oldest
	// first; goneAt holds each one's sequence number until it is seen
	// again: see deleted.
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
	keys []string
	rv   string
}

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
// by the events that follow (the handlers'), and by a watch event or
// relist still on its way, so it is forgotten only maxGoneKeys deletions
// later, unless it was seen again: a page open for hours, creating and
// deleting objects, keeps a bounded index.
func (k *kindIndex) deleted(kind, key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.goneAt == nil {
		k.goneAt = map[string]int{}
	}
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

// of returns key's kind: the only one it was seen as, else the latest.
func (k *kindIndex) of(key string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ks := k.kinds[key]; len(ks) == 1 {
		return ks[0]
	}
	return k.last[key]
}

func (k *kindIndex) listed(kind string, keys []string, rv string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lists = append(k.lists, listSeen{kind: kind, keys: keys, rv: rv})
	if len(k.lists) > 16 {
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
