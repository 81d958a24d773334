package manager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// Defaults for the zero values of Options.
const (
	DefaultGracefulShutdownTimeout = 30 * time.Second
)

// Options configure a [Manager]. NewListerWatcher or NewClient is
// required; the zero value of everything else is a working configuration.
//
// client-go: controller-runtime pkg/manager.Options.
type Options struct {
	// NewListerWatcher returns the ListerWatcher of a resource, for the
	// informers of the Manager's cache. With fakeapi or client:
	//
	//	func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
	//		return server.Resource(gvr).Namespace(ns)
	//	}
	//
	// nil means NewClient, whose handles are ListerWatchers too.
	NewListerWatcher informer.ListerWatcherFunc

	// NewClient returns the API handle of a resource in a namespace, for
	// the writes of [Manager.GetClient], the reads of [Manager.GetAPIReader]
	// and the Events of [Manager.GetEventRecorderFor]. With fakeapi or
	// client:
	//
	//	func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
	//		return server.Resource(gvr).Namespace(ns)
	//	}
	//
	// nil means the Manager can only read from its cache: writes and API
	// reads fail with an error saying so, and Events are discarded.
	NewClient controller.ResourceInterfaceFunc

	// RESTMapper tells the [Client] which resource serves a kind, for kinds
	// the Manager has no informer for. Kinds given to GetInformer (and so
	// to the Builder's For, Owns and Watches) need none. nil means only
	// those kinds are known.
	RESTMapper RESTMapper

	// Namespace limits the cache to one namespace; "" watches all.
	Namespace string

	// SyncPeriod is the resync period of the cache's informers: every
	// SyncPeriod each handler is told about every cached object again, as
	// an update with identical objects. 0 means never (controller-runtime
	// defaults to 10 hours).
	SyncPeriod time.Duration

	// Scheme maps typed Go objects to their kinds, so that the [builder.Builder]
	// can tell what kind For's object is (for owner references) and the
	// [Client] which resource an object belongs to, when the object carries
	// no apiVersion and kind. Unstructured objects do not need it. It
	// should be the scheme the API handles were built with: the Client's
	// cache holds a kind the scheme knows as its Go type, others
	// unstructured.
	Scheme *runtime.Scheme

	// CacheSyncTimeout bounds how long Start waits for the cache's informers
	// to sync. 0 means DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration

	// GracefulShutdownTimeout bounds how long Start waits, once stopping,
	// for runnables and caches to stop. 0 means
	// DefaultGracefulShutdownTimeout; negative means wait for ever.
	GracefulShutdownTimeout time.Duration

	// LeaderElection, when set, makes the Manager run its leader-election
	// runnables (controllers) only while it holds the lease. nil means no
	// leader election: they run at once.
	LeaderElection *leaderelection.Options

	// HealthProbeBindAddress, when set, serves /healthz and /readyz on this
	// loopback address ("127.0.0.1:8081"; port 0 picks a free port, see
	// HealthProbeAddr). Non-loopback addresses are refused.
	HealthProbeBindAddress string

	// admission.Server, when set, serves admission webhooks: the Manager starts
	// it first, before the cache (the API server may call it as soon as the
	// Manager runs), stops it last, and /readyz is ready only while it
	// serves. Every replica serves it, leader or not.
	Server *admission.Server

	// Logger receives the Manager's logs. nil means slog.Default().
	Logger *slog.Logger
}

// Manager runs a set of controllers and the informers they share, in
// order:
//
//  1. it serves /healthz and /readyz if asked to, and admission webhooks if
//     given a admission.Server;
//  2. it starts the cache (one shared informer per resource) and waits for
//     it to sync;
//  3. it starts the runnables that do not need leadership;
//  4. it campaigns for the lease, if leader election is on, and once
//     leading (at once if it is off) starts the runnables that need it —
//     controllers, by default.
//
// It stops in the reverse order: leader runnables, then (releasing the lease)
// the other runnables, then the cache, then the webhook and health servers.
//
// A Manager is safe for concurrent use. It starts once.
//
// client-go: controller-runtime pkg/manager.Manager.
type Manager struct {
	factory                 *informer.SharedInformerFactory
	scheme                  *runtime.Scheme
	namespace               string
	newClient               controller.ResourceInterfaceFunc
	restMapper              RESTMapper
	client                  *Client
	cacheSyncTimeout        time.Duration
	gracefulShutdownTimeout time.Duration
	elector                 *leaderelection.LeaderElector
	healthAddr              string
	webhooks                *admission.Server
	logger                  *slog.Logger

	// errs receives the first error of any runnable.
	errs    chan error
	others  *runnableGroup
	leaders *runnableGroup
	// elected is closed when the leader runnables start.
	elected chan struct{}
	// synced is set once the cache has synced (for /readyz); stopping
	// once shutdown begins.
	synced, stopping atomic.Bool

	mu sync.Mutex // guards the fields below
	// started is set by the first Start; cacheCtx is the context of the
	// cache's informers, to start those requested later.
	started  bool
	cacheCtx context.Context
	// names holds the names of the controllers added, which must be unique.
	names map[string]bool
	// probeAddr is the health server's address once it listens.
	probeAddr net.Addr
	// examples holds the example object of each informer of the cache, and
	// kinds the resource of each kind an example named (see resource.go).
	examples map[schema.GroupVersionResource]runtime.Object
	kinds    map[schema.GroupVersionKind]schema.GroupVersionResource
	// events is the broadcaster of GetEventRecorderFor, made on first use.
	events *recorder.EventBroadcaster
}

