package deltafifo_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
)

// The reference model. It works on rendered strings ("a@5 t1",
// "tombstone default/a (a@5 t1)") rather than objects, keeps the line as a
// plain slice searched linearly, and states each rule of DeltaFIFO once, in
// the most direct way. The fuzz test checks the real queue against it.

type modelDelta struct {
	typ   deltafifo.DeltaType
	obj   string // the object, or a tombstone's inner object ("nil" if none)
	tomb  bool
	tombK string
}

func (d modelDelta) String() string {
	if d.tomb {
		return string(d.typ) + " tombstone " + d.tombK + " (" + d.obj + ")"
	}
	return string(d.typ) + " " + d.obj
}

type modelEntry struct {
	key    string
	deltas []modelDelta
}

type model struct {
	line        []modelEntry      // keys waiting, in order
	known       map[string]string // the consumer's store: key -> object
	populated   bool
	initialLeft int
}

func (m *model) find(key string) int {
	for i, e := range m.line {
		if e.key == key {
			return i
		}
	}
	return -1
}

// add appends d to key's history, or puts key at the end of the line; two
// deletions in a row collapse into the one with more information.
func (m *model) add(key string, d modelDelta) {
	i := m.find(key)
	if i < 0 {
		m.line = append(m.line, modelEntry{key: key})
		i = len(m.line) - 1
	}
	ds := append(m.line[i].deltas, d)
	if n := len(ds); n >= 2 && ds[n-1].typ == deltafifo.Deleted && ds[n-2].typ == deltafifo.Deleted {
		if ds[n-2].tomb {
			ds[n-2] = ds[n-1]
		}
		ds = ds[:n-1]
	}
	m.line[i].deltas = ds
}

func (m *model) addOrUpdate(typ deltafifo.DeltaType, key, obj string) {
	m.populated = true
	m.add(key, modelDelta{typ: typ, obj: obj + " t1"})
}

func (m *model) delete(key string, d modelDelta) {
	m.populated = true
	_, known := m.known[key]
	if m.find(key) < 0 && !known {
		return
	}
	if !d.tomb {
		d.obj += " t1"
	}
	m.add(key, d)
}

