package ctrlutil

import (
	"context"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KindOf returns obj's kind: its apiVersion and kind if set, else what
// scheme (which may be nil) registers for its Go type.
func KindOf(scheme *runtime.Scheme, obj runtime.Object) (schema.GroupVersionKind, bool) {
	if v := reflect.ValueOf(obj); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return schema.GroupVersionKind{}, false
	}
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" && gvk.Version != "" {
		return gvk, true
	}
	if scheme != nil {
		if kinds, _, err := scheme.ObjectKinds(obj); err == nil && len(kinds) == 1 {
			return kinds[0], true
		}
	}
	return schema.GroupVersionKind{}, false
}

// ResourceName names a resource as kubectl does: configmaps, leases.coordination.k8s.io.
func ResourceName(gvr schema.GroupVersionResource) string {
	return gvr.GroupResource().String()
}

// Sleep waits d, reporting false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
