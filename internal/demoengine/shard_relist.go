package demoengine

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/informer"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// relistMeter counts one replica's relists of its Foo informer and what
// each brought into the cache, for the replicas view.
//
// A relist is seen on the wire: the replica's member changes its Foo
// informer's shard selector each time it gains or loses buckets, and the
// informer's Reflector then lists with the new selector, or with only the
// part it gained when the share grew (so does the member's check that the
// cache caught up, with the same selector). The
// meter sits on the replica's Foo API handle, so the first list carrying a
// selector other than the previous list's is the relist's; the first list
// of all is the initial one, not a relist. Watches are not looked at: a
// watch reopened with the old selector just before the change would count
// the change twice. The informer's cache then tells the
// meter, through an event handler, which Foos were added (the gained ones)
// and deleted (the lost ones) since the last relist.
//
// It is safe for concurrent use.
type relistMeter struct {
	mu sync.Mutex // guards the fields below
	// selector is the shard selector of the last list; listed is set once
	// there was one.
	selector string
	listed   bool
	relists  int
	at       time.Time // when the last relist began
	// added and deleted count the Foos added to and deleted from the
	// cache since the last relist (or since the start); addedAll counts
	// every Foo added since the start.
	added, deleted, addedAll int
}

// relistBurst is a relistMeter's reading.
type relistBurst struct {
	relists        int
	at             time.Time
	added, deleted int
	addedAll       int
}

// saw records a list with this shard selector.
func (m *relistMeter) saw(selector string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.listed && selector != m.selector {
		m.relists++
		m.at = time.Now()
		m.added, m.deleted = 0, 0
	}
	m.selector, m.listed = selector, true
}

func (m *relistMeter) read() relistBurst {
	m.mu.Lock()
	defer m.mu.Unlock()
	return relistBurst{relists: m.relists, at: m.at, added: m.added, deleted: m.deleted, addedAll: m.addedAll}
}

// watchCache registers the meter's event handler on the replica's Foo
// informer.
func (m *relistMeter) watchCache(inf informer.SharedIndexInformer) error {
	_, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { m.add() },
		DeleteFunc: func(any) { m.del() },
	})
	return err
}

// add records a Foo added to the cache; del one deleted from it.
func (m *relistMeter) add() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.added++
	m.addedAll++
}

func (m *relistMeter) del() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleted++
}

// meteredResource is a Foo API handle that shows the meter the shard
// selector of each list.
type meteredResource struct {
	sc.Resource
	m *relistMeter
}

func (r meteredResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	r.m.saw(opts.ShardSelector)
	return r.Resource.List(ctx, opts)
}
