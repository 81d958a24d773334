package informersuite_test

import (
	"context"
	"errors"
	"sync"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// inf is an informer as a learner writes it for labs/6-informer from the
// README's hints: informerlab's Reflector, DeltaFIFO and Indexer, a
// process loop, and a listener of two goroutines per handler. With every
// switch off it passes the suite, which shows that the suite asks for
// nothing only informerlab's own informer does. Each switch is one
// mistake of the catalogue in mutants_test.go.
type inf struct {
	m    mistakes
	idx  indexer.Indexer
	fifo *deltafifo.DeltaFIFO
	refl *reflector.Reflector

	wg sync.WaitGroup // the listeners' goroutines

	racySynced bool // for the unguardedSynced mistake: written by Run, read by HasSynced

	mu        sync.Mutex // guards listeners and ctx; held while the loop writes the cache and notifies
	listeners []*listener
	ctx       context.Context // Run's, once it has started
}

// mistakes are the switches of inf.
type mistakes struct {
	lateNoReplay        bool // a handler added to a running informer gets no cached objects
	replayToAll         bool // the cache replay for a late handler goes to every handler
	callHandlersInline  bool // the process loop calls every handler itself: no listeners
	fixedBuffer         bool // a listener is one goroutine reading a channel of 100
	goPerNotification   bool // a listener calls its handler on a new goroutine for each notification
	oldIsNew            bool // OnUpdate's old object is read from the cache after it was updated
	relistAsAdd         bool // a Replaced delta is always OnAdd, cached or not
	initialAlwaysFalse  bool // OnAdd's isInInitialList is always false
	initialAlwaysTrue   bool // OnAdd's isInInitialList is always true
	unwrapTombstone     bool // OnDelete gets the object inside a tombstone, not the tombstone
	notifyBeforeCache   bool // handlers are notified, then the cache is written
	fifoNeverClosed     bool // Run does not close the queue when its context ends: the loop waits in Pop forever
	syncedWhenRunning   bool // HasSynced is true as soon as Run has started
	listenersIgnoreStop bool // the listeners' goroutines never end
	unguardedSynced     bool // the loop copies the queue's HasSynced into a plain field after each Pop, which HasSynced reads without a lock
	snapshotUnlocked    bool // a late handler's replay is listed from the cache before the lock the loop holds is taken
	applyAfterPop       bool // the loop takes the deltas out of Pop and applies them after Pop returned, outside the queue's lock
}

func newInf(lw reflector.ListerWatcher, m mistakes) *inf {
	idx := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexer.Indexers{})
	fifo := deltafifo.New(deltafifo.Options{KeyFunction: deltafifo.DeletionHandlingMetaNamespaceKeyFunc, KnownObjects: idx})
	return &inf{m: m, idx: idx, fifo: fifo, refl: reflector.New(lw, nil, fifo, reflector.Options{Logger: quiet})}
}

func (i *inf) GetIndexer() indexer.Indexer { return i.idx }

func (i *inf) HasSynced() bool {
	if i.m.unguardedSynced {
		return i.racySynced
	}
	if i.m.syncedWhenRunning {
		i.mu.Lock()
		defer i.mu.Unlock()
		return i.ctx != nil
	}
	return i.fifo.HasSynced()
}

