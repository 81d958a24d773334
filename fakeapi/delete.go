package fakeapi

import (
	"fmt"
	"slices"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Deletion, finalizers and owner-reference garbage collection.
//
// An object with finalizers is not removed by DELETE: it gets a
// deletionTimestamp (and, like the real server, a generation bump if its
// kind keeps one) and stays
// until an update removes its last finalizer. An object without finalizers
// is removed at once, and the garbage collector then deletes its dependents
// (objects whose ownerReferences name its uid) unless another owner of
// theirs still exists. propagationPolicy Orphan instead strips the owner
// reference from the dependents first.

// delete deletes or starts deleting an object. It returns the object's last
// state and whether it is gone (false: it only got a deletionTimestamp).
func (s *Server) delete(r *resource, ns, name string, opts metav1.DeleteOptions, silent bool) (*unstructured.Unstructured, bool, error) {
	if r.info.Namespaced && ns == "" {
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("%s is namespaced: a namespace is required", r.info.GVR.Resource))
	}
	if !r.info.Namespaced {
		ns = ""
	}
	orphan, err := orphanPolicy(opts)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, false, errClosed()
	}
	old, ok := r.items[r.key(ns, name)]
	if !ok {
		return nil, false, apierrors.NewNotFound(r.gr(), name)
	}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != old.GetUID() {
			return nil, false, apierrors.NewConflict(r.gr(), name,
				preconditionFailed("UID", string(*p.UID), string(old.GetUID())))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != old.GetResourceVersion() {
			return nil, false, apierrors.NewConflict(r.gr(), name,
				preconditionFailed("ResourceVersion", *p.ResourceVersion, old.GetResourceVersion()))
		}
	}
	if orphan {
		s.orphanDependentsLocked(old.GetUID(), silent)
	}
	obj, gone := s.deleteLocked(r, old, silent)
	return obj, gone, nil
}

// orphanPolicy reads the propagation policy: true for Orphan. Foreground is
// accepted and treated as Background (see doc.go).
func orphanPolicy(opts metav1.DeleteOptions) (bool, error) {
	//lint:ignore SA1019 the real server still honours the deprecated field
	orphanDeprecated := opts.OrphanDependents != nil && *opts.OrphanDependents
	if opts.PropagationPolicy == nil {
		return orphanDeprecated, nil
	}
	//lint:ignore SA1019 the real server still honours the deprecated field
	if opts.OrphanDependents != nil {
		return false, errInvalidOptions("DeleteOptions", field.ErrorList{field.Invalid(field.NewPath("propagationPolicy"),
			*opts.PropagationPolicy, "orphanDependents and propagationPolicy cannot both be set")})
	}
	switch *opts.PropagationPolicy {
	case metav1.DeletePropagationOrphan:
		return true, nil
	case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
		return false, nil
	}
	return false, errInvalidOptions("DeleteOptions", field.ErrorList{field.NotSupported(field.NewPath("propagationPolicy"),
		*opts.PropagationPolicy, []string{"Foreground", "Background", "Orphan"})})
}

// deleteLocked deletes old, or marks it for deletion if it has finalizers.
func (s *Server) deleteLocked(r *resource, old *unstructured.Unstructured, silent bool) (*unstructured.Unstructured, bool) {
	key := r.key(old.GetNamespace(), old.GetName())
	rv := s.rv + 1
	if len(old.GetFinalizers()) > 0 {
		if old.GetDeletionTimestamp() != nil {
			return old, false // already being deleted
		}
		nu := old.DeepCopy()
		setTimestamp(nu, "deletionTimestamp", now())
		metadataOf(nu)["deletionGracePeriodSeconds"] = int64(0)
		if old.GetGeneration() > 0 {
			// Like the real server (rest.BeforeDelete): the deletion is a
			// change of intent, for kinds that keep a generation.
			nu.SetGeneration(old.GetGeneration() + 1)
		}
		if r.info.GVR == namespacesGVR {
			// A namespace being deleted is Terminating: no new content.
			nu.Object["status"] = map[string]any{"phase": "Terminating"}
		}
		nu.SetResourceVersion(formatRV(rv))
		s.commitLocked(event{typ: modified, rv: rv, res: r, key: key, obj: nu, prev: old, silent: silent})
		return nu, false
	}
	last := old.DeepCopy()
	last.SetResourceVersion(formatRV(rv))
	s.commitLocked(event{typ: deleted, rv: rv, res: r, key: key, obj: last, prev: old, silent: silent})
	s.collectGarbageLocked(old.GetUID(), silent)
	return last, true
}

