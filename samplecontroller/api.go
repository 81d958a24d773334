package samplecontroller

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// Resource is a handle on one resource in one namespace: the methods that
// fakeapi.ResourceClient (in-process) and client.ResourceClient (over HTTP)
// share. List and Watch make it a reflector.ListerWatcher, for the
// informers; the rest are the writes.
//
// client-go: dynamic.ResourceInterface.
type Resource interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error)
	Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error)
	Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
	UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// API returns the handle of a resource in a namespace ("" for all
// namespaces). It is the one line that chooses where the controller runs:
//
//	api := func(gvr schema.GroupVersionResource, ns string) samplecontroller.Resource {
//		return server.Resource(gvr).Namespace(ns) // fakeapi in-process, or a client.Client over HTTP
//	}
//
// The handles may return typed objects (built with a scheme that knows
// AddToScheme's types) or unstructured ones; the controller converts the
// latter.
//
// client-go: dynamic.Interface.
type API func(gvr schema.GroupVersionResource, namespace string) Resource

// typedAPI returns an API whose Foo and Deployment handles return only
// typed objects; other resources' handles are api's own.
func typedAPI(api API, scheme *runtime.Scheme) API {
	return func(gvr schema.GroupVersionResource, ns string) Resource {
		switch gvr {
		case FoosGVR:
			return typedResource{Resource: api(gvr, ns), scheme: scheme, gvk: FooGVK}
		case DeploymentsGVR:
			return typedResource{Resource: api(gvr, ns), scheme: scheme, gvk: DeploymentGVK}
		}
		return api(gvr, ns)
	}
}

// typedResource wraps a Resource so that everything it returns is typed:
// a Foo or Deployment handed out unstructured is converted through
// scheme. The informers' caches then hold *Foo and *Deployment whatever
// the handle does.
type typedResource struct {
	Resource
	scheme *runtime.Scheme
	gvk    schema.GroupVersionKind // of the objects; the list kind is gvk.Kind+"List"
}

func (r typedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := r.Resource.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	ul, ok := obj.(*unstructured.UnstructuredList)
	if !ok {
		return obj, nil
	}
	list, err := r.scheme.New(r.gvk.GroupVersion().WithKind(r.gvk.Kind + "List"))
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	items := make([]runtime.Object, 0, len(ul.Items))
	for i := range ul.Items {
		item, err := r.convert(&ul.Items[i])
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	lm.SetResourceVersion(ul.GetResourceVersion())
	lm.SetContinue(ul.GetContinue())
	lm.SetRemainingItemCount(ul.GetRemainingItemCount())
	return list, nil
}

func (r typedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := r.Resource.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return newConvertingWatch(ctx, w, r.convert), nil
}

func (r typedResource) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	return r.converted(r.Resource.Get(ctx, name, opts))
}

func (r typedResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	return r.converted(r.Resource.Create(ctx, obj, opts))
}

func (r typedResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	return r.converted(r.Resource.Update(ctx, obj, opts))
}

func (r typedResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	return r.converted(r.Resource.UpdateStatus(ctx, obj, opts))
}

func (r typedResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	return r.converted(r.Resource.Patch(ctx, name, pt, data, opts))
}

func (r typedResource) converted(obj runtime.Object, err error) (runtime.Object, error) {
	if err != nil {
		return nil, err
	}
	return r.convert(obj)
}

// convert returns obj as its Go type if it is unstructured, obj otherwise.
func (r typedResource) convert(obj runtime.Object) (runtime.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	out, err := r.scheme.New(r.gvk)
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, fmt.Errorf("samplecontroller: converting %s %s/%s: %w", r.gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	out.GetObjectKind().SetGroupVersionKind(r.gvk)
	return out, nil
}

// convertingWatch passes a watch's events through convert. One goroutine
// moves the events; it exits when the inner watch ends, when Stop is
// called, or when ctx ends, and then closes the result channel.
type convertingWatch struct {
	in      watch.Interface
	out     chan watch.Event
	stop    chan struct{}
	stopped sync.Once
}

func newConvertingWatch(ctx context.Context, in watch.Interface, convert func(runtime.Object) (runtime.Object, error)) *convertingWatch {
	w := &convertingWatch{in: in, out: make(chan watch.Event), stop: make(chan struct{})}
	go func() {
		defer close(w.out)
		defer in.Stop()
		for ev := range in.ResultChan() {
			if ev.Type != watch.Error { // an Error event carries a *metav1.Status, not an object
				obj, err := convert(ev.Object)
				if err != nil {
					ev = watch.Event{Type: watch.Error, Object: &metav1.Status{
						Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: err.Error(),
					}}
				} else {
					ev.Object = obj
				}
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return w
}

func (w *convertingWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *convertingWatch) Stop() {
	w.stopped.Do(func() { close(w.stop) })
	w.in.Stop()
}