// New returns a Manager. It starts nothing.
//
// client-go: controller-runtime pkg/manager.New.
func New(opts Options) (*Manager, error) {
	if opts.NewListerWatcher == nil && opts.NewClient != nil {
		newClient := opts.NewClient
		opts.NewListerWatcher = func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return newClient(gvr, ns)
		}
	}
	switch {
	case opts.NewListerWatcher == nil:
		return nil, errors.New("controller: manager: NewListerWatcher is nil, and so is NewClient")
	case opts.CacheSyncTimeout < 0:
		return nil, fmt.Errorf("controller: manager: CacheSyncTimeout is negative (%s)", opts.CacheSyncTimeout)
	case opts.SyncPeriod < 0:
		return nil, fmt.Errorf("controller: manager: SyncPeriod is negative (%s)", opts.SyncPeriod)
	}
	if opts.HealthProbeBindAddress != "" {
		if err := checkLoopback(opts.HealthProbeBindAddress); err != nil {
			return nil, err
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	errs := make(chan error, 1)
	m := &Manager{
		scheme:                  opts.Scheme,
		namespace:               opts.Namespace,
		newClient:               opts.NewClient,
		restMapper:              opts.RESTMapper,
		cacheSyncTimeout:        cmp.Or(opts.CacheSyncTimeout, controller.DefaultCacheSyncTimeout),
		gracefulShutdownTimeout: cmp.Or(opts.GracefulShutdownTimeout, DefaultGracefulShutdownTimeout),
		healthAddr:              opts.HealthProbeBindAddress,
		webhooks:                opts.Server,
		logger:                  logger.With("component", "manager"),
		errs:                    errs,
		others:                  newRunnableGroup(errs),
		leaders:                 newRunnableGroup(errs),
		elected:                 make(chan struct{}),
		names:                   map[string]bool{},
		examples:                map[schema.GroupVersionResource]runtime.Object{},
		kinds:                   map[schema.GroupVersionKind]schema.GroupVersionResource{},
	}
	m.client = &Client{m: m, trackers: map[schema.GroupVersionResource]*cacheTracker{}}
	factoryOpts := []informer.FactoryOption{informer.WithInformerOptions(informer.WithLogger(logger))}
	if opts.Namespace != "" {
		factoryOpts = append(factoryOpts, informer.WithNamespace(opts.Namespace))
	}
	m.factory = informer.NewSharedInformerFactory(opts.NewListerWatcher, opts.SyncPeriod, factoryOpts...)
	if opts.LeaderElection != nil {
		le, err := leaderelection.NewLeaderElector(*opts.LeaderElection, logger)
		if err != nil {
			return nil, err
		}
		m.elector = le
	}
	return m, nil
}

// Add has the Manager run r: at Start, or at once if the Manager has
// started (a leader runnable: once leading). A runnable runs only while
// leading unless it implements [LeaderElectionRunnable] and says otherwise.
// A [controller.Controller] must have a name no other added Controller has.
// Adding to a Manager that is stopping is an error.
func (m *Manager) Add(r Runnable) error {
	if r == nil {
		return errors.New("controller: manager: Add: runnable is nil")
	}
	if c, ok := r.(*controller.Controller); ok {
		m.mu.Lock()
		dup := m.names[c.Name()]
		m.names[c.Name()] = true
		m.mu.Unlock()
		if dup {
			return fmt.Errorf("controller: manager: a controller named %q was already added", c.Name())
		}
	}
	group := m.others
	if needsLeader(r) {
		group = m.leaders
	}
	if !group.add(r) {
		return errors.New("controller: manager: Add after the manager stopped")
	}
	return nil
}

// GetInformer returns the cache's shared informer for gvr, creating it on
// first use; exampleObject is the type its objects have (see
// informer.NewSharedIndexInformer). An informer requested after Start is
// started at once. The example's kind, when known (apiVersion and kind, or
// the Scheme), is how the [Client] finds gvr for objects of that kind.
func (m *Manager) GetInformer(gvr schema.GroupVersionResource, exampleObject runtime.Object) (informer.SharedIndexInformer, error) {
	gi, err := m.factory.ForResource(gvr, exampleObject)
	if err != nil {
		return nil, fmt.Errorf("controller: manager: %w", err)
	}
	gvk, known := m.objectKind(exampleObject)
	m.mu.Lock()
	if _, ok := m.examples[gvr]; !ok {
		m.examples[gvr] = exampleObject
	}
	if _, ok := m.kinds[gvk]; known && !ok {
		m.kinds[gvk] = gvr
	}
	cacheCtx := m.cacheCtx
	m.mu.Unlock()
	if cacheCtx != nil {
		m.factory.Start(cacheCtx)
	}
	return gi.Informer(), nil
}

// Scheme returns the scheme the Manager was given (nil if none).
func (m *Manager) Scheme() *runtime.Scheme { return m.scheme }

// Elected returns a channel closed when the leader runnables start: once
// leading, or at Start's step 4 without leader election.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// GetWebhookServer returns the admission.Server of Options, or nil.
func (m *Manager) GetWebhookServer() *admission.Server { return m.webhooks }

// HealthProbeAddr returns the address the health server listens on, or nil
// before it does (or without one). It is set before Elected is closed.
func (m *Manager) HealthProbeAddr() net.Addr {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.probeAddr
}
