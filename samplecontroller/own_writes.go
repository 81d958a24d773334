package samplecontroller

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// ownWrites lets the Foo reconciler read its own writes.
//
// The informer's cache lags the API server: right after the reconciler
// writes a Foo's status, the cache may still hold the Foo as it was before.
// Usually that is harmless — the write's watch event arrives, and a
// Reconcile of the stale Foo fails its own write with 409 Conflict and is
// retried. But the Foo watch drops status-only updates
// (GenerationChangedPredicate), so no event follows our status write; and
// a Reconcile that reads a stale Foo can conclude "the status is already
// what it should be" — comparing against the status we overwrote — and
// skip the write. Example: status says 2 available; the Deployment is
// deleted and recreated, we write 0 available; the simulator reports 2
// again, and the next Reconcile compares "2 available" with the stale
// cached "2 available" and writes nothing. The Foo would say 0 until the
// next resync.
//
// So the reconciler remembers, per Foo, the object its last write
// returned and the resourceVersions its writes replaced. When the cache
// hands out one of those replaced versions, the cache is provably behind
// (resourceVersions are compared only for equality, as they must be), and
// the reconciler works from its own, newer copy. As soon as the cache
// holds anything else, the memory is dropped.
//
// The write that removes the finalizer of a deleting Foo deletes it, and
// the server answers with the Foo at the version the write replaced (no
// newer version exists). The reconciler then remembers that version as
// replaced by a deletion: a Reconcile that finds it in the cache knows the
// Foo is gone, instead of running the cleanup again and patching a Foo that
// no longer exists.
//
// client-go: none. kube-controller-manager's ControllerExpectations solve
// the same problem for pods; controller-runtime leaves it to the user (a
// controller that reads a stale cache there writes from it, and its write
// fails with 409 Conflict, or 404 for a Foo already deleted, and is
// retried).
//
// Invariants (checkInvariants): every entry either holds a foo filed under
// its own namespace/name or is a deletion (foo nil); its replaced set is
// not empty and never holds foo's own resourceVersion (a version cannot
// replace itself).
type ownWrites struct {
	mu     sync.Mutex // guards latest
	latest map[types.NamespacedName]ownWrite
}

type ownWrite struct {
	foo      *Foo            // as our last write returned it, never modified; nil: our last write deleted the Foo
	replaced map[string]bool // resourceVersions our writes replaced
	latestRV string          // the version our last write made ("" after a deletion)
}

func newOwnWrites() *ownWrites {
	return &ownWrites{latest: map[types.NamespacedName]ownWrite{}}
}

// wrote records that a write replaced resourceVersion before with after.
// A write whose answer still carries before made no new version (a no-op):
// there is nothing newer to remember.
func (o *ownWrites) wrote(before string, after *Foo) {
	if after.ResourceVersion == before {
		return
	}
	o.record(types.NamespacedName{Namespace: after.Namespace, Name: after.Name}, before, after.DeepCopy())
}

// deleted records that a write replaced resourceVersion before by deleting
// the Foo key (the removal of its last finalizer).
func (o *ownWrites) deleted(key types.NamespacedName, before string) {
	o.record(key, before, nil)
}

// record adds one write to key's chain; foo is its result, nil for a
// deletion.
func (o *ownWrites) record(key types.NamespacedName, before string, foo *Foo) {
	o.mu.Lock()
	defer o.mu.Unlock()
	w, ok := o.latest[key]
	if !ok || w.foo == nil || w.latestRV != before {
		w = ownWrite{replaced: map[string]bool{}} // not a chain of our writes: start again
	}
	w.replaced[before] = true
	w.foo = foo
	w.latestRV = ""
	if foo != nil {
		w.latestRV = foo.ResourceVersion
	}
	o.latest[key] = w
}

// fresher returns the newest Foo known for cached's key: a copy of our own
// last write if cached is a version it replaced, else cached itself
// (already the caller's copy: the client's Get returns copies). gone
// reports that cached is a version our own write deleted: the Foo no longer
// exists.
func (o *ownWrites) fresher(cached *Foo) (foo *Foo, gone bool) {
	key := types.NamespacedName{Namespace: cached.Namespace, Name: cached.Name}
	o.mu.Lock()
	defer o.mu.Unlock()
	w, ok := o.latest[key]
	if ok && w.replaced[cached.ResourceVersion] {
		if w.foo == nil {
			return nil, true
		}
		return w.foo.DeepCopy(), false
	}
	delete(o.latest, key) // the cache has caught up, or moved past us
	return cached, false
}

// forget drops what is known about a Foo that is gone.
func (o *ownWrites) forget(key types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.latest, key)
}

// checkInvariants reports the first broken invariant (for tests).
func (o *ownWrites) checkInvariants() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for key, w := range o.latest {
		switch {
		case w.foo == nil && w.latestRV != "":
			return fmt.Errorf("samplecontroller: own writes: %s is a deletion that made version %s", key, w.latestRV)
		case w.foo == nil && len(w.replaced) == 0:
			return fmt.Errorf("samplecontroller: own writes: %s deleted nothing", key)
		case w.foo == nil:
			continue
		case w.foo.ResourceVersion != w.latestRV:
			return fmt.Errorf("samplecontroller: own writes: %s holds version %s, made %s", key, w.foo.ResourceVersion, w.latestRV)
		case w.foo.Namespace != key.Namespace || w.foo.Name != key.Name:
			return fmt.Errorf("samplecontroller: own writes: %s holds %s/%s", key, w.foo.Namespace, w.foo.Name)
		case len(w.replaced) == 0:
			return fmt.Errorf("samplecontroller: own writes: %s replaced nothing", key)
		case w.replaced[w.foo.ResourceVersion]:
			return fmt.Errorf("samplecontroller: own writes: %s replaced its own resourceVersion %s", key, w.foo.ResourceVersion)
		}
	}
	return nil
}

// len returns how many Foos are remembered (for tests).
func (o *ownWrites) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.latest)
}
