package informersuite_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/informersuite"
	"github.com/informerlab/informerlab/reflector"
)

// handlerFuncs is a ResourceEventHandler of three functions.
type handlerFuncs struct {
	add    func(obj any, isInInitialList bool)
	update func(oldObj, newObj any)
	delete func(obj any)
}

func (f handlerFuncs) OnAdd(obj any, isInInitialList bool) { f.add(obj, isInInitialList) }
func (f handlerFuncs) OnUpdate(oldObj, newObj any)         { f.update(oldObj, newObj) }
func (f handlerFuncs) OnDelete(obj any)                    { f.delete(obj) }

// oneListener calls every handler from one registration, one after the
// other: a slow handler holds up the rest, and a late one misses the cache.
type oneListener struct {
	informersuite.Informer
	once     sync.Once
	mu       sync.Mutex
	handlers []informer.ResourceEventHandler
}

func (o *oneListener) AddEventHandler(h informer.ResourceEventHandler) error {
	o.mu.Lock()
	o.handlers = append(o.handlers, h)
	o.mu.Unlock()
	var err error
	o.once.Do(func() {
		err = o.Informer.AddEventHandler(handlerFuncs{
			add:    func(obj any, initial bool) { o.each(func(h informer.ResourceEventHandler) { h.OnAdd(obj, initial) }) },
			update: func(old, obj any) { o.each(func(h informer.ResourceEventHandler) { h.OnUpdate(old, obj) }) },
			delete: func(obj any) { o.each(func(h informer.ResourceEventHandler) { h.OnDelete(obj) }) },
		})
	})
	return err
}

func (o *oneListener) each(call func(informer.ResourceEventHandler)) {
	o.mu.Lock()
	hs := append([]informer.ResourceEventHandler(nil), o.handlers...)
	o.mu.Unlock()
	for _, h := range hs {
		call(h)
	}
}

// noTombstones drops the deletions a relist found.
type noTombstones struct{ informersuite.Informer }

func (n noTombstones) AddEventHandler(h informer.ResourceEventHandler) error {
	return n.Informer.AddEventHandler(handlerFuncs{
		add:    h.OnAdd,
		update: h.OnUpdate,
		delete: func(obj any) {
			if _, ok := obj.(deltafifo.DeletedFinalStateUnknown); !ok {
				h.OnDelete(obj)
			}
		},
	})
}

var mutants = map[string]informersuite.Impl{
	"one-listener": {New: func(lw reflector.ListerWatcher) informersuite.Informer {
		return &oneListener{Informer: informersuite.Reference.New(lw)}
	}},
	"no-tombstones": {New: func(lw reflector.ListerWatcher) informersuite.Informer {
		return noTombstones{informersuite.Reference.New(lw)}
	}},
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, informersuite.Behaviours(mutants[name]))
	}
}

func TestSuiteCatchesBrokenInformers(t *testing.T) {
	assert.Equal(t, []string{"SlowHandlerDoesNotHoldUpOthers", "LateHandlerGetsTheCacheFirst"},
		grade.FailedInChild(t, "TestHelperMutant", "one-listener"))
	assert.Equal(t, []string{"MissedDeleteArrivesAsATombstone"},
		grade.FailedInChild(t, "TestHelperMutant", "no-tombstones"))
}
