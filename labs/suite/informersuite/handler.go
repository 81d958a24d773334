package informersuite

import (
	"fmt"
	"sync"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
)

// recorder is a ResourceEventHandler that logs every call as
// "add a 5 initial", "add c 9", "update a 5->7", "delete b 8" or
// "delete-tombstone ns/x".
type recorder struct {
	// hold, if set, blocks every call until it is closed: a slow handler.
	hold chan struct{}
	// seen, if set, is called with each object before it is logged.
	seen func(verb string, obj any)

	mu  sync.Mutex
	log []string
}

func (r *recorder) note(verb string, obj any, line string) {
	if r.hold != nil {
		<-r.hold
	}
	if r.seen != nil {
		r.seen(verb, obj)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, line)
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	name, rv := world.NameRV(obj)
	line := "add " + name + " " + rv
	if isInInitialList {
		line += " initial"
	}
	r.note("add", obj, line)
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	_, oldRV := world.NameRV(oldObj)
	name, newRV := world.NameRV(newObj)
	r.note("update", newObj, fmt.Sprintf("update %s %s->%s", name, oldRV, newRV))
}

func (r *recorder) OnDelete(obj any) {
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		r.note("delete", obj, "delete-tombstone "+tomb.Key)
		return
	}
	name, rv := world.NameRV(obj)
	r.note("delete", obj, "delete "+name+" "+rv)
}

// snapshot returns a copy of the calls logged since the last take.
func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// take returns the calls logged since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.log
	r.log = nil
	return out
}
