package samplecontroller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/predicate"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/workqueue"
)

// The Foo controller's retry policy: per Foo, exponential backoff from
// BackoffBase doubling up to BackoffMax, and overall at most 10 retries a
// second (bursts of 100).
const (
	BackoffBase = 5 * time.Millisecond
	BackoffMax  = 6 * time.Hour
)

// DefaultImage is the image of the Deployment's container when
// Options.Image is empty, as in sample-controller.
const DefaultImage = "nginx:latest"

// DefaultRateLimiter returns the Foo controller's default rate limiter: the
// larger of a per-Foo exponential backoff (BackoffBase doubling to
// BackoffMax) and a shared token bucket of 10 per second, burst 100. It is
// workqueue.DefaultControllerRateLimiter with a 6-hour cap instead of 1000
// seconds: a Foo that keeps failing is retried about four times a day, not
// every 17 minutes for ever.
//
// client-go: util/workqueue.DefaultTypedControllerRateLimiter (with a
// different cap).
func DefaultRateLimiter() workqueue.RateLimiter[controller.Request] {
	bucket, err := workqueue.NewBucketRateLimiter[controller.Request](10, 100)
	if err != nil {
		panic(err) // constant, valid arguments
	}
	return workqueue.NewMaxOfRateLimiter(
		workqueue.NewItemExponentialFailureRateLimiter[controller.Request](BackoffBase, BackoffMax),
		bucket)
}

// Options configure New. The zero value is a working configuration for a
// real cluster; on fakeapi, set DeploymentSimulator.
//
// client-go: sample-controller main.go's flags, and controller-runtime
// pkg/controller.Options.
type Options struct {
	// Namespace limits both controllers to one namespace; "" watches all.
	Namespace string

	// ResyncPeriod is the informers' resync period: every ResyncPeriod each
	// Foo and Deployment is delivered again as an update with an unchanged
	// resourceVersion, and reconciled. 0 means never.
	ResyncPeriod time.Duration

	// DeploymentSimulator, when true, also runs the DeploymentSimulator,
	// which plays kube-controller-manager's Deployment controller. Set it on
	// fakeapi; never on a real cluster. Sharded, it simulates only the
	// Deployments of the buckets the replica holds: set it on every replica.
	DeploymentSimulator bool

	// RateLimiter decides how long a failed Foo waits before its next try.
	// nil means DefaultRateLimiter().
	RateLimiter workqueue.RateLimiter[controller.Request]

	// Image is the container image of the Deployments created. "" means
	// DefaultImage.
	Image string

	// Logger receives the Manager's, the informers' and the controllers'
	// logs. nil means slog.Default().
	Logger *slog.Logger

	// Observer, when set, is told about each step (see Event). nil costs
	// nothing.
	Observer Observer

	// Reconciler, when set, builds the Foo controller's Reconciler in place
	// of the FooReconciler, from the Manager's split client (reads from the
	// cache, writes to the API) and the recorder the FooReconciler records
	// its Events with (the Manager's GetEventRecorderFor(EventSource)).
	// Everything else is wired as usual: the informers, the watches, the
	// queue, the simulator. labs/7-controller plugs a learner's Reconciler
	// in here.
	Reconciler func(c *manager.Client, events recorder.EventRecorder) controller.Reconciler

	// admission.Server, when set, serves the Foo admission webhooks on it
	// (FooDefaulter at MutatePath, FooValidator at ValidatePath) and hands
	// it to the Manager, which starts it before its cache. The API server
	// calls them only once a MutatingWebhookConfiguration and a
	// ValidatingWebhookConfiguration point at them (docs/samplecontroller.md).
	WebhookServer *admission.Server

	// Shard, when set, makes this controller one replica of a sharded
	// ring: it caches and reconciles only the Foos of the buckets it holds
	// (see "Running sharded" in the package documentation). nil runs one
	// replica that does everything.
	Shard *ShardOptions

	// Workers is the number of workers of the Foo controller, and of the
	// simulator: each reconciles one Foo (one Deployment) at a time, and
	// never two workers the same one. 0 means 1, which keeps the demo's
	// narration in one order; sample-controller runs 2.
	Workers int

	// Leader, when set, makes this controller one of several replicas of
	// which the one holding a Lease reconciles and the others stand by
	// (see [LeaderOptions]). It cannot be combined with Shard. nil runs
	// at once.
	Leader *LeaderOptions
}

