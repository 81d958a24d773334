package fakeapi

import (
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Defaults for the zero values of [Options].
const (
	DefaultHistoryLimit        = 1000
	DefaultBookmarkInterval    = time.Minute
	DefaultWatchBufferSize     = 100
	DefaultMaxRequestBodyBytes = 3 << 20 // the real apiserver's limit is 3 MiB too
)

// initialRV is the resourceVersion of a server before its first write: an
// empty server lists at "1" and its first write gets "2". It is not 0
// because "0" means "any version" to clients (see New).
const initialRV = 1

// Options configure a [Server]. The zero value is a working configuration.
type Options struct {
	// HistoryLimit is the number of change events the server keeps for
	// watches to replay (the watch cache window). A watch or an Exact list
	// from a resourceVersion older than the window gets 410 Expired.
	// 0 means DefaultHistoryLimit.
	HistoryLimit int

	// BookmarkInterval is how often a watch that allows bookmarks receives a
	// BOOKMARK event. 0 means DefaultBookmarkInterval; negative disables
	// periodic bookmarks (the initial-events-end bookmark is still sent).
	BookmarkInterval time.Duration

	// Scheme, when it knows a resource's Kind and ListKind, makes the
	// in-process [ResourceClient] return typed objects. nil means
	// unstructured objects only. The HTTP API still speaks JSON, but on
	// both every write of a kind the Scheme knows is validated against its
	// Go type: a field of the wrong JSON type is 422 Invalid (schema.go).
	Scheme *runtime.Scheme

	// Logger receives one line per fault, per cut-off watch and (from
	// [Server.Handler]) per HTTP request. nil means a discarding logger.
	Logger *slog.Logger

	// WatchBufferSize is how many live events a watch may have queued and
	// not yet received before the server cuts it off. 0 means
	// DefaultWatchBufferSize.
	WatchBufferSize int

	// Token, when not empty, is the bearer token every HTTP request except
	// /version, /healthz, /livez and /readyz must carry (401 otherwise).
	Token string

	// NamespaceLifecycle makes a create of a namespaced object need an
	// existing namespace that is not being deleted (404 NotFound, 403
	// Forbidden otherwise), as the real server's NamespaceLifecycle
	// admission plugin does (namespaces.go). Off, any namespace name is
	// accepted. The server starts with DefaultNamespaces either way.
	NamespaceLifecycle bool

	// MaxRequestBodyBytes bounds HTTP request bodies (413 beyond it).
	// 0 means DefaultMaxRequestBodyBytes.
	MaxRequestBodyBytes int64

	// IgnoreShardSelector makes lists and watches drop their shardSelector
	// unread and answer with every object, as a kube-apiserver without the
	// ShardedListAndWatch feature gate (alpha, off by default) does. Off,
	// the server filters by it as one with the gate on does
	// (shard_selector.go).
	IgnoreShardSelector bool
}

// Server is an in-memory Kubernetes API server: storage with one global
// resourceVersion counter, a bounded watch history, watches, and fault
// injection. Use it in-process through [Server.Resource] or over HTTP through
// [Server.Handler].
//
// A Server is safe for concurrent use. [New] starts no goroutine; each open
// watch owns one goroutine, and [Server.Close] ends all of them.
//
// Invariants (checked by checkInvariants in tests):
//   - rv and compactedRV start at 1, never 0 (an empty server lists at
//     "1", its first write gets "2"), and only grow;
//   - every stored object's resourceVersion is in (1, rv], except the
//     DefaultNamespaces a new server starts with, at 1 until changed;
//   - history holds strictly increasing resourceVersions, all in
//     (compactedRV, rv], and at most historyLimit events;
//   - stored objects are never mutated: every write stores a fresh map, so
//     history, watch queues and snapshots can share them.
//
// client-go: none (it plays the kube-apiserver; the closest upstream piece is
// tools/cache/testing.FakeControllerSource).
type Server struct {
	opts   Options
	logger *slog.Logger

	hung    atomic.Bool   // HangWatches; written under mu, read by watch goroutines
	latency atomic.Int64  // SetLatency, in nanoseconds
	closed  chan struct{} // closed by Close
	wg      sync.WaitGroup

	mu sync.Mutex // guards everything below
	// rv is the resourceVersion of the last write (initialRV, 1, before any
	// write).
	rv uint64
	// compactedRV is the newest resourceVersion whose event has been dropped
	// from history; every event after it is retained.
	compactedRV uint64
	history     []event
	resources   map[schema.GroupVersionResource]*resource
	watchers    map[*watcher]struct{}
	failNext    map[string]failure
	faults      FaultCounts
	isClosed    bool
}

// New returns a server with the built-in resources registered (v1
// configmaps, namespaces and events; coordination.k8s.io/v1 leases) and
// the namespaces a real cluster starts with ([DefaultNamespaces]). It
// starts no goroutine. Register [SecretResource] to serve Secrets too.
func New(opts Options) *Server {
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = DefaultHistoryLimit
	}
	if opts.BookmarkInterval == 0 {
		opts.BookmarkInterval = DefaultBookmarkInterval
	}
	if opts.WatchBufferSize <= 0 {
		opts.WatchBufferSize = DefaultWatchBufferSize
	}
	if opts.MaxRequestBodyBytes <= 0 {
		opts.MaxRequestBodyBytes = DefaultMaxRequestBodyBytes
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		opts:   opts,
		logger: logger,
		// An empty server is at resourceVersion 1, not 0, as an empty etcd
		// is at revision 1: "0" means "any version" to clients, so a list
		// that said "0" would make a Reflector watch from "0", receive
		// synthetic ADDED events instead of a replay, and never see 410
		// Expired after a compaction.
		rv:          initialRV,
		compactedRV: initialRV,
		closed:      make(chan struct{}),
		resources:   make(map[schema.GroupVersionResource]*resource),
		watchers:    make(map[*watcher]struct{}),
		failNext:    make(map[string]failure),
	}
	for _, r := range builtinResources {
		if err := s.Register(r); err != nil {
			panic(err) // the built-in table is wrong: a programming error
		}
	}
	s.seedNamespaces()
	return s
}

// Close ends every open watch, waits for their goroutines to exit, and makes
// every later request fail with 503 ServiceUnavailable. It is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.isClosed {
		s.isClosed = true
		close(s.closed)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// CurrentResourceVersion returns the resourceVersion of the last write, as a
// number (lists and objects carry it as a decimal string). It is 1
// before the first write, never 0.
func (s *Server) CurrentResourceVersion() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

// event is one committed change, kept in history for watch replay and for
// rebuilding past snapshots (Exact lists and continue tokens).
type event struct {
	typ  eventType
	rv   uint64
	res  *resource
	key  string
	obj  *unstructured.Unstructured // state after the change; for a deletion, the last state stamped with rv
	prev *unstructured.Unstructured // state before the change; nil for an addition
	// silent events change storage but are never sent to watches.
	silent bool
}

type eventType int

const (
	added eventType = iota
	modified
	deleted
)