func (m *model) replace(keys, objs []string) {
	listed := map[string]bool{}
	for i, key := range keys {
		listed[key] = true
		m.add(key, modelDelta{typ: deltafifo.Replaced, obj: objs[i] + " t1"})
	}
	for _, e := range slices.Clone(m.line) {
		if !listed[e.key] {
			last := e.deltas[len(e.deltas)-1]
			m.add(e.key, modelDelta{typ: deltafifo.Deleted, obj: last.obj, tomb: true, tombK: e.key})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(m.known)) {
		if !listed[key] && m.find(key) < 0 {
			m.add(key, modelDelta{typ: deltafifo.Deleted, obj: m.known[key], tomb: true, tombK: key})
		}
	}
	if !m.populated {
		m.populated = true
		m.initialLeft = len(m.line)
	}
}

func (m *model) resync() {
	for _, key := range slices.Sorted(maps.Keys(m.known)) {
		if m.find(key) < 0 {
			m.add(key, modelDelta{typ: deltafifo.Sync, obj: m.known[key]})
		}
	}
}

func (m *model) synced() bool { return m.populated && m.initialLeft == 0 }

// pop removes the head and, unless the consumer failed, applies it to known.
func (m *model) pop(consumerFails bool) (popped, string) {
	head := m.line[0]
	m.line = m.line[1:]
	out := popped{Initial: !m.synced()}
	for _, d := range head.deltas {
		out.Deltas = append(out.Deltas, d.String())
		if consumerFails {
			continue
		}
		if d.typ == deltafifo.Deleted {
			delete(m.known, head.key)
		} else {
			m.known[head.key] = d.obj
		}
	}
	if m.initialLeft > 0 {
		m.initialLeft--
	}
	return out, head.key
}

func (m *model) keys() []string {
	keys := []string{}
	for _, e := range m.line {
		keys = append(keys, e.key)
	}
	return keys
}

// fuzzObj is obj with a "poison" label the fuzz transformer refuses.
func fuzzObj(name string, rv int, poison bool) *metav1.PartialObjectMetadata {
	o := obj(name, strconv.Itoa(rv))
	if poison {
		o.Labels = map[string]string{"poison": "true"}
	}
	return o
}

var errPoison = errors.New("poisoned object")
var errConsumer = errors.New("consumer failed")

// FuzzDeltaFIFOModel decodes the input as (op, arg) byte pairs, applies each
// operation to a DeltaFIFO and to the reference model, and after every step
// checks the invariants, the queued keys, HasSynced and, for Pop, the exact
// deltas and isInInitialList. At the end it drains both and checks Close.
// Diagram: steps 2 and 3. client-go: DeltaFIFO
func FuzzDeltaFIFOModel(f *testing.F) {
	f.Add([]byte{4, 0x03, 1, 0, 0, 2, 2, 1, 2, 1, 6, 0, 6, 0, 6, 0})             // initial list, update, add, duplicate delete
	f.Add([]byte{0, 0, 0, 1, 4, 0x02, 6, 0, 6, 0})                               // queued add missing from a relist gets a tombstone
	f.Add([]byte{4, 0x0f, 6, 0, 6, 0, 6, 0, 6, 0, 1, 1, 5, 0, 6, 0, 6, 0, 6, 0}) // resync skips the queued key
	f.Add([]byte{4, 0x13, 2, 0, 4, 0x01, 3, 0x41, 6, 1, 6, 0, 2, 3, 3, 2, 6, 0}) // duplicates, recreate, tombstone deletes, failing consumer
	f.Add([]byte{0, 0x80, 4, 0x83, 4, 0x05, 6, 0, 1, 0x81, 2, 0x82, 5, 0, 7, 0}) // poisoned objects
	f.Add([]byte{4, 0x00, 0, 0, 3, 0x00, 3, 0x40, 4, 0x00, 6, 0, 5, 0, 7, 0})    // empty initial list, tombstones with and without object
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			data = data[:256]
		}
		names := []string{"a", "b", "c", "d"}
		store := newKnownStore()
		q := deltafifo.New(deltafifo.Options{KnownObjects: store, Transformer: func(o any) (any, error) {
			if o.(*metav1.PartialObjectMetadata).Labels["poison"] != "" {
				return nil, errPoison
			}
			return markTransformed(o), nil
		}})
		m := &model{known: map[string]string{}}
		rv := 0
		next := func() int { rv++; return rv }
		pop := func(step string, consumerFails bool) {
			want, key := m.pop(consumerFails)
			var got popped
			ds, err := q.Pop(func(ds deltafifo.Deltas, initial bool) error {
				got = popped{Deltas: showAll(ds), Initial: initial}
				if consumerFails {
					return errConsumer
				}
				store.apply(ds)
				return nil
			})
			if consumerFails {
				require.ErrorIs(t, err, errConsumer, step)
			} else {
				require.NoError(t, err, step)
			}
			require.Equal(t, want, got, "%s: popped %s", step, key)
			require.Equal(t, got.Deltas, showAll(ds), step)
		}

		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i]%8, data[i+1]
			name := names[int(arg)%len(names)]
			key := "default/" + name
			poison := arg&0x80 != 0
			var step string
			var err error
			switch op {
			case 0, 1:
				typ, call := deltafifo.Added, q.Add
				if op == 1 {
					typ, call = deltafifo.Updated, q.Update
				}
				o := fuzzObj(name, next(), poison)
				step = fmt.Sprintf("%s %s", typ, showObj(o))
				err = call(o)
				if !poison {
					m.addOrUpdate(typ, key, showObj(o))
				}
				requireErrorIf(t, poison, err, errPoison, step)
			case 2:
				o := fuzzObj(name, next(), poison)
				step = "Delete " + showObj(o)
				_, known := m.known[key]
				ignored := m.find(key) < 0 && !known
				err = q.Delete(o)
				if !poison || ignored {
					m.delete(key, modelDelta{typ: deltafifo.Deleted, obj: showObj(o)})
				}
				requireErrorIf(t, poison && !ignored, err, errPoison, step)
			case 3:
				tomb := deltafifo.DeletedFinalStateUnknown{Key: key}
				if arg&0x40 == 0 {
					tomb.Obj = fuzzObj(name, next(), false)
				}
				step = "Delete " + showObj(tomb)
				err = q.Delete(tomb)
				m.delete(key, modelDelta{typ: deltafifo.Deleted, obj: showObj(tomb.Obj), tomb: true, tombK: key})
				require.NoError(t, err, step)
			case 4:
				var list []any
				var keys, objs []string
				for b, n := range names {
					if arg&(1<<b) != 0 {
						list = append(list, fuzzObj(n, next(), false))
					}
				}
				if arg&0x10 != 0 && len(list) > 0 {
					first := list[0].(*metav1.PartialObjectMetadata)
					list = append(list, fuzzObj(first.Name, next(), false))
				}
				if poison && len(list) > 0 {
					list[len(list)-1].(*metav1.PartialObjectMetadata).Labels = map[string]string{"poison": "true"}
				}
				for _, o := range list {
					keys = append(keys, "default/"+o.(*metav1.PartialObjectMetadata).Name)
					objs = append(objs, showObj(o))
				}
				step = fmt.Sprintf("Replace %v", objs)
				err = q.Replace(list, strconv.Itoa(rv))
				bad := poison && len(list) > 0
				if !bad {
					m.replace(keys, objs)
				}
				requireErrorIf(t, bad, err, errPoison, step)
			case 5:
				step = "Resync"
				m.resync()
				require.NoError(t, q.Resync(), step)
			case 6, 7:
				step = "Pop"
				if len(m.line) == 0 {
					require.Empty(t, q.ListKeys(), step)
					continue
				}
				pop(step, arg&1 != 0 && op == 6)
			}
			require.NoError(t, deltafifo.CheckInvariants(q), "after %s", step)
			require.Equal(t, m.keys(), append([]string{}, q.ListKeys()...), "keys after %s", step)
			require.Equal(t, m.synced(), q.HasSynced(), "HasSynced after %s", step)
		}

		for len(m.line) > 0 {
			pop("drain", false)
			require.NoError(t, deltafifo.CheckInvariants(q))
		}
		require.Equal(t, m.synced(), q.HasSynced())
		t.Logf("%d operations: after each, the queue's keys, every Pop and HasSynced matched the model", len(data)/2)
		q.Close()
		_, err := q.Pop(func(deltafifo.Deltas, bool) error { return nil })
		require.ErrorIs(t, err, deltafifo.ErrFIFOClosed)
	})
}

// requireErrorIf requires err to wrap target when want, and nil otherwise.
func requireErrorIf(t *testing.T, want bool, err, target error, step string) {
	t.Helper()
	if want {
		require.ErrorIs(t, err, target, step)
	} else {
		require.NoError(t, err, step)
	}
}
