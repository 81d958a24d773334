package deltafifo

import (
	"errors"
	"fmt"
)

// checkInvariants verifies the invariants written on DeltaFIFO's fields.
// Tests call it after every step.
func (f *DeltaFIFO) checkInvariants() error {
	f.mu.Lock()
	defer f.mu.Unlock()

	var errs []error
	if f.queue.len() != len(f.items) {
		errs = append(errs, fmt.Errorf("queue has %d keys, items has %d", f.queue.len(), len(f.items)))
	}
	if f.itemsPeak < len(f.items) {
		errs = append(errs, fmt.Errorf("itemsPeak %d is below len(items) %d", f.itemsPeak, len(f.items)))
	}
	errs = append(errs, f.queue.checkInvariants())
	inQueue := make(map[string]bool, f.queue.len())
	for i, key := range f.queue.queued() {
		if inQueue[key] {
			errs = append(errs, fmt.Errorf("queue[%d] = %q is a duplicate", i, key))
		}
		inQueue[key] = true
		if _, ok := f.items[key]; !ok {
			errs = append(errs, fmt.Errorf("queue[%d] = %q has no items", i, key))
		}
	}
	for key, deltas := range f.items {
		if !inQueue[key] {
			errs = append(errs, fmt.Errorf("items[%q] is not in queue", key))
		}
		if len(deltas) == 0 {
			errs = append(errs, fmt.Errorf("items[%q] is empty", key))
		}
		for i := 1; i < len(deltas); i++ {
			if deltas[i-1].Type == Deleted && deltas[i].Type == Deleted {
				errs = append(errs, fmt.Errorf("items[%q] has two Deleted deltas in a row at %d", key, i))
			}
		}
		for i, d := range deltas {
			if !validType(d.Type) {
				errs = append(errs, fmt.Errorf("items[%q][%d] has unknown type %q", key, i, d.Type))
			}
		}
	}
	errs = append(errs, checkPopulation(f.populated, f.initialPopulationCount, f.queue.len(), f.synced.Load()))
	return errors.Join(errs...)
}

// checkInvariants verifies the invariants written on RealFIFO's fields. It
// must not run while a Pop or PopBatch is processing.
func (f *RealFIFO) checkInvariants() error {
	f.mu.Lock()
	defer f.mu.Unlock()

	var errs []error
	for i, it := range f.items {
		switch {
		case !validType(it.Type) && !isWholeStore(it.Type):
			errs = append(errs, fmt.Errorf("items[%d] has unknown type %q", i, it.Type))
		case isWholeStore(it.Type):
			if !f.atomic {
				errs = append(errs, fmt.Errorf("items[%d] is %s outside atomic mode", i, it.Type))
			}
			if it.key != "" {
				errs = append(errs, fmt.Errorf("items[%d] is %s with key %q", i, it.Type, it.key))
			}
			_, isReplacedAll := it.Object.(ReplacedAllInfo)
			_, isSyncAll := it.Object.(SyncAllInfo)
			if (it.Type == ReplacedAll) != isReplacedAll || (it.Type == SyncAll) != isSyncAll {
				errs = append(errs, fmt.Errorf("items[%d] is %s carrying %T", i, it.Type, it.Object))
			}
		case it.key == "":
			errs = append(errs, fmt.Errorf("items[%d] has an empty key", i))
		}
	}
	errs = append(errs, checkPopulation(f.populated, f.initialPopulationCount, len(f.items), f.synced.Load()))
	return errors.Join(errs...)
}

// checkInvariants verifies the invariants written on FIFO's fields. Tests
// call it after every step.
func (f *FIFO) checkInvariants() error {
	f.mu.Lock()
	defer f.mu.Unlock()

	var errs []error
	if f.queue.len() != len(f.items) {
		errs = append(errs, fmt.Errorf("queue has %d keys, items has %d", f.queue.len(), len(f.items)))
	}
	errs = append(errs, f.queue.checkInvariants())
	inQueue := make(map[string]bool, f.queue.len())
	for i, key := range f.queue.queued() {
		if inQueue[key] {
			errs = append(errs, fmt.Errorf("queue[%d] = %q is a duplicate", i, key))
		}
		inQueue[key] = true
		if _, ok := f.items[key]; !ok {
			errs = append(errs, fmt.Errorf("queue[%d] = %q has no item", i, key))
		}
	}
	errs = append(errs, checkPopulation(f.populated, f.initialPopulationCount, f.queue.len(), f.synced.Load()))
	return errors.Join(errs...)
}

// checkInvariants verifies the invariants written on heapData. Tests call
// it after every step.
func (h *Heap) checkInvariants() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := &h.data

	var errs []error
	if len(d.index) != len(d.entries) {
		errs = append(errs, fmt.Errorf("index has %d keys, entries has %d", len(d.index), len(d.entries)))
	}
	for i, e := range d.entries {
		if at, ok := d.index[e.key]; !ok || at != i {
			errs = append(errs, fmt.Errorf("entries[%d] = %q, but index says %d (held: %v)", i, e.key, at, ok))
		}
		if parent := (i - 1) / 2; i > 0 && d.Less(i, parent) {
			errs = append(errs, fmt.Errorf("entries[%d] = %q is less than its parent entries[%d] = %q", i, e.key, parent, d.entries[parent].key))
		}
	}
	return errors.Join(errs...)
}

// checkPopulation checks the initial-list bookkeeping the three FIFOs share.
func checkPopulation(populated bool, count, queued int, synced bool) error {
	var errs []error
	if count < 0 || count > queued {
		errs = append(errs, fmt.Errorf("initialPopulationCount %d outside [0, %d]", count, queued))
	}
	if !populated && count != 0 {
		errs = append(errs, fmt.Errorf("not populated but initialPopulationCount is %d", count))
	}
	if want := populated && count == 0; synced != want {
		errs = append(errs, fmt.Errorf("synced is %v, want %v", synced, want))
	}
	return errors.Join(errs...)
}

// checkInvariants verifies keyQueue's invariant: the popped slots hold "".
func (q *keyQueue) checkInvariants() error {
	var errs []error
	for i, key := range q.keys[:q.head] {
		if key != "" {
			errs = append(errs, fmt.Errorf("popped queue slot %d still holds %q", i, key))
		}
	}
	return errors.Join(errs...)
}

func validType(t DeltaType) bool {
	switch t {
	case Added, Updated, Deleted, Replaced, Sync:
		return true
	}
	return false
}
