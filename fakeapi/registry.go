package fakeapi

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ResourceInfo describes a resource the server serves: where it lives in the
// API (GVR), the Kind of its objects, and its shape.
//
// client-go: none (the apiserver's discovery entry is metav1.APIResource).
type ResourceInfo struct {
	GVR schema.GroupVersionResource
	// Kind is the object kind (ConfigMap). Required.
	Kind string
	// ListKind defaults to Kind + "List"; Singular to lower-case Kind.
	ListKind, Singular string
	// Namespaced resources live in a namespace; others are cluster-scoped.
	Namespaced bool
	// HasStatus gives the resource a /status subresource: the main endpoint
	// then ignores status changes and /status changes only status. It also
	// makes the server keep metadata.generation (see [Server.Register]).
	HasStatus bool
	// ShortNames are shown in discovery (kubectl get cm).
	ShortNames []string
	// Object is an empty object of the Go type the resource's objects
	// decode into (&samplecontroller.Foo{}). From its fields the server
	// derives the resource's OpenAPI schema (served at /openapi/v3, for
	// kubectl's validation and kubectl explain), applies strategic merge
	// patches by its patchStrategy and patchMergeKey tags, and finds
	// unknown fields (fieldValidation=Strict). Nil: the type in
	// Options.Scheme for Kind, if any; for the built-in kinds, fakeapi's
	// own model; otherwise the resource is schemaless: its schema accepts
	// any fields and strategic merge patches are refused (415), as a real
	// server does for a custom resource.
	Object runtime.Object
}

var builtinResources = []ResourceInfo{
	{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}},
	{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace", HasStatus: true, ShortNames: []string{"ns"}},
	{GVR: schema.GroupVersionResource{Version: "v1", Resource: "events"}, Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}},
	{GVR: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, Kind: "Lease", Namespaced: true},
}

// SecretResource describes core v1 Secrets, which a Server does not serve
// until registered: fakeapi models them (base64 data, stringData merged
// into data on write, type Opaque by default, at most 1 MiB of data).
var SecretResource = ResourceInfo{GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Kind: "Secret", Namespaced: true}

// resource is a registered resource and its objects.
type resource struct {
	info ResourceInfo
	// model is the Go type of the resource's objects (ResourceInfo.Object);
	// nil for a schemaless resource. Set at Register, never changed.
	model reflect.Type
	// decoder is the Go type a real server decodes the objects into, for a
	// kind of Kubernetes' own groups (builtin_types.go); nil otherwise. Set
	// at Register, never changed.
	decoder *goType
	// known is the type whose fields are the kind's known fields: decoder
	// if set, else the model's (nil with no model). Set at Register.
	known *goType
	// items maps "namespace/name" (or "name") to the stored object.
	// Guarded by Server.mu; the objects themselves are immutable.
	items map[string]*unstructured.Unstructured
}

func (r *resource) gvk() schema.GroupVersionKind {
	return r.info.GVR.GroupVersion().WithKind(r.info.Kind)
}
func (r *resource) listGVK() schema.GroupVersionKind {
	return r.info.GVR.GroupVersion().WithKind(r.info.ListKind)
}
func (r *resource) gr() schema.GroupResource { return r.info.GVR.GroupResource() }

// tracksGeneration reports whether the server keeps metadata.generation for
// r's objects. A real API server does so for kinds with a spec/status split
// (Deployments, custom resources with a status subresource: 1 on create,
// +1 on every spec change), and leaves it unset for the others (ConfigMaps,
// Secrets, Events, Leases). Here a status subresource marks the split; core
// v1 Namespaces are the exception, as on the real server, whose Namespace
// strategy never sets a generation.
func (r *resource) tracksGeneration() bool {
	return r.info.HasStatus && !(r.info.GVR.Group == "" && r.info.GVR.Resource == "namespaces")
}
func (r *resource) apiVersion() string { return r.info.GVR.GroupVersion().String() }

// key is the storage key of an object: "namespace/name", or "name" when
// cluster-scoped, the same as indexer.MetaNamespaceKeyFunc.
func (r *resource) key(ns, name string) string {
	if r.info.Namespaced {
		return ns + "/" + name
	}
	return name
}

// Register adds a resource. It fails if the GVR is already registered or the
// info is incomplete. Resources may be registered at any time.
//
// A resource with HasStatus has a spec/status split: the server sets its
// objects' metadata.generation to 1 on create and adds 1 on every change
// outside metadata and status, as a real API server does for Deployments
// and custom resources with a status subresource; controllers rely on it
// (GenerationChangedPredicate, status.observedGeneration). Objects of other
// resources have no generation, like ConfigMaps on a real server.
func (s *Server) Register(info ResourceInfo) error {
	if info.GVR.Resource == "" || info.GVR.Version == "" || info.Kind == "" {
		return fmt.Errorf("fakeapi: register %v: resource, version and kind are required", info.GVR)
	}
	if strings.Contains(info.GVR.Resource, "/") {
		return fmt.Errorf("fakeapi: register %v: resource name must not contain '/'", info.GVR)
	}
	if info.ListKind == "" {
		info.ListKind = info.Kind + "List"
	}
	if info.Singular == "" {
		info.Singular = strings.ToLower(info.Kind)
	}
	info.ShortNames = append([]string(nil), info.ShortNames...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.resources[info.GVR]; ok {
		return fmt.Errorf("fakeapi: register %v: already registered", info.GVR)
	}
	model := s.modelOf(info)
	decoder, err := decoderOf(info, model)
	if err != nil {
		return err
	}
	known := decoder
	if known == nil && model != nil {
		known = goTypeOf(model, map[reflect.Type]*goType{})
	}
	s.resources[info.GVR] = &resource{info: info, model: model, decoder: decoder, known: known, items: make(map[string]*unstructured.Unstructured)}
	return nil
}

// modelOf finds the Go type of a resource's objects: ResourceInfo.Object,
// else the type Options.Scheme has for the Kind, else fakeapi's model of a
// built-in kind, else none.
func (s *Server) modelOf(info ResourceInfo) reflect.Type {
	gvk := info.GVR.GroupVersion().WithKind(info.Kind)
	var t reflect.Type
	switch {
	case info.Object != nil:
		t = reflect.TypeOf(info.Object)
	case s.opts.Scheme != nil && s.opts.Scheme.Recognizes(gvk):
		obj, err := s.opts.Scheme.New(gvk)
		if err != nil {
			return builtinModels[gvk]
		}
		t = reflect.TypeOf(obj)
	default:
		return builtinModels[gvk]
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// Resources returns the registered resources, in no particular order.
func (s *Server) Resources() []ResourceInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ResourceInfo, 0, len(s.resources))
	for _, r := range s.resources {
		out = append(out, r.info)
	}
	return out
}

func (s *Server) lookup(gvr schema.GroupVersionResource) (*resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.resources[gvr]
	if !ok {
		return nil, errNoResource(gvr.GroupResource())
	}
	return r, nil
}

// typed reports whether the in-process client should return typed objects
// for r: the scheme must know both the Kind and the ListKind.
func (s *Server) typed(r *resource) bool {
	sc := s.opts.Scheme
	return sc != nil && sc.Recognizes(r.gvk()) && sc.Recognizes(r.listGVK())
}
