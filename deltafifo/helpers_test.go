package deltafifo_test

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
)

// obj returns a namespaced object "default/<name>" at resourceVersion rv.
func obj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv},
	}
}

// show renders one delta for assertions: "Added a@1",
// "Deleted tombstone default/b (b@1)", "Deleted tombstone default/b (nil)",
// "ReplacedAll @9 [a@9 c@9]", "SyncAll".
func show(d deltafifo.Delta) string {
	return string(d.Type) + " " + showObj(d.Object)
}

func showObj(o any) string {
	switch o := o.(type) {
	case nil:
		return "nil"
	case deltafifo.DeletedFinalStateUnknown:
		return "tombstone " + o.Key + " (" + showObj(o.Obj) + ")"
	case deltafifo.ReplacedAllInfo:
		objs := make([]string, len(o.Objects))
		for i, obj := range o.Objects {
			objs[i] = showObj(obj)
		}
		return "@" + o.ResourceVersion + " [" + strings.Join(objs, " ") + "]"
	case deltafifo.SyncAllInfo:
		return "(the whole store)"
	case *metav1.PartialObjectMetadata:
		s := o.Name + "@" + o.ResourceVersion
		if n := o.Annotations["transformed"]; n != "" {
			s += " t" + n
		}
		return s
	}
	return fmt.Sprintf("%T", o)
}

func showAll(ds []deltafifo.Delta) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = show(d)
	}
	return out
}

// knownStore is a map-based stand-in for the informer's Indexer: the
// KeyListerGetter a queue consults. apply plays the informer's part of
// writing popped deltas into it.
type knownStore struct {
	mu      sync.Mutex
	objs    map[string]any
	failGet map[string]error
}

func newKnownStore(objs ...*metav1.PartialObjectMetadata) *knownStore {
	s := &knownStore{objs: map[string]any{}, failGet: map[string]error{}}
	for _, o := range objs {
		s.objs[o.Namespace+"/"+o.Name] = o
	}
	return s
}

func (s *knownStore) ListKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.objs))
}

func (s *knownStore) GetByKey(key string) (any, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failGet[key]; err != nil {
		return nil, false, err
	}
	o, ok := s.objs[key]
	return o, ok, nil
}

func (s *knownStore) get(key string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.objs[key]
}

// apply does what the informer does with popped deltas (steps 4 and 5). A
// ReplacedAll replaces the whole contents; a SyncAll changes nothing.
func (s *knownStore) apply(ds []deltafifo.Delta) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range ds {
		switch info := d.Object.(type) {
		case deltafifo.ReplacedAllInfo:
			s.objs = map[string]any{}
			for _, o := range info.Objects {
				key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(o)
				if err != nil {
					panic(err)
				}
				s.objs[key] = o
			}
			continue
		case deltafifo.SyncAllInfo:
			continue
		}
		key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		if err != nil {
			panic(err)
		}
		if d.Type == deltafifo.Deleted {
			delete(s.objs, key)
		} else {
			s.objs[key] = d.Object
		}
	}
}

// checked fails the test on err or on a broken queue invariant: call it
// around every step.
func checked(t *testing.T, q deltafifo.Queue, err error) {
	t.Helper()
	require.NoError(t, err)
	require.NoError(t, deltafifo.CheckInvariants(q))
}

// popped is one Pop's result, rendered.
type popped struct {
	Deltas  []string
	Initial bool
}

func (p popped) String() string {
	return fmt.Sprintf("%v initial=%v", strings.Join(p.Deltas, ", "), p.Initial)
}

// popOne pops the head of a queue that must not be empty, applying the deltas
// to store if it is not nil.
func popOne(t *testing.T, q deltafifo.Queue, store *knownStore) popped {
	t.Helper()
	require.NotZero(t, deltafifo.QueueLen(q), "popOne on an empty queue would block")
	var got popped
	ds, err := q.Pop(func(ds deltafifo.Deltas, isInInitialList bool) error {
		got = popped{Deltas: showAll(ds), Initial: isInInitialList}
		if store != nil {
			store.apply(ds)
		}
		return nil
	})
	checked(t, q, err)
	require.Equal(t, got.Deltas, showAll(ds), "Pop must return what it processed")
	t.Logf("%s pop: %v", kindOf(q), got)
	return got
}

// kindOf names a queue's design for log lines.
func kindOf(q deltafifo.Queue) string {
	switch q := q.(type) {
	case *deltafifo.DeltaFIFO:
		return "DeltaFIFO"
	case *deltafifo.RealFIFO:
		if deltafifo.IsAtomic(q) {
			return "AtomicFIFO"
		}
		return "RealFIFO "
	}
	return fmt.Sprintf("%T", q)
}

// popAll pops until the queue is empty.
func popAll(t *testing.T, q deltafifo.Queue, store *knownStore) []popped {
	t.Helper()
	var out []popped
	for deltafifo.QueueLen(q) > 0 {
		out = append(out, popOne(t, q, store))
	}
	return out
}

type namedQueue struct {
	name string
	new  func(deltafifo.Options) deltafifo.Queue
}

// queues lets a test run against both per-object designs where they must
// agree.
var queues = []namedQueue{
	{"DeltaFIFO", func(o deltafifo.Options) deltafifo.Queue { return deltafifo.New(o) }},
	{"RealFIFO", func(o deltafifo.Options) deltafifo.Queue { return deltafifo.NewRealFIFO(o) }},
}

// everyQueue adds the atomic RealFIFO, for the rules all three share. The
// options must not set KnownObjects, which the atomic RealFIFO refuses.
var everyQueue = append(slices.Clone(queues),
	namedQueue{"AtomicFIFO", func(o deltafifo.Options) deltafifo.Queue { o.AtomicEvents = true; return deltafifo.NewRealFIFO(o) }})

// newAtomic returns an atomic RealFIFO.
func newAtomic() *deltafifo.RealFIFO {
	return deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true})
}

// popBatch runs one PopBatch, rendering what it handed out and to which
// function, and applies it to store if store is not nil.
func popBatch(t *testing.T, f *deltafifo.RealFIFO, store *knownStore) batchPopped {
	t.Helper()
	require.NotZero(t, deltafifo.QueueLen(f), "popBatch on an empty queue would block")
	var got batchPopped
	err := f.PopBatch(func(ds []deltafifo.Delta, initial bool) error {
		got = batchPopped{Batch: true, Deltas: showAll(ds), Initial: initial}
		if store != nil {
			store.apply(ds)
		}
		return nil
	}, func(ds deltafifo.Deltas, initial bool) error {
		got = batchPopped{Deltas: showAll(ds), Initial: initial}
		if store != nil {
			store.apply(ds)
		}
		return nil
	})
	checked(t, f, err)
	return got
}

// batchPopped is one PopBatch's result: whether processBatch (rather than
// processSingle) got it, and the deltas.
type batchPopped struct {
	Batch   bool
	Deltas  []string
	Initial bool
}

// popAllBatches runs PopBatch until the queue is empty.
func popAllBatches(t *testing.T, f *deltafifo.RealFIFO, store *knownStore) []batchPopped {
	t.Helper()
	var out []batchPopped
	for deltafifo.QueueLen(f) > 0 {
		out = append(out, popBatch(t, f, store))
	}
	return out
}

// discard is a logger for tests that provoke a logged error on purpose.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
