package cache

import (
	"context"
	"sync"
	"time"

	"github.com/informerlab/informerlab/reflector"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/klog/v2"
)

type ReflectorStore = reflector.Store

type WatchErrorHandler func(r *Reflector, err error)

type WatchErrorHandlerWithContext func(ctx context.Context, r *Reflector, err error)

// ReflectorOptions is client-go's, as far as informerlab's Reflector has it.
type ReflectorOptions struct {
	Logger          *klog.Logger
	Name            string
	TypeDescription string
	ResyncPeriod    time.Duration
	MinWatchTimeout time.Duration
	Backoff         *wait.Backoff
}

// Reflector is client-go's Reflector: its exported fields are read when it
// starts, and informerlab's Reflector is built then.
type Reflector struct {
	WatchListPageSize             int64
	ShouldResync                  func() bool
	MaxInternalErrorRetryDuration time.Duration

	shimMu        sync.Mutex
	shimLab       *reflector.Reflector
	shimLW        reflector.ListerWatcher
	shimType      runtime.Object
	shimStore     ReflectorStore
	shimOptions   ReflectorOptions
	shimOnError   WatchErrorHandlerWithContext
	shimWatchList bool
}

func NewReflectorWithOptions(lw ListerWatcher, expectedType interface{}, store ReflectorStore, options ReflectorOptions) *Reflector {
	obj, _ := expectedType.(runtime.Object)
	return &Reflector{shimLW: shimListerWatcher(lw), shimType: obj, shimStore: store, shimOptions: options, shimWatchList: shimUseWatchList(lw)}
}

func NewReflector(lw ListerWatcher, expectedType interface{}, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{ResyncPeriod: resyncPeriod})
}

func NewNamedReflector(name string, lw ListerWatcher, expectedType interface{}, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{Name: name, ResyncPeriod: resyncPeriod})
}

// shimReflector wraps a Reflector informerlab built (an informer's), for a
// watch error handler.
func shimReflector(r *reflector.Reflector) *Reflector { return &Reflector{shimLab: r} }

func (r *Reflector) shimBuild(ctx context.Context) *reflector.Reflector {
	r.shimMu.Lock()
	defer r.shimMu.Unlock()
	if r.shimLab != nil {
		return r.shimLab
	}
	o := reflector.Options{
		Name:                          r.shimOptions.Name,
		ResyncPeriod:                  r.shimOptions.ResyncPeriod,
		ShouldResync:                  r.ShouldResync,
		PageSize:                      r.WatchListPageSize,
		MinWatchTimeout:               r.shimOptions.MinWatchTimeout,
		MaxInternalErrorRetryDuration: r.MaxInternalErrorRetryDuration,
		Logger:                        shimSlog(r.shimOptions.Logger),
	}
	if o.Logger == nil {
		o.Logger = shimSlogOf(klog.FromContext(ctx))
	}
	o.UseWatchList = r.shimWatchList
	if b := r.shimOptions.Backoff; b != nil {
		o.Backoff = reflector.Backoff{Initial: b.Duration, Factor: b.Factor, Jitter: b.Jitter, Cap: b.Cap}
	}
	if h := r.shimOnError; h != nil {
		o.WatchErrorHandler = func(ctx context.Context, _ *reflector.Reflector, err error) { h(ctx, r, err) }
	}
	r.shimLab = reflector.New(r.shimLW, r.shimType, r.shimStore, o)
	return r.shimLab
}

func (r *Reflector) Run(stopCh <-chan struct{}) {
	ctx, cancel := wait.ContextForChannel(stopCh), func() {}
	defer cancel()
	r.RunWithContext(ctx)
}

func (r *Reflector) RunWithContext(ctx context.Context) { r.shimBuild(ctx).Run(ctx) }

func (r *Reflector) ListAndWatch(stopCh <-chan struct{}) error {
	return r.ListAndWatchWithContext(wait.ContextForChannel(stopCh))
}

func (r *Reflector) ListAndWatchWithContext(ctx context.Context) error {
	return r.shimBuild(ctx).ListAndWatch(ctx)
}

func (r *Reflector) LastSyncResourceVersion() string {
	r.shimMu.Lock()
	lab := r.shimLab
	r.shimMu.Unlock()
	if lab == nil {
		return ""
	}
	return lab.LastSyncResourceVersion()
}

func (r *Reflector) Name() string { return r.shimOptions.Name }

func (r *Reflector) TypeDescription() string { return r.shimOptions.TypeDescription }

func DefaultWatchErrorHandler(ctx context.Context, r *Reflector, err error) {
	reflector.DefaultWatchErrorHandler(ctx, r.shimBuild(ctx), err)
}

// shimUseWatchList reads client-go's configuration of streaming lists as
// client-go's Reflector reads it when built: the WatchListClient feature
// gate, unless the ListerWatcher says it cannot stream.
func shimUseWatchList(lw ListerWatcher) bool {
	return clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) && !watchlist.DoesClientNotSupportWatchListSemantics(lw)
}
