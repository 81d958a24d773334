package fakeapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OpenAPI v3, as a kube-apiserver publishes it and kubectl reads it:
//
//	GET /openapi/v3                -> {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}
//	GET /openapi/v3/api/v1         -> the OpenAPI 3.0 document of one group version
//	GET /openapi/v3/apis/{g}/{v}
//
// A group version's document has, for every resource, the REST paths with
// their operations, each operation tagged with
// x-kubernetes-group-version-kind (kubectl explain finds a resource's kind
// that way), and a component schema per kind, tagged the same way. Every
// create, update and patch operation lists the fieldValidation query
// parameter: that is how kubectl learns that the server validates fields
// itself, and sends fieldValidation=Strict instead of validating on the
// client against a schema (which used to take --validate=false against
// fakeapi).

// openAPIResource is what the document needs to know of one resource,
// copied under the server's lock.
type openAPIResource struct {
	info  ResourceInfo
	model reflect.Type
}

// openAPIGroupVersions returns the document of every group version served,
// keyed by its path under /openapi/v3 ("api/v1", "apis/apps/v1").
func (s *Server) openAPIGroupVersions() map[string][]byte {
	s.mu.Lock()
	byGV := map[schema.GroupVersion][]openAPIResource{}
	for gvr, r := range s.resources {
		byGV[gvr.GroupVersion()] = append(byGV[gvr.GroupVersion()], openAPIResource{info: r.info, model: r.model})
	}
	s.mu.Unlock()

	out := make(map[string][]byte, len(byGV))
	for gv, rs := range byGV {
		sort.Slice(rs, func(i, j int) bool { return rs[i].info.GVR.Resource < rs[j].info.GVR.Resource })
		doc, err := json.Marshal(openAPIDocument(gv, rs))
		if err != nil {
			panic(fmt.Sprintf("fakeapi: encode the OpenAPI document of %v: %v", gv, err)) // built from plain maps: cannot fail
		}
		out[openAPIPath(gv)] = doc
	}
	return out
}

// openAPIPath is a group version's path under /openapi/v3.
func openAPIPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// openAPIHash is the hash the index puts in each document's URL, so a
// client's cache sees a new URL whenever a document changes.
func openAPIHash(doc []byte) string {
	sum := sha512.Sum512(doc)
	return strings.ToUpper(fmt.Sprintf("%x", sum[:]))
}

// openAPIDocument is the document of one group version.
func openAPIDocument(gv schema.GroupVersion, rs []openAPIResource) jsonSchema {
	b := newSchemaBuilder()
	b.components[statusSchemaName] = jsonSchema{
		"type":        "object",
		"description": "Status is the answer of a call that returns no other object, such as a delete.",
		"properties": jsonSchema{
			"apiVersion": jsonSchema{"type": "string"},
			"kind":       jsonSchema{"type": "string"},
			"status":     jsonSchema{"type": "string", "description": "Success or Failure."},
			"message":    jsonSchema{"type": "string"},
			"reason":     jsonSchema{"type": "string"},
			"code":       jsonSchema{"type": "integer", "format": "int32"},
			"details":    jsonSchema{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
		},
	}
	b.components["io.k8s.apimachinery.pkg.apis.meta.v1.Patch"] = jsonSchema{
		"type":        "object",
		"description": "Patch is the body of a PATCH request, in the format its Content-Type names.",
	}
	paths := jsonSchema{}
	for _, r := range rs {
		kindRef, listRef := b.resourceSchemas(r)
		addResourcePaths(paths, r, kindRef, listRef)
	}
	return jsonSchema{
		"openapi": "3.0.0",
		"info":    jsonSchema{"title": "Kubernetes (fakeapi)", "version": gv.String()},
		"paths":   paths,
		"components": jsonSchema{
			"schemas": b.components,
		},
	}
}

// resourceSchemas adds the component schemas of a resource's kind and list
// kind and returns references to them.
func (b *schemaBuilder) resourceSchemas(r openAPIResource) (kindRef, listRef string) {
	gv := r.info.GVR.GroupVersion()
	gvkExt := func(kind string) []any {
		return []any{jsonSchema{"group": gv.Group, "version": gv.Version, "kind": kind}}
	}
	var kindName string
	if r.model != nil {
		ref := b.component(r.model)["$ref"].(string)
		kindName = strings.TrimPrefix(ref, "#/components/schemas/")
	} else {
		kindName = schemalessName(gv, r.info.Kind)
		b.components[kindName] = jsonSchema{
			"type":        "object",
			"description": fmt.Sprintf("%s is served without a schema: any fields are accepted.", r.info.Kind),
			"properties": jsonSchema{
				"apiVersion": jsonSchema{"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
				"kind":       jsonSchema{"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
				"metadata":   b.fieldSchema(reflect.TypeFor[metav1.ObjectMeta](), "Standard object's metadata."),
			},
			"x-kubernetes-preserve-unknown-fields": true,
		}
	}
	kind := b.components[kindName]
	kind["x-kubernetes-group-version-kind"] = gvkExt(r.info.Kind)
	if _, ok := kind["description"]; !ok {
		if d := builtinKindDescriptions[r.info.Kind]; d != "" && r.model != nil && builtinModelNames[r.model] != "" {
			kind["description"] = d
		}
	}

	listName := kindName + "List"
	if r.info.ListKind != r.info.Kind+"List" {
		listName = strings.TrimSuffix(kindName, r.info.Kind) + r.info.ListKind
	}
	b.components[listName] = jsonSchema{
		"type":        "object",
		"description": fmt.Sprintf("%s is a list of %s.", r.info.ListKind, r.info.Kind),
		"required":    []string{"items"},
		"properties": jsonSchema{
			"apiVersion": jsonSchema{"type": "string"},
			"kind":       jsonSchema{"type": "string"},
			"metadata":   b.fieldSchema(reflect.TypeFor[metav1.ListMeta](), "Standard list metadata."),
			"items":      jsonSchema{"type": "array", "items": jsonSchema{"$ref": "#/components/schemas/" + kindName}},
		},
		"x-kubernetes-group-version-kind": gvkExt(r.info.ListKind),
	}
	return "#/components/schemas/" + kindName, "#/components/schemas/" + listName
}

// fieldSchema is the schema of a field of type t with a description.
func (b *schemaBuilder) fieldSchema(t reflect.Type, description string) jsonSchema {
	return jsonSchema{"allOf": []any{b.typeSchema(t)}, "default": jsonSchema{}, "description": description}
}

// schemalessName names the schema of a resource without a Go type the way
// kube-openapi names a custom resource's: the group reversed, the version,
// the kind.
func schemalessName(gv schema.GroupVersion, kind string) string {
	parts := strings.Split(gv.Group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	if gv.Group == "" {
		parts = []string{"io", "k8s", "api", "core"}
	}
	return strings.Join(append(parts, gv.Version, kind), ".")
}

// builtinKindDescriptions describe the built-in kinds for kubectl explain.
var builtinKindDescriptions = map[string]string{
	"ConfigMap": "ConfigMap holds configuration data for pods to consume.",
	"Namespace": "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
	"Event":     "Event is a report of an event somewhere in the cluster.",
	"Lease":     "Lease defines a lease concept.",
}
