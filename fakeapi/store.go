package fakeapi

import (
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The write path. Every write takes Server.mu, builds a fresh object,
// stamps it with the next resourceVersion and hands it to commitLocked, the
// only place where storage, history and watches change.

// serverManagedFields are metadata fields a client cannot set: create
// assigns them, update carries them over from the stored object.
var serverManagedFields = []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"}

// commitLocked applies ev (its rv is s.rv+1 and its obj is stamped with it),
// appends it to history, trims history to the window, and offers it to every
// open watch unless it is silent.
func (s *Server) commitLocked(ev event) {
	s.rv = ev.rv
	if ev.typ == deleted {
		delete(ev.res.items, ev.key)
	} else {
		ev.res.items[ev.key] = ev.obj
	}
	s.history = append(s.history, ev)
	if drop := len(s.history) - s.opts.HistoryLimit; drop > 0 {
		s.compactedRV = s.history[drop-1].rv
		s.history = s.history[drop:]
	}
	if ev.silent {
		s.faults.SilentWrites++
		s.logger.Info("fakeapi fault: silent write", "resource", ev.res.info.GVR.Resource, "key", ev.key, "resourceVersion", ev.rv)
		return
	}
	for w := range s.watchers {
		s.offerLocked(w, ev)
	}
}

// checkTypeInfo fills in apiVersion and kind, rejecting a body meant for
// another resource.
func checkTypeInfo(r *resource, u *unstructured.Unstructured) error {
	if av := u.GetAPIVersion(); av != "" && av != r.apiVersion() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", av, r.apiVersion()))
	}
	if k := u.GetKind(); k != "" && k != r.info.Kind {
		return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", k, r.info.Kind))
	}
	u.SetAPIVersion(r.apiVersion())
	u.SetKind(r.info.Kind)
	return nil
}

