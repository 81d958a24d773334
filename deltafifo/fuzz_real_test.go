package deltafifo_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
)

// The reference model of RealFIFO, in both modes, with Pop and PopBatch. Like
// the DeltaFIFO model it works on rendered strings and states each rule once,
// in the most direct way: the line is a plain slice of rendered deltas.

// realItem is one queued delta: its key ("" for ReplacedAll and SyncAll) and
// its rendering ("Added a@1 t1", "ReplacedAll @5 [a@5 t1]", ...).
type realItem struct {
	key, shown string
	typ        deltafifo.DeltaType
	obj        string   // the object, or a tombstone's inner object
	listed     []string // ReplacedAll: the listed objects
	listedKeys []string
}

type realModel struct {
	atomic      bool
	batchSize   int
	line        []realItem
	known       map[string]string // the consumer's store: key -> object
	populated   bool
	initialLeft int
}

func (m *realModel) push(it realItem) { m.line = append(m.line, it) }

func (m *realModel) perObject(typ deltafifo.DeltaType, key, obj string) {
	m.populated = true
	m.push(realItem{key: key, typ: typ, obj: obj, shown: string(typ) + " " + obj})
}

func (m *realModel) tombstone(key, obj string) realItem {
	return realItem{key: key, typ: deltafifo.Deleted, obj: obj,
		shown: "Deleted tombstone " + key + " (" + obj + ")"}
}