func (i *inf) AddEventHandler(h informer.ResourceEventHandler) error {
	if i.m.snapshotUnlocked {
		return i.addWithEarlySnapshot(h)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	l := i.newListener(h)
	i.listeners = append(i.listeners, l)
	if i.ctx == nil {
		return nil
	}
	i.startLocked(l)
	if !i.m.lateNoReplay {
		for _, obj := range i.idx.List() {
			n := func(h informer.ResourceEventHandler) { h.OnAdd(obj, true) }
			if i.m.replayToAll {
				i.notifyLocked(n)
			} else {
				l.send(i.ctx, n)
			}
		}
	}
	return nil
}

// addWithEarlySnapshot is AddEventHandler with the snapshotUnlocked
// mistake: the cache is listed first, and the lock taken after, so a
// change the loop writes in between reaches neither the replay nor the
// new listener.
func (i *inf) addWithEarlySnapshot(h informer.ResourceEventHandler) error {
	snapshot := i.idx.List()
	i.mu.Lock()
	defer i.mu.Unlock()
	l := i.newListener(h)
	i.listeners = append(i.listeners, l)
	if i.ctx == nil {
		return nil
	}
	i.startLocked(l)
	for _, obj := range snapshot {
		l.send(i.ctx, func(h informer.ResourceEventHandler) { h.OnAdd(obj, true) })
	}
	return nil
}

func (i *inf) Run(ctx context.Context) {
	i.mu.Lock()
	i.ctx = ctx
	for _, l := range i.listeners {
		i.startLocked(l)
	}
	i.mu.Unlock()

	reflectorDone := make(chan struct{})
	go func() {
		defer close(reflectorDone)
		i.refl.Run(ctx)
	}()
	if !i.m.fifoNeverClosed {
		go func() {
			<-ctx.Done()
			i.fifo.Close()
		}()
	}
	for {
		var err error
		if i.m.applyAfterPop {
			var deltas deltafifo.Deltas
			var initial bool
			_, err = i.fifo.Pop(func(d deltafifo.Deltas, isInInitialList bool) error {
				deltas, initial = d, isInInitialList
				return nil
			})
			if err == nil {
				_ = i.process(deltas, initial)
			}
		} else {
			_, err = i.fifo.Pop(i.process)
		}
		if i.m.unguardedSynced {
			i.racySynced = i.fifo.HasSynced()
		}
		if errors.Is(err, deltafifo.ErrFIFOClosed) {
			break
		}
	}
	<-reflectorDone
	i.wg.Wait()
}

func (i *inf) process(deltas deltafifo.Deltas, isInInitialList bool) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	for _, d := range deltas {
		obj := d.Object
		if d.Type == deltafifo.Deleted {
			deleted := obj
			if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok && i.m.unwrapTombstone {
				deleted = tomb.Obj
			}
			i.write(func() error { return i.idx.Delete(obj) }, func(h informer.ResourceEventHandler) { h.OnDelete(deleted) })
			continue
		}
		old, cached, err := i.idx.Get(obj)
		if err != nil {
			return err
		}
		if cached && !(i.m.relistAsAdd && d.Type == deltafifo.Replaced) {
			if i.m.oldIsNew {
				old = obj
			}
			i.write(func() error { return i.idx.Update(obj) }, func(h informer.ResourceEventHandler) { h.OnUpdate(old, obj) })
			continue
		}
		initial := isInInitialList && !i.m.initialAlwaysFalse || i.m.initialAlwaysTrue
		i.write(func() error { return i.idx.Add(obj) }, func(h informer.ResourceEventHandler) { h.OnAdd(obj, initial) })
	}
	return nil
}

// write updates the cache and notifies every handler, in that order
// unless the notifyBeforeCache mistake is on. i.mu is held.
func (i *inf) write(update func() error, n notification) {
	if i.m.notifyBeforeCache {
		i.notifyLocked(n)
		_ = update()
		return
	}
	_ = update()
	i.notifyLocked(n)
}

func (i *inf) notifyLocked(n notification) {
	for _, l := range i.listeners {
		if i.m.callHandlersInline {
			n(l.h)
			continue
		}
		l.send(i.ctx, n)
	}
}

// notification is one call of a handler.
type notification func(informer.ResourceEventHandler)

// listener hands one handler its notifications in order: pop keeps a
// growing buffer fed by add, run calls the handler with what pop hands it.
type listener struct {
	h        informer.ResourceEventHandler
	add      chan notification
	next     chan notification
	fixedBuf bool
}

func (i *inf) newListener(h informer.ResourceEventHandler) *listener {
	l := &listener{h: h, add: make(chan notification), next: make(chan notification)}
	if i.m.fixedBuffer {
		l.add, l.fixedBuf = make(chan notification, 100), true
	}
	return l
}

// send queues n; it gives up when ctx ends.
func (l *listener) send(ctx context.Context, n notification) {
	select {
	case l.add <- n:
	case <-ctx.Done():
	}
}

func (i *inf) startLocked(l *listener) {
	ctx := i.ctx
	if i.m.listenersIgnoreStop {
		ctx = context.Background()
	}
	if i.m.callHandlersInline {
		return
	}
	if l.fixedBuf {
		i.wg.Go(func() {
			for {
				select {
				case n := <-l.add:
					n(l.h)
				case <-ctx.Done():
					return
				}
			}
		})
		return
	}
	i.wg.Go(func() { l.pop(ctx) })
	i.wg.Go(func() {
		for n := range l.next {
			if i.m.goPerNotification {
				go n(l.h)
				continue
			}
			n(l.h)
		}
	})
}

// pop moves notifications from add to a buffer and from the buffer to
// next, and closes next when ctx ends.
func (l *listener) pop(ctx context.Context) {
	defer close(l.next)
	var buf []notification
	for {
		var out chan notification
		var head notification
		if len(buf) > 0 {
			out, head = l.next, buf[0]
		}
		select {
		case n := <-l.add:
			buf = append(buf, n)
		case out <- head:
			buf = buf[1:]
		case <-ctx.Done():
			return
		}
	}
}
