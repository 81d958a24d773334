package leaderelection

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// LeaseClient reads and writes coordination.k8s.io/v1 Lease objects in one
// namespace. It is three methods of the resource handles of packages fakeapi
// and client, so either fits as it is:
//
//	server.Resource(leasesGVR).Namespace("kube-system")   // in-process
//	client.Resource(leasesGVR).Namespace("kube-system")   // over HTTP
//
// Leases may come back typed or unstructured; both are handled.
//
// client-go: tools/leaderelection/resourcelock.LeaseLock (over a typed
// CoordinationV1 client).
type LeaseClient interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error)
	Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error)
	Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
}

// LeaseRecord is the part of a Lease's spec leader election uses.
type LeaseRecord struct {
	HolderIdentity       string
	LeaseDurationSeconds int64
	AcquireTime          time.Time
	RenewTime            time.Time
	LeaseTransitions     int64
}

// ReadLease turns what a LeaseClient returned into an unstructured Lease and
// its record.
func ReadLease(obj runtime.Object) (*unstructured.Unstructured, LeaseRecord, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, LeaseRecord{}, fmt.Errorf("controller: reading lease: %w", err)
		}
		u = &unstructured.Unstructured{Object: m}
	}
	var rec LeaseRecord
	var err error
	rec.HolderIdentity, _, _ = unstructured.NestedString(u.Object, "spec", "holderIdentity")
	rec.LeaseDurationSeconds, _, _ = unstructured.NestedInt64(u.Object, "spec", "leaseDurationSeconds")
	rec.LeaseTransitions, _, _ = unstructured.NestedInt64(u.Object, "spec", "leaseTransitions")
	if rec.AcquireTime, err = leaseTime(u, "acquireTime"); err != nil {
		return nil, LeaseRecord{}, err
	}
	if rec.RenewTime, err = leaseTime(u, "renewTime"); err != nil {
		return nil, LeaseRecord{}, err
	}
	return u, rec, nil
}

// leaseTime reads a MicroTime field of the spec; missing is the zero time.
func leaseTime(u *unstructured.Unstructured, field string) (time.Time, error) {
	s, found, err := unstructured.NestedString(u.Object, "spec", field)
	if err != nil || !found || s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(metav1.RFC3339Micro, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("controller: lease %s: spec.%s: %w", u.GetName(), field, err)
	}
	return t, nil
}

// WriteLease stores rec in u's spec, replacing what the spec held: what an
// Update of a Lease read with [ReadLease] carries. A shard ring writes its
// bucket Leases with it.
func WriteLease(u *unstructured.Unstructured, rec LeaseRecord) {
	spec := map[string]any{
		"leaseDurationSeconds": rec.LeaseDurationSeconds,
		"leaseTransitions":     rec.LeaseTransitions,
		"acquireTime":          rec.AcquireTime.UTC().Format(metav1.RFC3339Micro),
		"renewTime":            rec.RenewTime.UTC().Format(metav1.RFC3339Micro),
	}
	if rec.HolderIdentity != "" {
		spec["holderIdentity"] = rec.HolderIdentity
	}
	u.Object["spec"] = spec
}

// NewLease returns a Lease called name holding rec, ready to Create.
func NewLease(name string, rec LeaseRecord) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("coordination.k8s.io/v1")
	u.SetKind("Lease")
	u.SetName(name)
	WriteLease(u, rec)
	return u
}