// SampleController runs the Foo controller (and, if asked, the
// DeploymentSimulator) on a Manager whose cache holds two informers, one
// for Foos and one for Deployments:
//
//	informer(foos) --6--> [GenerationChangedPredicate] -> EnqueueRequestForObject --+
//	                                                                               |7
//	informer(deployments) --6--> EnqueueRequestForOwner(Foo, controller only) -----+--> queue "foo" --8--> FooReconciler --9--> client Get (cache)
//	                        \--6--> [GenerationChangedPredicate] -> EnqueueRequestForObject --> queue "deployment-simulator" --> DeploymentSimulator
//
// Build it with New; Run runs it. It is safe for concurrent use and runs
// once.
//
// client-go: sample-controller's main.go and controller.go (NewController,
// Run), as controller-runtime's Manager and Builder would wire them.
type SampleController struct {
	mgr       *manager.Manager
	foo       *controller.Controller
	simulator *controller.Controller // nil unless Options.DeploymentSimulator
	member    *sharding.Member       // nil unless Options.Shard
}

// New wires the sample controller against api. It starts nothing: Run
// does. It calls api once per resource to check that it returns handles,
// and makes no request.
func New(api API, opts Options) (*SampleController, error) {
	if api == nil {
		return nil, errors.New("samplecontroller: api is nil")
	}
	for _, gvr := range []schema.GroupVersionResource{FoosGVR, DeploymentsGVR} {
		if api(gvr, opts.Namespace) == nil {
			return nil, fmt.Errorf("samplecontroller: api returned no handle for %s", gvr.Resource)
		}
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("samplecontroller: Workers is %d: want 0 or more", opts.Workers)
	}
	scheme := NewScheme()
	typed := typedAPI(api, scheme)
	le, err := leaderElection(api, opts.Leader, opts)
	if err != nil {
		return nil, err
	}
	warmup := opts.Leader != nil && opts.Leader.Warmup
	mgr, err := manager.New(manager.Options{
		// The informers list and watch through these handles; with them the
		// Manager can also write Events (GetEventRecorderFor).
		NewClient: func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
			return typed(gvr, ns)
		},
		Namespace:  opts.Namespace,
		SyncPeriod: opts.ResyncPeriod,
		Scheme:     scheme,
		Logger:     opts.Logger,
		Server:     opts.WebhookServer,
		// Leader-elected, the controllers run only while this replica
		// holds the Lease; the cache runs on every replica.
		LeaderElection: le,
	})
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	// The two informers of the cache; the client finds its kinds there.
	fooInformer, err := mgr.GetInformer(FoosGVR, &Foo{})
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	depInformer, err := mgr.GetInformer(DeploymentsGVR, &Deployment{})
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}

	sc := &SampleController{mgr: mgr}
	// Sharded, the Foo controller runs behind the member's guard, which
	// reads a Foo's bucket from its uid in the Foo cache, or, for a deleted
	// Foo, from its tombstone.
	guardFoo := func(r controller.Reconciler) controller.Reconciler { return r }
	fooHandler := func(h controller.EventHandler) controller.EventHandler { return h }
	var admits *sharding.AdmitSource // sharded: the keys of gained buckets
	if opts.Shard != nil {
		if sc.member, admits, err = shard(mgr, typed, fooInformer, depInformer, opts); err != nil {
			return nil, errShard(err)
		}
		m, tomb := sc.member, sharding.NewTombstones()
		guardFoo = func(r controller.Reconciler) controller.Reconciler {
			return tomb.Forgetting(m.Guard(r, tomb.BucketFromCache(fooInformer.GetIndexer(), m.Buckets())))
		}
		fooHandler = tomb.Handler
	}
	w := wiring{obs: opts.Observer}
	// Reads from the cache and writes to the API through the Manager's
	// split client; Events through the Manager's broadcaster.
	cl := mgr.GetClient()
	if opts.WebhookServer != nil {
		// The validator needs every Deployment; a sharded replica's cache
		// holds only its buckets' (it would let a Foo take the Deployment of
		// a Foo another replica holds), so it asks the API server.
		var deployments manager.Reader = cl
		if sc.member != nil {
			deployments = mgr.GetAPIReader()
		}
		if err := registerWebhooks(opts.WebhookServer, deployments, opts); err != nil {
			return nil, fmt.Errorf("samplecontroller: %w", err)
		}
	}
	var r controller.Reconciler
	events := mgr.GetEventRecorderFor(EventSource)
	if opts.Reconciler != nil {
		r = opts.Reconciler(cl, events)
	} else {
		fr := newFooReconciler(cl, cl, typed, events, cmpOr(opts.Image, DefaultImage), opts.Observer)
		if sc.member != nil {
			fr.buckets = sc.member.Buckets()
		}
		r = fr
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = DefaultRateLimiter()
	}
	// For(foos) and Owns(deployments), spelled out as the Watches they
	// stand for, so that each piece can be observed.
	fb := builder.New(mgr).Named(FooControllerName).
		Watches(FoosGVR, &Foo{},
			fooHandler(w.handler(FooControllerName, "foos", controller.EnqueueRequestForObject{}, false)),
			w.predicate(FooControllerName, "foos", predicate.GenerationChangedPredicate{}, "GenerationChangedPredicate")...).
		Watches(DeploymentsGVR, &Deployment{},
			w.handler(FooControllerName, "deployments", controller.EnqueueRequestForOwner(FooGVK.GroupKind(), controller.OnlyControllerOwner()), true),
			w.predicate(FooControllerName, "deployments", nil, "")...)
	if admits != nil {
		fb = fb.WatchesRawSource(admits)
	}
	sc.foo, err = fb.
		WithOptions(controller.Options{RateLimiter: w.limiter(FooControllerName, limiter), Logger: opts.Logger, EnableWarmup: warmup, MaxConcurrentReconciles: opts.Workers}).
		Build(guardFoo(w.reconciler(FooControllerName, r)))
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}

	if opts.DeploymentSimulator {
		// The simulator stands for kube-controller-manager, a component
		// of its own, not a replica of the ring: it is not guarded. It
		// shares the Deployment informer, so sharded, each replica's
		// simulator sees and simulates only its buckets' Deployments, and
		// a crashed replica's are simulated by the survivor that takes
		// its buckets. While a bucket moves, two caches may hold it for a
		// moment (warm, for as long as a replica is its runner-up); their
		// status writes are the same, so the first wins and the other
		// finds nothing to do (or a Conflict, and retries).
		s := &DeploymentSimulator{client: cl, obs: opts.Observer}
		sc.simulator, err = builder.New(mgr).Named(SimulatorControllerName).
			Watches(DeploymentsGVR, &Deployment{},
				w.handler(SimulatorControllerName, "deployments", controller.EnqueueRequestForObject{}, false),
				w.predicate(SimulatorControllerName, "deployments", predicate.GenerationChangedPredicate{}, "GenerationChangedPredicate")...).
			WithOptions(controller.Options{RateLimiter: w.limiter(SimulatorControllerName, workqueue.DefaultControllerRateLimiter[controller.Request]()), Logger: opts.Logger, EnableWarmup: warmup, MaxConcurrentReconciles: opts.Workers}).
			Build(w.reconciler(SimulatorControllerName, s))
		if err != nil {
			return nil, fmt.Errorf("samplecontroller: %w", err)
		}
	}
	return sc, nil
}

