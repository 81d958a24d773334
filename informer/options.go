package informer

import (
	"fmt"
	"log/slog"

	"github.com/informerlab/informerlab/reflector"
)

// QueueKind chooses the queue between the Reflector and the informer's
// process loop (diagram steps 2-3).
//
// client-go: the InOrderInformers feature gate (DeltaFIFO when off, RealFIFO when on).
type QueueKind int

const (
	// QueueDeltaFIFO is the classic [deltafifo.DeltaFIFO], the default: the
	// changes to one object wait together under its key, so the process loop
	// sees each object's recent history at once, and a deletion the queue
	// already knows about is not reported twice.
	QueueDeltaFIFO QueueKind = iota
	// QueueRealFIFO is the in-order [deltafifo.RealFIFO]: every change waits
	// in one line and is handled in the order the server made it, across
	// objects; nothing is coalesced.
	QueueRealFIFO
)

// String names the queue.
func (k QueueKind) String() string {
	switch k {
	case QueueDeltaFIFO:
		return "DeltaFIFO"
	case QueueRealFIFO:
		return "RealFIFO"
	}
	return fmt.Sprintf("QueueKind(%d)", int(k))
}

// Option configures a SharedIndexInformer at construction.
type Option func(*options)

type options struct {
	queue     QueueKind
	logger    *slog.Logger
	reflector reflector.Options
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
