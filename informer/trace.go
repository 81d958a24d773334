package informer

import (
	"context"
	"log/slog"

	"github.com/informerlab/informerlab/deltafifo"
)

// tracer writes one debug line per object per diagram step, so a learner
// (and the walkthrough test) can watch an object travel through the
// informer. Each line's message starts with "informer: step N"; each carries
// the object's key. When debug logging is off it costs one Enabled check.
type tracer struct {
	logger *slog.Logger
}

func (t tracer) on() bool {
	return t.logger.Enabled(context.Background(), slog.LevelDebug)
}

// queued: step 2, the Reflector wrote a change into the queue.
func (t tracer) queued(op string, obj any) {
	if t.on() {
		t.logger.Debug("informer: step 2 (add object): the Reflector queued a change",
			"op", op, "key", keyOrUnknown(obj))
	}
}

// replaced: step 2 for a whole list.
func (t tracer) replaced(n int, rv string) {
	if t.on() {
		t.logger.Debug("informer: step 2 (add object): the Reflector queued a list",
			"objects", n, "resourceVersion", rv)
	}
}

// popped: step 3, the process loop took a Deltas off the queue.
func (t tracer) popped(deltas deltafifo.Deltas, isInInitialList bool) {
	if !t.on() || len(deltas) == 0 {
		return
	}
	types := make([]string, len(deltas))
	for i, d := range deltas {
		types[i] = string(d.Type)
	}
	key := "(the whole cache)"
	if newest := deltas.Newest(); newest.Type != deltafifo.ReplacedAll && newest.Type != deltafifo.SyncAll {
		key = keyOrUnknown(newest.Object)
	}
	t.logger.Debug("informer: step 3 (pop object): the process loop popped deltas",
		"key", key, "deltas", types, "isInInitialList", isInInitialList)
}

// poppedBatch: step 3 for a batch of deltas to distinct objects.
func (t tracer) poppedBatch(deltas []deltafifo.Delta, isInInitialList bool) {
	if !t.on() {
		return
	}
	keys := make([]string, len(deltas))
	for i, d := range deltas {
		keys[i] = string(d.Type) + " " + keyOrUnknown(d.Object)
	}
	t.logger.Debug("informer: step 3 (pop object): the process loop popped a batch",
		"size", len(deltas), "deltas", keys, "isInInitialList", isInInitialList)
}

// storedList: steps 4-5 for a whole list, replacing the cache at once.
func (t tracer) storedList(objects, deletions int, rv string) {
	if t.on() {
		t.logger.Debug("informer: steps 4-5 (add object, store object & key): the cache is replaced by a list",
			"objects", objects, "deletions", deletions, "resourceVersion", rv)
	}
}

// stored: steps 4-5, the cache now holds the change.
func (t tracer) stored(op string, obj any) {
	if t.on() {
		t.logger.Debug("informer: steps 4-5 (add object, store object & key): the cache is updated",
			"op", op, "key", keyOrUnknown(obj))
	}
}

// dispatched: step 6, a notification goes to the handlers' buffers.
func (t tracer) dispatched(kind string, obj any, handlers int, sync bool) {
	if t.on() {
		t.logger.Debug("informer: step 6 (dispatch event handler): notifying handlers",
			"notification", kind, "key", keyOrUnknown(obj), "handlers", handlers, "resync", sync)
	}
}

func keyOrUnknown(obj any) string {
	key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return "<unknown>"
	}
	return key
}
