package informer

import (
	"fmt"
	"log/slog"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/reflector"
)

// QueueKind chooses the queue between the Reflector and the informer's
// process loop (diagram steps 2-3): the three designs client-go has used.
//
// client-go: the InOrderInformers feature gate (DeltaFIFO when off, RealFIFO
// when on) and the AtomicFIFO feature gate (atomic RealFIFO when also on).
type QueueKind int

const (
	// QueueDeltaFIFO is the classic [deltafifo.DeltaFIFO], the default: the
	// changes to one object wait together under its key, so the process loop
	// sees each object's recent history at once, and a deletion the queue
	// already knows about is not reported twice.
	QueueDeltaFIFO QueueKind = iota
	// QueueRealFIFO is the in-order [deltafifo.RealFIFO]: every change waits
	// in one line and is handled in the order the server made it, across
	// objects; nothing is coalesced. The process loop takes runs of changes
	// to distinct objects as one batch ([deltafifo.RealFIFO.PopBatch]) and
	// writes each batch to the cache under one lock. client-go 1.33-1.35's
	// default.
	QueueRealFIFO
	// QueueAtomicFIFO is the [deltafifo.RealFIFO] in atomic mode, client-go's
	// default since 1.36: as QueueRealFIFO, except that a relist reaches the
	// process loop as one [deltafifo.ReplacedAll] delta. The informer
	// replaces its whole cache with the list first, then tells its handlers
	// of the deletions, then of the additions and updates in list order; a
	// resync is one [deltafifo.SyncAll], answered from the cache. The queue
	// never reads the cache, so it lets the Reflector queue while handlers
	// are being notified.
	QueueAtomicFIFO
)

// String names the queue.
func (k QueueKind) String() string {
	switch k {
	case QueueDeltaFIFO:
		return "DeltaFIFO"
	case QueueRealFIFO:
		return "RealFIFO"
	case QueueAtomicFIFO:
		return "AtomicFIFO"
	}
	return fmt.Sprintf("QueueKind(%d)", int(k))
}

// newQueue builds the queue of kind with o; batch is the same queue when it
// can pop batches, else nil. o.KnownObjects is dropped for the atomic
// queue: its consumer compares lists with the cache itself, and it may
// unlock while the handlers are told.
func newQueue(kind QueueKind, o deltafifo.Options) (q deltafifo.Queue, batch deltafifo.QueueWithBatch) {
	switch kind {
	case QueueRealFIFO:
		f := deltafifo.NewRealFIFO(o)
		return f, f
	case QueueAtomicFIFO:
		o.KnownObjects = nil
		o.AtomicEvents = true
		o.UnlockWhileProcessing = true
		f := deltafifo.NewRealFIFO(o)
		return f, f
	}
	return deltafifo.New(o), nil
}

// validQueue reports whether kind is one of the three queues.
func validQueue(kind QueueKind) bool {
	return kind == QueueDeltaFIFO || kind == QueueRealFIFO || kind == QueueAtomicFIFO
}

// Option configures a SharedIndexInformer at construction.
type Option func(*options)

type options struct {
	queue            QueueKind
	logger           *slog.Logger
	reflector        reflector.Options
	mutationDetector bool
	mutationReport   func(CacheMutation)
	metrics          MetricsProvider
	name             string
	identifier       *InformerNameAndResource // set by WithIdentifier
}

// WithQueue chooses the queue; the default is [QueueDeltaFIFO].
func WithQueue(kind QueueKind) Option {
	return func(o *options) { o.queue = kind }
}

// WithLogger sets the logger of the informer, its handlers' panics, its queue
// and its Reflector. The default is slog.Default().
func WithLogger(logger *slog.Logger) Option {
	return func(o *options) { o.logger = logger }
}

// WithReflectorOptions passes options to the informer's Reflector (name,
// paging, backoff, watch timeouts, streaming lists). The informer sets
// ResyncPeriod, ShouldResync and Logger itself, and WatchErrorHandler if
// SetWatchErrorHandler was called; whatever opts says about them is replaced.
func WithReflectorOptions(opts reflector.Options) Option {
	return func(o *options) { o.reflector = opts }
}