// dependent is a stored object with an owner reference to some uid.
type dependent struct {
	res *resource
	obj *unstructured.Unstructured
}

// dependentsLocked returns the objects owned by uid, in a stable order.
func (s *Server) dependentsLocked(uid types.UID) []dependent {
	var out []dependent
	for _, r := range s.sortedResourcesLocked() {
		keys := make([]string, 0, len(r.items))
		for k := range r.items {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o := r.items[k]
			if slices.ContainsFunc(o.GetOwnerReferences(), func(ref metav1.OwnerReference) bool { return ref.UID == uid }) {
				out = append(out, dependent{res: r, obj: o})
			}
		}
	}
	return out
}

func (s *Server) sortedResourcesLocked() []*resource {
	rs := make([]*resource, 0, len(s.resources))
	for _, r := range s.resources {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].info.GVR.String() < rs[j].info.GVR.String() })
	return rs
}

func (s *Server) uidExistsLocked(uid types.UID) bool {
	for _, r := range s.resources {
		for _, o := range r.items {
			if o.GetUID() == uid {
				return true
			}
		}
	}
	return false
}

// collectGarbageLocked runs the garbage collector for a deleted owner: each
// dependent with no other existing owner is deleted (recursively); one with
// another owner just loses the reference. The real collector is an
// asynchronous controller; here it runs right after the owner's deletion,
// one write (and one resourceVersion) per dependent.
func (s *Server) collectGarbageLocked(uid types.UID, silent bool) {
	for _, d := range s.dependentsLocked(uid) {
		cur, ok := d.res.items[d.res.key(d.obj.GetNamespace(), d.obj.GetName())]
		if !ok || cur.GetUID() != d.obj.GetUID() {
			continue // already collected through another path
		}
		others := slices.ContainsFunc(cur.GetOwnerReferences(), func(ref metav1.OwnerReference) bool {
			return ref.UID != uid && s.uidExistsLocked(ref.UID)
		})
		if others {
			s.dropOwnerRefLocked(d.res, cur, uid, silent)
			continue
		}
		s.deleteLocked(d.res, cur, silent)
	}
}

// orphanDependentsLocked removes the owner reference to uid from every
// dependent, so deleting the owner leaves them in place.
func (s *Server) orphanDependentsLocked(uid types.UID, silent bool) {
	for _, d := range s.dependentsLocked(uid) {
		s.dropOwnerRefLocked(d.res, d.obj, uid, silent)
	}
}

func (s *Server) dropOwnerRefLocked(r *resource, cur *unstructured.Unstructured, uid types.UID, silent bool) {
	nu := cur.DeepCopy()
	refs := slices.DeleteFunc(nu.GetOwnerReferences(), func(ref metav1.OwnerReference) bool { return ref.UID == uid })
	if len(refs) == 0 {
		refs = nil // removes the field rather than leaving an empty list
	}
	nu.SetOwnerReferences(refs)
	rv := s.rv + 1
	nu.SetResourceVersion(formatRV(rv))
	s.commitLocked(event{typ: modified, rv: rv, res: r, key: r.key(nu.GetNamespace(), nu.GetName()), obj: nu, prev: cur, silent: silent})
}
