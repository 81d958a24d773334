package pipelineweb

import (
	"slices"
	"sync"
)

// kindIndex remembers which kind each key was delivered as, to name the
// kind of the informers' trace records, which carry only the key.
type kindIndex struct {
	mu    sync.Mutex          // guards all below
	kinds map[string][]string // every kind each key was seen as
	last  map[string]string   // the latest
	lists []listSeen          // LISTs whose Replace has not been traced yet
}

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
