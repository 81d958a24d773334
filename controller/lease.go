package controller

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

// leaseRecord is the part of a Lease's spec leader election uses.
type leaseRecord struct {
	holderIdentity       string
	leaseDurationSeconds int64
	acquireTime          time.Time
	renewTime            time.Time
	leaseTransitions     int64
}

// readLease turns what a LeaseClient returned into an unstructured Lease and
// its record.
func readLease(obj runtime.Object) (*unstructured.Unstructured, leaseRecord, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, leaseRecord{}, fmt.Errorf("controller: reading lease: %w", err)
		}
		u = &unstructured.Unstructured{Object: m}
	}
	var rec leaseRecord
	var err error
	rec.holderIdentity, _, _ = unstructured.NestedString(u.Object, "spec", "holderIdentity")
	rec.leaseDurationSeconds, _, _ = unstructured.NestedInt64(u.Object, "spec", "leaseDurationSeconds")
	rec.leaseTransitions, _, _ = unstructured.NestedInt64(u.Object, "spec", "leaseTransitions")
	if rec.acquireTime, err = leaseTime(u, "acquireTime"); err != nil {
		return nil, leaseRecord{}, err
	}
	if rec.renewTime, err = leaseTime(u, "renewTime"); err != nil {
		return nil, leaseRecord{}, err
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

// writeLease stores rec in u's spec.
func writeLease(u *unstructured.Unstructured, rec leaseRecord) {
	spec := map[string]any{
		"leaseDurationSeconds": rec.leaseDurationSeconds,
		"leaseTransitions":     rec.leaseTransitions,
		"acquireTime":          rec.acquireTime.UTC().Format(metav1.RFC3339Micro),
		"renewTime":            rec.renewTime.UTC().Format(metav1.RFC3339Micro),
	}
	if rec.holderIdentity != "" {
		spec["holderIdentity"] = rec.holderIdentity
	}
	u.Object["spec"] = spec
}

// newLease returns a Lease called name holding rec.
func newLease(name string, rec leaseRecord) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("coordination.k8s.io/v1")
	u.SetKind("Lease")
	u.SetName(name)
	writeLease(u, rec)
	return u
}
