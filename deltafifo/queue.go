package deltafifo

import (
	"log/slog"

	"github.com/informerlab/informerlab/indexer"
)

// Queue is what a producer (the Reflector) writes to and a consumer (the
// informer's process loop) pops from. [DeltaFIFO] and [RealFIFO] both
// implement it, so the consumer can be written once for either design.
//
// client-go: tools/cache.Queue.
type Queue interface {
	// Step 2 (add object): the producer's side.
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
	Resync() error

	// Step 3 (pop object): the consumer's side.
	Pop(process PopProcessFunc) (Deltas, error)
	HasSynced() bool

	Close()
	IsClosed() bool
	KeyOf(obj any) (string, error)
	ListKeys() []string
}

var (
	_ Queue = (*DeltaFIFO)(nil)
	_ Queue = (*RealFIFO)(nil)
)

// Options configures a [DeltaFIFO] or a [RealFIFO]. The zero value works: it
// keys objects with [indexer.MetaNamespaceKeyFunc], knows no objects and
// transforms nothing.
//
// client-go: tools/cache.DeltaFIFOOptions.
type Options struct {
	// KeyFunction computes an object's key. Default: indexer.MetaNamespaceKeyFunc.
	// Tombstones and Deltas are unwrapped before it is called.
	KeyFunction indexer.KeyFunc

	// KnownObjects is the consumer's store (the informer passes its Indexer).
	// With it, Replace emits tombstones for stored objects the relist no longer
	// lists, Delete ignores objects nobody knows, and Resync has something to
	// resync. Without it, the queue knows only what it holds.
	KnownObjects KeyListerGetter

	// Transformer, if set, rewrites every object arriving through Add, Update,
	// Delete or Replace before it is queued (see [TransformFunc]).
	Transformer TransformFunc

	// AtomicEvents puts a [RealFIFO] in atomic mode, client-go's default
	// since 1.36 (the AtomicFIFO feature): Replace queues the whole list as
	// one [ReplacedAll] delta and Resync queues one [SyncAll] delta, so the
	// consumer can swap its store in one step and tell its handlers only
	// afterwards. Deletions, additions and updates are then worked out by the
	// consumer against its own store, so the queue needs no KnownObjects:
	// setting both is a programming error and NewRealFIFO panics. [New]
	// panics if it is set: a DeltaFIFO has no atomic mode.
	AtomicEvents bool

	// UnlockWhileProcessing lets an atomic [RealFIFO] release its lock while
	// the consumer's process function runs, as long as fewer than two full
	// batches are queued, so the producer can keep queueing behind a slow
	// consumer (client-go's UnlockWhileProcessingFIFO feature). It is safe
	// only because an atomic queue never reads the consumer's store, and
	// only with a single consumer. NewRealFIFO panics if it is set without
	// AtomicEvents; [New] panics if it is set at all.
	UnlockWhileProcessing bool

	// Logger receives the few things worth telling an operator: a known object
	// that could not be read during Replace or Resync, and a consumer so slow it
	// holds up a long queue. Default: slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.KeyFunction == nil {
		o.KeyFunction = indexer.MetaNamespaceKeyFunc
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
