package fakeapi

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/informerlab/informerlab/internal/kubejson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Objects are stored in a canonical form: an *unstructured.Unstructured whose
// map holds only what JSON decoding yields (map[string]any, []any, string,
// int64, float64, bool, nil). Typed and unstructured inputs both pass through
// JSON on the way in, which is also the deep copy; outputs are deep copies,
// converted to typed objects when the scheme knows the kind.

// canonical converts a client's object to the canonical form. The result
// shares nothing with obj.
func canonical(obj runtime.Object) (*unstructured.Unstructured, error) {
	if obj == nil || (reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil()) {
		return nil, apierrors.NewBadRequest("fakeapi: object is nil")
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("fakeapi: cannot encode object: %v", err))
	}
	return decodeObject(data)
}

// decodeObject decodes a JSON object into the canonical form.
func decodeObject(data []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("fakeapi: request body is not a JSON object: %v", err))
	}
	if m == nil {
		return nil, apierrors.NewBadRequest("fakeapi: request body is not a JSON object")
	}
	u := &unstructured.Unstructured{Object: m}
	// Typed objects encode an unset timestamp as null; drop such noise so a
	// typed and an unstructured client store the same thing.
	if md, ok := m["metadata"].(map[string]any); ok {
		for k, v := range md {
			if v == nil {
				delete(md, k)
			}
		}
	} else if _, present := m["metadata"]; present {
		return nil, apierrors.NewBadRequest("fakeapi: metadata must be a JSON object")
	}
	return u, nil
}

// output returns a deep copy of a stored object for a client: typed when
// typed is true (the scheme knows the kind), otherwise unstructured.
func (s *Server) output(r *resource, obj *unstructured.Unstructured, typed bool) (runtime.Object, error) {
	if !typed {
		return obj.DeepCopy(), nil
	}
	return s.toTyped(obj, r.gvk())
}

func (s *Server) toTyped(obj *unstructured.Unstructured, gvk schema.GroupVersionKind) (runtime.Object, error) {
	out, err := s.opts.Scheme.New(gvk)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: %w", err))
	}
	data, err := json.Marshal(obj.Object)
	if err == nil {
		err = kubejson.Unmarshal(data, out)
	}
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: cannot convert stored %s to %T: %w", gvk.Kind, out, err))
	}
	return out, nil
}

// outputList builds the list object a List returns.
func (s *Server) outputList(r *resource, lr *listResult, typed bool) (runtime.Object, error) {
	var list runtime.Object
	items := make([]runtime.Object, 0, len(lr.items))
	for _, it := range lr.items {
		o, err := s.output(r, it, typed)
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	if typed {
		l, err := s.opts.Scheme.New(r.listGVK())
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: %w", err))
		}
		list = l
	} else {
		ul := &unstructured.UnstructuredList{}
		ul.SetAPIVersion(r.apiVersion())
		ul.SetKind(r.info.ListKind)
		list = ul
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: %w", err))
	}
	if typed {
		list.GetObjectKind().SetGroupVersionKind(r.listGVK())
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: %w", err))
	}
	lm.SetResourceVersion(formatRV(lr.rv))
	lm.SetContinue(lr.cont)
	lm.SetRemainingItemCount(lr.remaining)
	if lr.shardInfo != "" {
		switch l := list.(type) {
		case *unstructured.UnstructuredList:
			l.Object["metadata"].(map[string]any)["shardInfo"] = map[string]any{"selector": lr.shardInfo}
		default:
			if li, ok := lm.(interface{ SetShardInfo(*metav1.ShardInfo) }); ok {
				li.SetShardInfo(&metav1.ShardInfo{Selector: lr.shardInfo})
			}
		}
	}
	return list, nil
}

// bookmarkObject is the object of a BOOKMARK event: kind, apiVersion and
// metadata.resourceVersion only (plus annotations for initial-events-end).
func bookmarkObject(r *resource, rv uint64, annotations map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(r.apiVersion())
	u.SetKind(r.info.Kind)
	u.SetResourceVersion(formatRV(rv))
	if annotations != nil {
		u.SetAnnotations(annotations)
	}
	return u
}

func formatRV(rv uint64) string { return fmt.Sprintf("%d", rv) }

// newUID returns a random RFC 4122 version 4 UUID.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// generatedSuffix returns 5 characters from the apiserver's alphabet (no
// vowels, so no words; no 0/1/3 to avoid confusion).
func generatedSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// now is the server's clock: wall time truncated to seconds, like
// metav1.Time's RFC 3339 encoding.
func now() metav1.Time { return metav1.NewTime(time.Now().UTC().Truncate(time.Second)) }

func setTimestamp(u *unstructured.Unstructured, field string, t metav1.Time) {
	md := metadataOf(u)
	md[field] = t.UTC().Format(time.RFC3339)
}

// metadataOf returns u's metadata map, creating it if absent.
func metadataOf(u *unstructured.Unstructured) map[string]any {
	md, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		u.Object["metadata"] = md
	}
	return md
}

// specOf is everything outside metadata and status (and type information):
// the part whose change bumps metadata.generation.
func specOf(u *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
		default:
			out[k] = v
		}
	}
	return out
}

// sameIgnoringRV reports whether a and b are equal apart from
// metadata.resourceVersion: an update producing such an object is a no-op.
func sameIgnoringRV(a, b *unstructured.Unstructured) bool {
	ac, bc := a.DeepCopy(), b.DeepCopy()
	delete(metadataOf(ac), "resourceVersion")
	delete(metadataOf(bc), "resourceVersion")
	return reflect.DeepEqual(ac.Object, bc.Object)
}

func typesUID(s string) types.UID { return types.UID(s) }