// Run runs the Manager until ctx is done: it starts both informers, waits
// for them to sync, then starts the controllers' workers (Options.Workers each), and
// stops them in reverse order. It returns nil when ctx ended, or the first
// error (a cache that did not sync in time, say). A second call is an
// error.
func (c *SampleController) Run(ctx context.Context) error {
	return c.mgr.Start(ctx)
}

// Manager returns the Manager the controllers run on: its GetInformer
// returns the shared informers (FoosGVR with &Foo{}, DeploymentsGVR with
// &Deployment{}), for a narrator that wants to show the caches; its
// GetClient is the split client the controllers read and write with; and
// its GetEventRecorderFor records Events through the same API (the Foo
// controller's are those of GetEventRecorderFor(EventSource)).
func (c *SampleController) Manager() *manager.Manager { return c.mgr }

// sharding.Member returns the replica's member of its ring, whose Held says
// which buckets it holds; nil unless Options.Shard was set.
func (c *SampleController) ShardMember() *sharding.Member { return c.member }

// FooController returns the Foo controller, whose Counts say how its
// Reconciles ended.
func (c *SampleController) FooController() *controller.Controller { return c.foo }

// wiring wraps the pieces of a controller so they report to obs; with a
// nil obs it returns them unchanged.
type wiring struct{ obs Observer }

func (w wiring) handler(ctrl, resource string, h controller.EventHandler, mapsToOwner bool) controller.EventHandler {
	if w.obs == nil {
		return h
	}
	return observedHandler{inner: h, obs: w.obs, controller: ctrl, resource: resource, mapsToOwner: mapsToOwner}
}

// predicate returns the predicates of a watch: p (nil for none), observed.
func (w wiring) predicate(ctrl, resource string, p controller.Predicate, name string) []controller.Predicate {
	if w.obs == nil {
		if p == nil {
			return nil
		}
		return []controller.Predicate{p}
	}
	return []controller.Predicate{observedPredicate{inner: p, name: name, obs: w.obs, controller: ctrl, resource: resource}}
}

func (w wiring) limiter(ctrl string, l workqueue.RateLimiter[controller.Request]) workqueue.RateLimiter[controller.Request] {
	if w.obs == nil {
		return l
	}
	return observedLimiter{inner: l, obs: w.obs, controller: ctrl}
}

func (w wiring) reconciler(ctrl string, r controller.Reconciler) controller.Reconciler {
	if w.obs == nil {
		return r
	}
	return observedReconciler{inner: r, obs: w.obs, controller: ctrl}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
