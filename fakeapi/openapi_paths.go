package fakeapi

import (
	"strings"
)

// addResourcePaths adds the REST paths of one resource to an OpenAPI
// document's paths, with the operations fakeapi serves on each:
//
//	{prefix}[/namespaces/{namespace}]/{resource}          get (list), post, delete (collection)
//	{prefix}[/namespaces/{namespace}]/{resource}/{name}   get, put, patch, delete
//	{prefix}[/namespaces/{namespace}]/{resource}/{name}/status   get, put, patch (HasStatus)
//	{prefix}/{resource}                                  get (list across namespaces; namespaced only)
func addResourcePaths(paths jsonSchema, r openAPIResource, kindRef, listRef string) {
	info := r.info
	gv := info.GVR.GroupVersion()
	prefix := "/" + openAPIPath(gv)
	base := prefix
	var pathParams []any
	if info.Namespaced {
		base += "/namespaces/{namespace}"
		pathParams = append(pathParams, pathParam("namespace", "object name and auth scope, such as for teams and projects"))
	}
	collection := base + "/" + info.GVR.Resource
	item := collection + "/{name}"
	gvk := jsonSchema{"group": gv.Group, "version": gv.Version, "kind": info.Kind}
	op := func(verb, action, id string, params []any, body, response string) jsonSchema {
		o := jsonSchema{
			"operationId":                     verb + id,
			"tags":                            []string{strings.ReplaceAll(openAPIPath(gv), "/", "_")},
			"x-kubernetes-action":             action,
			"x-kubernetes-group-version-kind": gvk,
			"parameters":                      params,
			"responses": jsonSchema{"200": jsonSchema{
				"description": "OK",
				"content":     jsonSchema{"application/json": jsonSchema{"schema": jsonSchema{"$ref": response}}},
			}},
		}
		if body != "" {
			o["requestBody"] = requestBody(body, kindRef, r.model != nil)
		}
		return o
	}
	id := strings.ToUpper(info.Kind[:1]) + info.Kind[1:]
	if info.Namespaced {
		id = "Namespaced" + id
	}

	paths[collection] = jsonSchema{
		"parameters": pathParams,
		"get":        op("list", "list", id, listParams(), "", listRef),
		"post":       op("create", "post", id, writeParams(), "object", kindRef),
		"delete":     op("deletecollection", "deletecollection", id, listParams(), "", "#/components/schemas/"+statusSchemaName),
	}
	itemParams := append(append([]any{}, pathParams...), pathParam("name", "name of the "+info.Kind))
	paths[item] = jsonSchema{
		"parameters": itemParams,
		"get":        op("read", "get", id, nil, "", kindRef),
		"put":        op("replace", "put", id, writeParams(), "object", kindRef),
		"patch":      op("patch", "patch", id, writeParams(), "patch", kindRef),
		"delete":     op("delete", "delete", id, nil, "", "#/components/schemas/"+statusSchemaName),
	}
	if info.HasStatus {
		paths[item+"/status"] = jsonSchema{
			"parameters": itemParams,
			"get":        op("read", "get", id+"Status", nil, "", kindRef),
			"put":        op("replace", "put", id+"Status", writeParams(), "object", kindRef),
			"patch":      op("patch", "patch", id+"Status", writeParams(), "patch", kindRef),
		}
	}
	if info.Namespaced {
		paths[prefix+"/"+info.GVR.Resource] = jsonSchema{
			"get": op("list", "list", strings.TrimPrefix(id, "Namespaced")+"ForAllNamespaces", listParams(), "", listRef),
		}
	}
}

// statusSchemaName is the component every document gets for a delete's
// answer.
const statusSchemaName = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"

func pathParam(name, description string) jsonSchema {
	return jsonSchema{"name": name, "in": "path", "required": true, "description": description,
		"schema": jsonSchema{"type": "string", "uniqueItems": true}}
}

func queryParam(name, typ, description string) jsonSchema {
	return jsonSchema{"name": name, "in": "query", "description": description,
		"schema": jsonSchema{"type": typ, "uniqueItems": true}}
}

// writeParams are the query parameters of create, update and patch. The
// fieldValidation parameter is the one kubectl looks for.
func writeParams() []any {
	return []any{
		queryParam("dryRun", "string", "When present, indicates that modifications should not be persisted. fakeapi refuses dry runs."),
		queryParam("fieldManager", "string", "A name associated with the actor or entity that is making these changes."),
		queryParam("fieldValidation", "string", "How the server treats fields the schema does not know: Ignore, Warn (a warning header) or Strict (the request fails)."),
	}
}

func listParams() []any {
	return []any{
		queryParam("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
		queryParam("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields: metadata.name and metadata.namespace."),
		queryParam("limit", "integer", "The maximum number of objects to return in one page."),
		queryParam("continue", "string", "The continue token of the previous page."),
		queryParam("resourceVersion", "string", "Which resourceVersion the list may be served at."),
		queryParam("resourceVersionMatch", "string", "How resourceVersion applies: NotOlderThan or Exact."),
		queryParam("watch", "boolean", "Watch for changes instead of listing."),
		queryParam("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events on a watch."),
		queryParam("sendInitialEvents", "boolean", "Start a watch with the current state as ADDED events."),
		queryParam("timeoutSeconds", "integer", "How long the call may last."),
	}
}

// requestBody is the body of a create, update (kind "object") or patch. The
// strategic merge patch media type is listed only for a resource with a Go
// type, which is the only kind fakeapi applies strategic merge patches to.
func requestBody(kind, kindRef string, hasModel bool) jsonSchema {
	ref := jsonSchema{"schema": jsonSchema{"$ref": kindRef}}
	if kind == "object" {
		return jsonSchema{"required": true, "content": jsonSchema{"application/json": ref}}
	}
	patch := jsonSchema{"schema": jsonSchema{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}}
	content := jsonSchema{
		"application/json-patch+json":  patch,
		"application/merge-patch+json": patch,
	}
	if hasModel {
		content["application/strategic-merge-patch+json"] = patch
	}
	return jsonSchema{"required": true, "content": content}
}