func (m *realModel) replace(rv string, keys, objs []string) {
	if m.atomic {
		m.push(realItem{typ: deltafifo.ReplacedAll, listed: objs, listedKeys: keys,
			shown: "ReplacedAll @" + rv + " [" + strings.Join(objs, " ") + "]"})
	} else {
		listed := map[string]bool{}
		for _, k := range keys {
			listed[k] = true
		}
		last := map[string]realItem{}
		var order []string
		for _, it := range m.line {
			if it.key == "" {
				continue
			}
			if _, seen := last[it.key]; !seen {
				order = append(order, it.key)
			}
			last[it.key] = it
		}
		for _, k := range order {
			if !listed[k] && last[k].typ != deltafifo.Deleted {
				m.push(m.tombstone(k, last[k].obj))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(m.known)) {
			if _, queued := last[k]; !listed[k] && !queued {
				m.push(m.tombstone(k, m.known[k]))
			}
		}
		for i, k := range keys {
			m.push(realItem{key: k, typ: deltafifo.Replaced, obj: objs[i], shown: "Replaced " + objs[i]})
		}
	}
	if !m.populated {
		m.populated = true
		m.initialLeft = len(m.line)
	}
}

func (m *realModel) resync() {
	if m.atomic {
		m.push(realItem{typ: deltafifo.SyncAll, shown: "SyncAll (the whole store)"})
		return
	}
	queued := map[string]bool{}
	for _, it := range m.line {
		queued[it.key] = true
	}
	for _, k := range slices.Sorted(maps.Keys(m.known)) {
		if !queued[k] {
			m.push(realItem{key: k, typ: deltafifo.Sync, obj: m.known[k], shown: "Sync " + m.known[k]})
		}
	}
}

func (m *realModel) synced() bool { return m.populated && m.initialLeft == 0 }

// take removes the next n deltas and, unless the consumer fails, applies them
// to known; it returns them rendered, with isInInitialList.
func (m *realModel) take(n int, consumerFails bool) ([]string, bool) {
	initial := !m.synced()
	var shown []string
	for _, it := range m.line[:n] {
		shown = append(shown, it.shown)
		if consumerFails {
			continue
		}
		switch it.typ {
		case deltafifo.ReplacedAll:
			m.known = map[string]string{}
			for i, k := range it.listedKeys {
				m.known[k] = it.listed[i]
			}
		case deltafifo.SyncAll:
		case deltafifo.Deleted:
			delete(m.known, it.key)
		default:
			m.known[it.key] = it.obj
		}
	}
	m.line = m.line[n:]
	if m.initialLeft > 0 {
		m.initialLeft -= n
	}
	return shown, initial
}

// batchLen states PopBatch's rule: the longest run at the head of deltas for
// distinct objects, at most batchSize, within the initial list if one is
// pending; a ReplacedAll or SyncAll alone.
func (m *realModel) batchLen() int {
	isWhole := func(it realItem) bool { return it.key == "" }
	if isWhole(m.line[0]) {
		return 1
	}
	limit := min(len(m.line), m.batchSize)
	if m.initialLeft > 0 {
		limit = min(limit, m.initialLeft)
	}
	seen := map[string]bool{}
	n := 0
	for n < limit && !isWhole(m.line[n]) && !seen[m.line[n].key] {
		seen[m.line[n].key] = true
		n++
	}
	return n
}

func (m *realModel) keys() []string {
	keys := []string{}
	seen := map[string]bool{}
	for _, it := range m.line {
		if it.key != "" && !seen[it.key] {
			seen[it.key] = true
			keys = append(keys, it.key)
		}
	}
	return keys
}

// FuzzRealFIFOModel decodes the input as a mode byte (bit 0: atomic) and
// then (op, arg) byte pairs; it applies each operation to a RealFIFO (batch
// size 3, so batches end at the size limit too) and to the reference model,
// and after every step checks the invariants, the queued keys, the queue
// length, HasSynced and, for Pop and PopBatch, the exact deltas, which
// function got them and isInInitialList. At the end it drains both and
// checks Close.
// Diagram: steps 2 and 3. client-go: RealFIFO (InOrderInformers, AtomicFIFO, InOrderInformersBatchProcess)
func FuzzRealFIFOModel(f *testing.F) {
	f.Add([]byte{1, 4, 0x03, 1, 0, 0, 2, 2, 1, 2, 1, 6, 0, 7, 0, 7, 0})             // atomic: list, watch events, pops and batches
	f.Add([]byte{0, 4, 0x03, 1, 0, 0, 2, 2, 1, 2, 1, 6, 0, 7, 0, 7, 0})             // the same, non-atomic
	f.Add([]byte{1, 0, 0, 1, 1, 0, 2, 0, 3, 5, 0, 4, 0x05, 5, 0, 7, 0, 7, 0, 7, 0}) // atomic resync and relist between events
	f.Add([]byte{0, 4, 0x0f, 7, 0, 5, 0, 0, 0, 4, 0x02, 7, 1, 7, 0, 7, 0, 7, 0})    // tombstones, failing batch consumer
	f.Add([]byte{1, 4, 0x93, 4, 0x00, 0, 0x80, 7, 0, 6, 1, 7, 0})                   // poisoned lists and objects, empty atomic list
	f.Add([]byte{0, 4, 0x1f, 0, 0, 1, 1, 7, 0, 7, 0, 7, 0, 7, 0})                   // initial list longer than a batch, with a duplicate
	f.Fuzz(runRealFIFOModel)
}

// runRealFIFOModel is one FuzzRealFIFOModel run.
func runRealFIFOModel(t *testing.T, data []byte) {
	{
		if len(data) == 0 {
			return
		}
		if len(data) > 257 {
			data = data[:257]
		}
		atomic := data[0]&1 != 0
		data = data[1:]
		names := []string{"a", "b", "c", "d"}
		store := newKnownStore()
		opts := deltafifo.Options{Transformer: func(o any) (any, error) {
			if o.(*metav1.PartialObjectMetadata).Labels["poison"] != "" {
				return nil, errPoison
			}
			return markTransformed(o), nil
		}}
		if atomic {
			opts.AtomicEvents = true
		} else {
			opts.KnownObjects = store
		}
		q := deltafifo.NewRealFIFO(opts)
		deltafifo.SetBatchSize(q, 3)
		m := &realModel{atomic: atomic, batchSize: 3, known: map[string]string{}}
		rv := 0
		next := func() int { rv++; return rv }

		pop := func(step string, batch, consumerFails bool) {
			n := 1
			if batch {
				n = m.batchLen()
			}
			want, wantInitial := m.take(n, consumerFails)
			var got []string
			var gotInitial, gotBatch bool
			consume := func(ds []deltafifo.Delta, initial bool) error {
				got, gotInitial = showAll(ds), initial
				if consumerFails {
					return errConsumer
				}
				store.apply(ds)
				return nil
			}
			var err error
			if batch {
				err = q.PopBatch(func(ds []deltafifo.Delta, initial bool) error {
					gotBatch = true
					return consume(ds, initial)
				}, func(ds deltafifo.Deltas, initial bool) error { return consume(ds, initial) })
			} else {
				_, err = q.Pop(func(ds deltafifo.Deltas, initial bool) error { return consume(ds, initial) })
			}
			requireErrorIf(t, consumerFails, err, errConsumer, step)
			require.Equal(t, want, got, step)
			require.Equal(t, wantInitial, gotInitial, "%s: isInInitialList", step)
			require.Equal(t, batch && n > 1, gotBatch, "%s: processBatch gets runs of two or more", step)
		}

		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i]%8, data[i+1]
			name := names[int(arg)%len(names)]
			key := "default/" + name
			poison := arg&0x80 != 0
			var step string
			switch op {
			case 0, 1, 2:
				typ, call := deltafifo.Added, q.Add
				switch op {
				case 1:
					typ, call = deltafifo.Updated, q.Update
				case 2:
					typ, call = deltafifo.Deleted, q.Delete
				}
				o := fuzzObj(name, next(), poison)
				step = fmt.Sprintf("%s %s", typ, showObj(o))
				err := call(o)
				if !poison {
					m.perObject(typ, key, showObj(o)+" t1")
				}
				requireErrorIf(t, poison, err, errPoison, step)
			case 3:
				tomb := deltafifo.DeletedFinalStateUnknown{Key: key}
				if arg&0x40 == 0 {
					tomb.Obj = fuzzObj(name, next(), false)
				}
				step = "Delete " + showObj(tomb)
				require.NoError(t, q.Delete(tomb), step)
				m.populated = true
				m.push(m.tombstone(key, showObj(tomb.Obj)))
			case 4:
				var list []any
				for b, n := range names {
					if arg&(1<<b) != 0 {
						list = append(list, fuzzObj(n, next(), false))
					}
				}
				if arg&0x10 != 0 && len(list) > 0 {
					first := list[0].(*metav1.PartialObjectMetadata)
					list = append(list, fuzzObj(first.Name, next(), false))
				}
				bad := poison && len(list) > 0
				if bad {
					list[len(list)-1].(*metav1.PartialObjectMetadata).Labels = map[string]string{"poison": "true"}
				}
				var keys, objs []string
				for _, o := range list {
					keys = append(keys, "default/"+o.(*metav1.PartialObjectMetadata).Name)
					objs = append(objs, showObj(o)+" t1")
				}
				step = fmt.Sprintf("Replace %v", objs)
				err := q.Replace(list, strconv.Itoa(rv))
				if !bad {
					m.replace(strconv.Itoa(rv), keys, objs)
				}
				requireErrorIf(t, bad, err, errPoison, step)
			case 5:
				step = "Resync"
				m.resync()
				require.NoError(t, q.Resync(), step)
			case 6, 7:
				step = "Pop"
				if op == 7 {
					step = "PopBatch"
				}
				if len(m.line) == 0 {
					require.Zero(t, deltafifo.QueueLen(q), step)
					continue
				}
				pop(step, op == 7, arg&1 != 0)
			}
			require.NoError(t, deltafifo.CheckInvariants(q), "after %s", step)
			require.Equal(t, m.keys(), append([]string{}, q.ListKeys()...), "keys after %s", step)
			require.Equal(t, len(m.line), deltafifo.QueueLen(q), "length after %s", step)
			require.Equal(t, m.synced(), q.HasSynced(), "HasSynced after %s", step)
		}

		for len(m.line) > 0 {
			pop("drain", true, false)
			require.NoError(t, deltafifo.CheckInvariants(q))
		}
		require.Equal(t, m.synced(), q.HasSynced())
		q.Close()
		require.ErrorIs(t, q.PopBatch(func([]deltafifo.Delta, bool) error { return nil },
			func(deltafifo.Deltas, bool) error { return nil }), deltafifo.ErrFIFOClosed)
	}
}