// resolveNamespace reconciles the request's namespace with the object's.
func resolveNamespace(r *resource, ns string, u *unstructured.Unstructured) (string, error) {
	if !r.info.Namespaced {
		if ns != "" {
			return "", apierrors.NewBadRequest(fmt.Sprintf("%s is cluster-scoped: no namespace may be given", r.info.GVR.Resource))
		}
		u.SetNamespace("")
		return "", nil
	}
	objNS := u.GetNamespace()
	switch {
	case ns == "" && objNS == "":
		return "", apierrors.NewBadRequest(fmt.Sprintf("%s is namespaced: a namespace is required", r.info.GVR.Resource))
	case ns == "":
		ns = objNS
	case objNS != "" && objNS != ns:
		return "", apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	u.SetNamespace(ns)
	return ns, nil
}

// create stores a new object. u is owned by the server from here on. The
// checks come in the real server's order: decoding (400), the namespace
// (404, 403), validation (422), then storage (409).
func (s *Server) create(r *resource, ns string, u *unstructured.Unstructured, silent bool, fc *fieldCheck) (*unstructured.Unstructured, error) {
	if err := checkTypeInfo(r, u); err != nil {
		return nil, err
	}
	if err := readFields(r, u, fc); err != nil {
		return nil, err
	}
	if _, err := resolveNamespace(r, ns, u); err != nil {
		return nil, err
	}
	if u.GetResourceVersion() != "" {
		return nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	md := metadataOf(u)
	for _, f := range serverManagedFields {
		delete(md, f)
	}
	delete(md, "managedFields")
	delete(md, "selfLink")
	generate := u.GetName() == "" && u.GetGenerateName() != ""
	if generate {
		u.SetName(u.GetGenerateName() + "xxxxx") // validated with a placeholder suffix
	}
	if err := s.checkNamespace(r, u.GetNamespace(), u.GetName()); err != nil {
		return nil, err
	}
	if err := validateMeta(r, u); err != nil {
		return nil, err
	}
	if err := validateBuiltin(r, u); err != nil {
		return nil, err
	}
	if err := validateLease(r, u); err != nil {
		return nil, err
	}
	if r.info.HasStatus {
		// With a status subresource, create ignores status like the real
		// server's strategies; a Namespace starts Active.
		delete(u.Object, "status")
		if r.info.GVR.Group == "" && r.info.GVR.Resource == "namespaces" {
			u.Object["status"] = map[string]any{"phase": "Active"}
		}
	}
	if err := s.checkSchema(r, u); err != nil {
		return nil, err
	}
	u.SetUID(typesUID(newUID()))
	setTimestamp(u, "creationTimestamp", now())
	if r.tracksGeneration() {
		u.SetGeneration(1)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, errClosed()
	}
	if generate {
		for range 10 {
			u.SetName(u.GetGenerateName() + generatedSuffix())
			if _, taken := r.items[r.key(u.GetNamespace(), u.GetName())]; !taken {
				break
			}
		}
	}
	key := r.key(u.GetNamespace(), u.GetName())
	if _, exists := r.items[key]; exists {
		return nil, apierrors.NewAlreadyExists(r.gr(), u.GetName())
	}
	rv := s.rv + 1
	u.SetResourceVersion(formatRV(rv))
	s.commitLocked(event{typ: added, rv: rv, res: r, key: key, obj: u, silent: silent})
	return u, nil
}

// update replaces a stored object (status=false) or its status (status=true).
func (s *Server) update(r *resource, ns string, u *unstructured.Unstructured, status, silent bool, fc *fieldCheck) (*unstructured.Unstructured, error) {
	if err := checkTypeInfo(r, u); err != nil {
		return nil, err
	}
	if err := readFields(r, u, fc); err != nil {
		return nil, err
	}
	if _, err := resolveNamespace(r, ns, u); err != nil {
		return nil, err
	}
	if status && !r.info.HasStatus {
		return nil, errNoResource(r.gr())
	}
	if u.GetName() == "" {
		return nil, errInvalid(r, "", field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name is required")})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, errClosed()
	}
	old, ok := r.items[r.key(u.GetNamespace(), u.GetName())]
	if !ok {
		return nil, apierrors.NewNotFound(r.gr(), u.GetName())
	}
	return s.updateLocked(r, old, u, status, silent)
}

// updateLocked turns the client's desired object in into the next stored
// state of old and commits it. It implements optimistic concurrency, the
// status subresource split, schema validation, the generation rule, no-op
// detection, and deletion when the last finalizer of a deleting object goes.
func (s *Server) updateLocked(r *resource, old, in *unstructured.Unstructured, status, silent bool) (*unstructured.Unstructured, error) {
	name := old.GetName()
	if rv := in.GetResourceVersion(); rv != "" && rv != old.GetResourceVersion() {
		return nil, errConflict(r, name)
	}
	if uid := in.GetUID(); uid != "" && uid != old.GetUID() {
		return nil, apierrors.NewConflict(r.gr(), name,
			preconditionFailed("UID", string(uid), string(old.GetUID())))
	}
	var nu *unstructured.Unstructured
	if status {
		// /status changes status and nothing else.
		nu = old.DeepCopy()
		copyField(nu.Object, in.Object, "status")
	} else {
		nu = in
		if r.info.HasStatus {
			// The main endpoint ignores status changes.
			copyField(nu.Object, old.Object, "status")
		}
		md, omd := metadataOf(nu), metadataOf(old)
		for _, f := range serverManagedFields {
			copyField(md, omd, f)
		}
		delete(md, "managedFields")
		delete(md, "selfLink")
		if err := validateMeta(r, nu); err != nil {
			return nil, err
		}
		if old.GetDeletionTimestamp() != nil {
			if added := sets.New(nu.GetFinalizers()...).Difference(sets.New(old.GetFinalizers()...)); added.Len() > 0 {
				return nil, errInvalid(r, name, field.ErrorList{field.Forbidden(field.NewPath("metadata", "finalizers"),
					fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %q", sets.List(added)))})
			}
		}
	}
	if err := validateBuiltin(r, nu); err != nil {
		return nil, err
	}
	if err := validateLease(r, nu); err != nil {
		return nil, err
	}
	if err := s.checkSchema(r, nu); err != nil {
		return nil, err
	}
	nu.SetResourceVersion(old.GetResourceVersion())
	if sameIgnoringRV(nu, old) {
		return old, nil // a no-op update: no new resourceVersion, no event
	}
	if r.tracksGeneration() && !reflect.DeepEqual(specOf(nu), specOf(old)) {
		nu.SetGeneration(old.GetGeneration() + 1)
	}
	rv := s.rv + 1
	key := r.key(nu.GetNamespace(), name)
	if nu.GetDeletionTimestamp() != nil && len(nu.GetFinalizers()) == 0 {
		// The last finalizer is gone: the object is deleted now. Its
		// DELETED event carries the deletion's resourceVersion, but the
		// writer's answer, like the real server's, is the object it sent
		// at the resourceVersion it replaced: no new version of it is ever
		// stored, so none can be reported.
		// kube-apiserver: genericregistry.Store.Update -> deleteWithoutFinalizers.
		last := nu.DeepCopy()
		last.SetResourceVersion(formatRV(rv))
		s.commitLocked(event{typ: deleted, rv: rv, res: r, key: key, obj: last, prev: old, silent: silent})
		s.collectGarbageLocked(old.GetUID(), silent)
		return nu, nil
	}
	nu.SetResourceVersion(formatRV(rv))
	s.commitLocked(event{typ: modified, rv: rv, res: r, key: key, obj: nu, prev: old, silent: silent})
	return nu, nil
}

// copyField sets dst[f] to a deep copy of src[f], or deletes it when src has none.
func copyField(dst, src map[string]any, f string) {
	if v, ok := src[f]; ok {
		dst[f] = runtime.DeepCopyJSONValue(v)
	} else {
		delete(dst, f)
	}
}
