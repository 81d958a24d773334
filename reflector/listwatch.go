package reflector

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// ListerWatcher is where a Reflector reads objects from: a List of every object
// of one resource, then a Watch of the changes after the list's resourceVersion.
//
// Both methods must return promptly once ctx is cancelled, and a Watch must
// close its result channel when ctx is cancelled or Stop is called. List must
// return a list object (meta.ExtractList works on it) whose ListMeta carries the
// snapshot's resourceVersion.
//
// fakeapi's and client's per-resource handles (*ResourceClient) have exactly
// these two methods, so they are ListerWatchers without an adapter.
//
// client-go: tools/cache.ListerWatcherWithContext.
type ListerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListWatch turns two functions into a ListerWatcher. It is the usual way to
// narrow a resource client, for example to add a label selector to every call.
// The Reflector may already have put its own (Options.LabelSelector) in the
// options: AND yours to it, with a comma, rather than overwrite it:
//
//	lw := reflector.ListWatch{
//		ListFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
//			o.LabelSelector = strings.Trim(o.LabelSelector+",app=web", ",")
//			return pods.List(ctx, o)
//		},
//		WatchFunc: ...,
//	}
//
// A ListWatch with a nil function returns an error from that method.
//
// client-go: tools/cache.ListWatch.
type ListWatch struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

var _ ListerWatcher = ListWatch{}

// List calls ListFunc.
func (lw ListWatch) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if lw.ListFunc == nil {
		return nil, errors.New("reflector: ListWatch has no ListFunc")
	}
	return lw.ListFunc(ctx, opts)
}

// Watch calls WatchFunc.
func (lw ListWatch) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFunc == nil {
		return nil, errors.New("reflector: ListWatch has no WatchFunc")
	}
	return lw.WatchFunc(ctx, opts)
}
