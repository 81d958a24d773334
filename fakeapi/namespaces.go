package fakeapi

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Namespaces. With Options.NamespaceLifecycle, a namespaced object can
// only be created in a namespace that exists, as the real server's
// NamespaceLifecycle admission plugin enforces:
//
//	namespace missing              404 NotFound   namespaces "x" not found
//	namespace being deleted        403 Forbidden  unable to create new content in namespace x because it is being terminated
//
// Only creates are checked: objects left in a namespace deleted after them
// (fakeapi has no namespace controller to delete them) can still be read,
// updated and deleted.
//
// A new server holds the namespaces a real cluster starts with, as its
// initial state at resourceVersion 1 (like etcd's state before the first
// write): no event announces them, and a list or a watch from "0" shows
// them.

// DefaultNamespaces are the namespaces every new Server holds: those a real
// kube-apiserver creates when it starts.
var DefaultNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, "kube-node-lease"}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// seedNamespaces stores DefaultNamespaces at initialRV. Called by New only.
func (s *Server) seedNamespaces() {
	r := s.resources[namespacesGVR]
	for _, name := range DefaultNamespaces {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1",
			"kind":       "Namespace",
			"metadata":   map[string]any{"name": name},
			"status":     map[string]any{"phase": "Active"},
		}}
		u.SetUID(typesUID(newUID()))
		setTimestamp(u, "creationTimestamp", now())
		u.SetResourceVersion(formatRV(initialRV))
		r.items[r.key("", name)] = u
	}
}

// checkNamespace refuses a create in a namespace that is missing or being
// deleted (see checkNamespaceLocked), when Options.NamespaceLifecycle is on.
func (s *Server) checkNamespace(r *resource, ns, name string) error {
	if !s.opts.NamespaceLifecycle {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkNamespaceLocked(r, ns, name)
}

// checkNamespaceLocked refuses a create in namespace ns of resource r when
// ns does not exist or is being deleted.
func (s *Server) checkNamespaceLocked(r *resource, ns, name string) error {
	if !r.info.Namespaced {
		return nil
	}
	nsr := s.resources[namespacesGVR]
	o, ok := nsr.items[nsr.key("", ns)]
	if !ok {
		return apierrors.NewNotFound(nsr.gr(), ns)
	}
	if terminating(o) {
		err := apierrors.NewForbidden(r.gr(), name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    "NamespaceTerminating",
			Message: fmt.Sprintf("namespace %s is being terminated", ns),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}

// terminating reports whether a namespace is being deleted.
func terminating(ns *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(ns.Object, "status", "phase")
	return ns.GetDeletionTimestamp() != nil || phase == "Terminating"
}
