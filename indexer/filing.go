package indexer

// This file holds the data structures behind threadSafeMap: where each object
// sits (a slot), which values of which index it is filed under (a filing),
// and the indexes themselves (a bucket per indexed value).
//
//	positions: "shop/web-1" -> 0        slots: [0] key "shop/web-1", obj, filed: {ns:"shop", app:"web"}
//	           "shop/db-1"  -> 1               [1] key "shop/db-1",  obj, filed: {ns:"shop", app:"db"}
//	indexes[ns]:  "shop" -> bucket{members: {0, 1}}
//	indexes[app]: "web"  -> bucket{members: {0}},  "db" -> bucket{members: {1}}
//
// Why slots and positions rather than one map from key to object: an index
// then records a small integer per object instead of its key string, and a
// filing points straight at its buckets, so a cached object costs far less
// memory (docs/performance.md counts the bytes) and moving an object between
// values never hashes a key.

// slot is one stored object. An empty slot (obj == nil) is on the free list,
// waiting for the next new key.
type slot struct {
	key   string
	obj   any
	filed filing
}

// index is one named index: each indexed value's bucket. A value whose last
// object leaves is deleted, never kept as an empty bucket (client-go's fix
// for a slow memory leak).
type index map[string]*bucket

// bucket is one value of one index and the positions of the slots filed
// under it.
type bucket struct {
	value   string
	members map[int32]struct{}
}

// file puts the slot at pos under value, creating the value's bucket if it
// is new, and returns the bucket.
func (idx index) file(pos int32, value string) *bucket {
	b, ok := idx[value]
	if !ok {
		b = &bucket{value: value, members: map[int32]struct{}{}}
		idx[value] = b
	}
	b.members[pos] = struct{}{}
	return b
}

// unfile takes the slot at pos out of b, deleting b once it is empty.
func (idx index) unfile(pos int32, b *bucket) {
	delete(b.members, pos)
	if len(b.members) == 0 {
		delete(idx, b.value)
	}
}

// filing records the buckets one object is filed in: for each index, in the
// store's order of index names, the buckets of the values its IndexFunc
// returned. Delete reads it to take the object out of every index without
// calling an IndexFunc.
//
// Most stores have one or two indexes, and most IndexFuncs return one value
// (a namespace, a label), so that shape is kept inline, in two pointers, and
// storing an object allocates nothing for its filing: inline[i] is index i's
// bucket, nil when index i returned no value. Any other shape (a third
// index, a second value) is spilled: spilled then holds every index's list
// and inline is unused.
type filing struct {
	inline  [2]*bucket
	spilled *[][]*bucket
}

// buckets returns index i's buckets. The slice may point into f: use it
// before f changes.
func (f *filing) buckets(i int) []*bucket {
	if f.spilled != nil {
		if i >= len(*f.spilled) {
			return nil
		}
		return (*f.spilled)[i]
	}
	if i >= len(f.inline) || f.inline[i] == nil {
		return nil
	}
	return f.inline[i : i+1]
}

// fitsInline reports whether values (one list per index) fit a filing's
// inline form.
func fitsInline(values [][]string) bool {
	if len(values) > len(filing{}.inline) {
		return false
	}
	for _, vs := range values {
		if len(vs) > 1 {
			return false
		}
	}
	return true
}

// sameValues reports whether buckets are exactly the buckets of values, in
// order.
func sameValues(buckets []*bucket, values []string) bool {
	if len(buckets) != len(values) {
		return false
	}
	for i, b := range buckets {
		if b.value != values[i] {
			return false
		}
	}
	return true
}

// chunkSize is how many slots a full chunk of a slotTable holds (about 28 KiB).
const chunkSize = 512

// slotTable holds the slots, numbered from 0, in chunks: the first grows as
// a slice does, every later one is allocated at its full chunkSize. A slot
// therefore never moves once made, a growing store never copies what it
// holds (a slice doubling would copy each slot about twice), and at most one
// chunk is partly empty, where a doubled slice can be almost half empty.
type slotTable struct {
	chunks [][]slot
	n      int // slots made: chunks hold slots 0 .. n-1
}

// at returns the slot numbered pos (< len()).
func (t *slotTable) at(pos int32) *slot {
	return &t.chunks[pos/chunkSize][pos%chunkSize]
}

// len returns how many slots have been made.
func (t *slotTable) len() int { return t.n }

// grow makes one more, empty, slot and returns its number.
func (t *slotTable) grow() int32 {
	last := len(t.chunks) - 1
	if last < 0 || len(t.chunks[last]) == chunkSize {
		var next []slot
		if last >= 0 {
			next = make([]slot, 0, chunkSize)
		}
		t.chunks = append(t.chunks, next)
		last++
	}
	t.chunks[last] = append(t.chunks[last], slot{})
	t.n++
	return int32(t.n - 1)
}
