package cache

import (
	"context"

	"github.com/informerlab/informerlab/reflector"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

type (
	ListFunc             func(options metav1.ListOptions) (runtime.Object, error)
	WatchFunc            func(options metav1.ListOptions) (watch.Interface, error)
	ListWithContextFunc  func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	WatchFuncWithContext func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
)

// Lister, Watcher and ListerWatcher are client-go's context-free interfaces.
type Lister interface {
	List(options metav1.ListOptions) (runtime.Object, error)
}

type Watcher interface {
	Watch(options metav1.ListOptions) (watch.Interface, error)
}

type ListerWatcher interface {
	Lister
	Watcher
}

type ListerWatcherWithContext interface {
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// ListWatch is client-go's: either pair of functions may be set.
type ListWatch struct {
	ListFunc             ListFunc
	WatchFunc            WatchFunc
	ListWithContextFunc  ListWithContextFunc
	WatchFuncWithContext WatchFuncWithContext
	DisableChunking      bool
}

func (lw *ListWatch) List(options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListFunc != nil {
		return lw.ListFunc(options)
	}
	return lw.ListWithContextFunc(context.Background(), options)
}

func (lw *ListWatch) Watch(options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFunc != nil {
		return lw.WatchFunc(options)
	}
	return lw.WatchFuncWithContext(context.Background(), options)
}

func (lw *ListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListWithContextFunc != nil {
		return lw.ListWithContextFunc(ctx, options)
	}
	return lw.ListFunc(options)
}

func (lw *ListWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFuncWithContext != nil {
		return lw.WatchFuncWithContext(ctx, options)
	}
	return lw.WatchFunc(options)
}

// shimListerWatcher is informerlab's ListerWatcher over a client-go one:
// the context-aware methods when it has them, else the context is dropped.
func shimListerWatcher(lw ListerWatcher) reflector.ListerWatcher {
	if lw == nil {
		return nil
	}
	if c, ok := lw.(ListerWatcherWithContext); ok {
		return reflector.ListWatch{ListFunc: c.ListWithContext, WatchFunc: c.WatchWithContext}
	}
	return reflector.ListWatch{
		ListFunc: func(_ context.Context, o metav1.ListOptions) (runtime.Object, error) { return lw.List(o) },
		WatchFunc: func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return lw.Watch(o)
		},
	}
}
