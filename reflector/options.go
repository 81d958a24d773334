package reflector

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"
)

// Defaults for the zero values of Options.
const (
	// DefaultMinWatchTimeout is the shortest watch the Reflector asks for; each
	// watch asks the server to end it after a random time in
	// [MinWatchTimeout, 2*MinWatchTimeout], so that many reflectors started
	// together do not re-watch together.
	DefaultMinWatchTimeout = 5 * time.Minute

	// DefaultIdleTimeout is how long a watch may stay completely silent, not
	// even a bookmark arriving, before the Reflector treats it as dead and opens
	// a new one. A kube-apiserver sends a bookmark to every watch that asks for
	// them (the Reflector always does) about once a minute, and fakeapi does the
	// same by default, so three minutes is three missed bookmarks: long enough
	// never to fire on a healthy connection, short enough to notice a half-open
	// TCP connection or a stuck proxy well before the watch's own 5-10 minute
	// timeout. Against a server that sends no bookmarks the cost is one cheap
	// re-watch from the last resourceVersion per quiet period. Over HTTP/2 the
	// re-watch shares the dead connection; the client's health check
	// (client.HealthCheck) is what closes it, so that the re-watch reaches the
	// server on a new one.
	DefaultIdleTimeout = 3 * time.Minute

	// DefaultPageSize is the page size of the lists that are paginated (see
	// Options.PageSize).
	DefaultPageSize = 500
)

// Options configure a Reflector. The zero value of every field is a sensible
// default.
//
// client-go: tools/cache.ReflectorOptions (plus the Reflector's exported
// fields ShouldResync and WatchListPageSize).
type Options struct {
	// Name appears in every log line. Default: the file:line that called New.
	Name string

	// ResyncPeriod is how often Store.Resync is called while watching. Zero
	// (or negative) means never.
	ResyncPeriod time.Duration

	// ShouldResync is asked at every resync tick; Resync is called only when it
	// returns true. Nil means always.
	ShouldResync func() bool

	// PageSize is the Limit of list requests. Zero means client-go's rule: the
	// first list (at resourceVersion "0") and lists at "" use DefaultPageSize,
	// relists at a specific resourceVersion are not paginated (so the server
	// can answer them from its watch cache), unless the first list came back in
	// several pages, in which case every list uses DefaultPageSize. A positive
	// PageSize is used for every list.
	PageSize int64

	// Backoff is the delay between retries. The zero value means
	// DefaultBackoff().
	Backoff Backoff

	// WatchErrorHandler is called with the error each time ListAndWatch
	// returns one inside Run (a failed list, or a watch that could not be
	// opened), before the Reflector backs off and relists. Default:
	// DefaultWatchErrorHandler.
	WatchErrorHandler WatchErrorHandler

	// MinWatchTimeout: each watch asks the server to end it after a random
	// time in [MinWatchTimeout, 2*MinWatchTimeout]. Zero means
	// DefaultMinWatchTimeout.
	MinWatchTimeout time.Duration

	// IdleTimeout: a watch on which nothing at all arrives for this long is
	// stopped and re-opened from the last resourceVersion. Zero means
	// DefaultIdleTimeout; a negative value turns the check off (client-go's
	// behaviour).
	IdleTimeout time.Duration

	// MaxInternalErrorRetryDuration: a watch that ends with a 500 Internal
	// Error is re-opened at once, from the last resourceVersion and without a
	// relist, as long as the current streak of 500s (each less than a minute
	// after the previous one) started no longer ago than this. After that, or
	// when it is zero (the default), a 500 is handled like any other error:
	// back off and relist. The streak is forgotten at every relist.
	MaxInternalErrorRetryDuration time.Duration

	// UseWatchList makes the Reflector get its initial state from a streaming
	// list (a watch with sendInitialEvents=true, ended by a bookmark annotated
	// k8s.io/initial-events-end) instead of a List; if the server cannot do
	// that, the Reflector falls back to a List.
	UseWatchList bool

	// ShardSelector, when set, makes the Reflector cache one shard of the
	// resource: the objects whose FNV-1a-64 hash of uid (or namespace) is
	// in the expression's ranges, for example
	// "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')".
	// Lists and watches send it to the server and re-check its answers on
	// the client (shard.go); [Reflector.SetShardSelector] changes it while
	// the Reflector runs. One that does not parse makes every list fail.
	ShardSelector string

	// LabelSelector, when set, makes the Reflector cache only the objects
	// whose labels match it, for example "informerlab.dev/bucket in (3,4)".
	// Lists and watches send it to the server (a ListerWatcher must AND its
	// own selector to it, never overwrite it) and re-check its answers on
	// the client (label_selector.go); [Reflector.SetLabelSelector] changes it
	// while the Reflector runs. One that does not parse makes every list
	// fail.
	LabelSelector string

	// MetricsProvider, if set, makes the Reflector record list and watch
	// requests, relists, watch restarts and its last resourceVersion (see
	// [MetricsProvider]), under its Name. Nil records nothing.
	MetricsProvider MetricsProvider

	// Logger receives the Reflector's log lines. Default: slog.Default().
	Logger *slog.Logger
}

// WatchErrorHandler is told about each error ListAndWatch returns inside Run.
// It must not block for long: the Reflector backs off and relists after it
// returns.
//
// client-go: tools/cache.WatchErrorHandlerWithContext.
type WatchErrorHandler func(ctx context.Context, r *Reflector, err error)

// DefaultWatchErrorHandler logs err at a level that matches how alarming it
// is: an expired resourceVersion is routine (debug), a stream that ended
// unexpectedly is informational, anything else is a warning.
//
// client-go: tools/cache.DefaultWatchErrorHandler.
func DefaultWatchErrorHandler(ctx context.Context, r *Reflector, err error) {
	switch {
	case isExpiredError(err):
		r.logger.DebugContext(ctx, "reflector: watch closed", "err", err)
	case errors.Is(err, io.EOF):
		// The stream ended normally.
	case errors.Is(err, io.ErrUnexpectedEOF):
		r.logger.InfoContext(ctx, "reflector: watch closed with unexpected EOF", "err", err)
	default:
		r.logger.WarnContext(ctx, "reflector: failed to list or watch", "err", err)
	}
}

// withDefaults returns o with every zero field replaced by its default and
// every out-of-range field brought into range.
func (o Options) withDefaults() Options {
	if o.ResyncPeriod < 0 {
		o.ResyncPeriod = 0
	}
	if o.PageSize < 0 {
		o.PageSize = 0
	}
	o.Backoff = o.Backoff.withDefaults()
	if o.WatchErrorHandler == nil {
		o.WatchErrorHandler = DefaultWatchErrorHandler
	}
	if o.MinWatchTimeout <= 0 {
		o.MinWatchTimeout = DefaultMinWatchTimeout
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
