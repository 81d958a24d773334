package client_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
)

// wireServer is a small in-memory API server for the client's tests. It answers in the
// shapes of WIRE.md: list items without kind/apiVersion, errors as metav1.Status,
// 409 on a stale resourceVersion, DELETE answering a Success Status. It knows
// configmaps (v1, namespaced), namespaces (v1, cluster-scoped) and widgets
// (example.com/v1, namespaced, with a status subresource), answers discovery
// for them, and records every request but discovery's.
type wireServer struct {
	mu       sync.Mutex                // guards rv, objects and requests
	rv       int                       // the last resourceVersion handed out
	objects  map[string]map[string]any // by "resource/namespace/name"
	requests []recorded
}

type recorded struct {
	Method, Path, ContentType, Accept, Authorization string
	Query                                            url.Values
	Body                                             string
}

type kindInfo struct{ apiVersion, kind string }

var wireKinds = map[string]kindInfo{
	"configmaps": {"v1", "ConfigMap"},
	"namespaces": {"v1", "Namespace"},
	"widgets":    {"example.com/v1", "Widget"},
}

// newWireServer starts the server and a Client for it (typed ConfigMaps, rest unstructured).
func newWireServer(t *testing.T) (*wireServer, *client.Client) {
	t.Helper()
	ws := &wireServer{objects: map[string]map[string]any{}}
	srv := httptest.NewServer(ws)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Server: srv.URL}, newScheme())
	require.NoError(t, err)
	return ws, c
}

// seed stores an object directly, as if created earlier.
func (ws *wireServer) seed(resource, namespace, name string, fields map[string]any) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.rv++
	info := wireKinds[resource]
	obj := map[string]any{"apiVersion": info.apiVersion, "kind": info.kind}
	maps.Copy(obj, fields)
	md := map[string]any{"name": name, "resourceVersion": strconv.Itoa(ws.rv), "uid": fmt.Sprintf("uid-%d", ws.rv)}
	if namespace != "" {
		md["namespace"] = namespace
	}
	obj["metadata"] = md
	ws.objects[resource+"/"+namespace+"/"+name] = obj
}

// last returns the last request recorded.
func (ws *wireServer) last() recorded {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.requests[len(ws.requests)-1]
}

// route is a parsed API path.
type route struct{ resource, namespace, name, sub string }

func parseRoute(p string) (route, bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api" && parts[1] == "v1":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis" && parts[1] == "example.com" && parts[2] == "v1":
		parts = parts[3:]
	default:
		return route{}, false
	}
	var r route
	if len(parts) >= 3 && parts[0] == "namespaces" {
		r.namespace, parts = parts[1], parts[2:]
	}
	if len(parts) == 0 || len(parts) > 3 {
		return route{}, false
	}
	r.resource = parts[0]
	if len(parts) > 1 {
		r.name = parts[1]
	}
	if len(parts) > 2 {
		r.sub = parts[2]
	}
	_, known := wireKinds[r.resource]
	return r, known
}

func (ws *wireServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/api/v1" {
		serveDiscovery(w, "v1")
		return
	}
	if gv, ok := strings.CutPrefix(req.URL.Path, "/apis/"); ok && strings.Count(gv, "/") == 1 {
		serveDiscovery(w, gv)
		return
	}
	body, _ := io.ReadAll(req.Body)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.requests = append(ws.requests, recorded{
		Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Body: string(body),
		ContentType: req.Header.Get("Content-Type"), Accept: req.Header.Get("Accept"),
		Authorization: req.Header.Get("Authorization"),
	})
	if req.Header.Get("Accept") != "application/json" {
		writeStatus(w, 406, "NotAcceptable", "only application/json is served", nil)
		return
	}
	r, ok := parseRoute(req.URL.Path)
	if !ok {
		writeStatus(w, 404, "NotFound", "the server could not find the requested resource", nil)
		return
	}
	info := wireKinds[r.resource]
	key := r.resource + "/" + r.namespace + "/" + r.name
	switch {
	case req.Method == http.MethodGet && r.name == "":
		ws.listLocked(w, r, info)
	case req.Method == http.MethodGet:
		obj, ok := ws.objects[key]
		if !ok {
			writeNotFound(w, r, info)
			return
		}
		writeJSON(w, 200, obj)
	case req.Method == http.MethodPost && r.name == "":
		ws.createLocked(w, r, info, body)
	case req.Method == http.MethodPut:
		ws.updateLocked(w, r, info, key, body)
	case req.Method == http.MethodPatch:
		ws.patchLocked(w, r, info, key, body, req.Header.Get("Content-Type"))
	case req.Method == http.MethodDelete:
		obj, ok := ws.objects[key]
		if !ok {
			writeNotFound(w, r, info)
			return
		}
		delete(ws.objects, key)
		md := obj["metadata"].(map[string]any)
		writeJSON(w, 200, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
			"status": "Success", "details": map[string]any{"name": r.name, "kind": r.resource, "uid": md["uid"]}})
	default:
		writeStatus(w, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource", nil)
	}
}

func (ws *wireServer) listLocked(w http.ResponseWriter, r route, info kindInfo) {
	var names []string
	for k := range ws.objects {
		if strings.HasPrefix(k, r.resource+"/") && (r.namespace == "" || strings.HasPrefix(k, r.resource+"/"+r.namespace+"/")) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	items := []any{}
	for _, k := range names {
		item := maps.Clone(ws.objects[k])
		delete(item, "kind") // WIRE.md: list items carry no kind/apiVersion
		delete(item, "apiVersion")
		items = append(items, item)
	}
	writeJSON(w, 200, map[string]any{"kind": info.kind + "List", "apiVersion": info.apiVersion,
		"metadata": map[string]any{"resourceVersion": strconv.Itoa(ws.rv)}, "items": items})
}

func (ws *wireServer) createLocked(w http.ResponseWriter, r route, info kindInfo, body []byte) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		writeStatus(w, 400, "BadRequest", err.Error(), nil)
		return
	}
	if obj["kind"] != info.kind || obj["apiVersion"] != info.apiVersion {
		writeStatus(w, 400, "BadRequest", fmt.Sprintf("body has kind %v apiVersion %v", obj["kind"], obj["apiVersion"]), nil)
		return
	}
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" && ns != r.namespace {
		writeStatus(w, 400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request", nil)
		return
	}
	key := r.resource + "/" + r.namespace + "/" + name
	if _, exists := ws.objects[key]; exists {
		writeStatus(w, 409, "AlreadyExists", fmt.Sprintf("%s %q already exists", r.resource, name),
			map[string]any{"name": name, "kind": r.resource})
		return
	}
	ws.rv++
	if r.namespace != "" {
		md["namespace"] = r.namespace
	}
	md["resourceVersion"] = strconv.Itoa(ws.rv)
	md["uid"] = fmt.Sprintf("uid-%d", ws.rv)
	md["generation"] = 1
	ws.objects[key] = obj
	writeJSON(w, 201, obj)
}

func (ws *wireServer) updateLocked(w http.ResponseWriter, r route, info kindInfo, key string, body []byte) {
	stored, ok := ws.objects[key]
	if !ok {
		writeNotFound(w, r, info)
		return
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		writeStatus(w, 400, "BadRequest", err.Error(), nil)
		return
	}
	md, _ := obj["metadata"].(map[string]any)
	if md["resourceVersion"] != stored["metadata"].(map[string]any)["resourceVersion"] {
		writeStatus(w, 409, "Conflict", fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", r.resource, r.name),
			map[string]any{"name": r.name, "kind": r.resource})
		return
	}
	next := maps.Clone(stored)
	if r.sub == "status" {
		next["status"] = obj["status"]
	} else {
		next = obj
		next["status"] = stored["status"]
	}
	ws.rv++
	nextMD := maps.Clone(next["metadata"].(map[string]any))
	nextMD["resourceVersion"] = strconv.Itoa(ws.rv)
	next["metadata"] = nextMD
	ws.objects[key] = next
	writeJSON(w, 200, next)
}

func (ws *wireServer) patchLocked(w http.ResponseWriter, r route, info kindInfo, key string, body []byte, contentType string) {
	stored, ok := ws.objects[key]
	if !ok {
		writeNotFound(w, r, info)
		return
	}
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "application/merge-patch+json" {
		writeStatus(w, 415, "UnsupportedMediaType", "the body of the request was in an unknown format", nil)
		return
	}
	var patch map[string]any
	if err := json.Unmarshal(body, &patch); err != nil {
		writeStatus(w, 400, "BadRequest", err.Error(), nil)
		return
	}
	next := mergePatch(stored, patch)
	ws.rv++
	next["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(ws.rv)
	ws.objects[key] = next
	writeJSON(w, 200, next)
}

// mergePatch applies an RFC 7386 merge patch to a copy of doc.
func mergePatch(doc, patch map[string]any) map[string]any {
	out := maps.Clone(doc)
	for k, v := range patch {
		sub, isMap := v.(map[string]any)
		switch {
		case v == nil:
			delete(out, k)
		case isMap:
			cur, _ := out[k].(map[string]any)
			out[k] = mergePatch(cur, sub)
		default:
			out[k] = v
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// serveDiscovery answers GET /api/v1 or /apis/{gv} with the APIResourceList
// of the resources of group version gv.
func serveDiscovery(w http.ResponseWriter, gv string) {
	var resources []any
	for _, resource := range slices.Sorted(maps.Keys(wireKinds)) {
		if info := wireKinds[resource]; info.apiVersion == gv {
			resources = append(resources, map[string]any{"name": resource, "kind": info.kind,
				"namespaced": resource != "namespaces", "verbs": []string{"list", "watch", "get", "create", "update", "patch", "delete"}})
		}
	}
	if resources == nil {
		writeStatus(w, 404, "NotFound", "the server could not find the requested resource", nil)
		return
	}
	writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})
}

func writeStatus(w http.ResponseWriter, code int, reason, message string, details map[string]any) {
	st := map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code}
	if details != nil {
		st["details"] = details
	}
	writeJSON(w, code, st)
}

func writeNotFound(w http.ResponseWriter, r route, info kindInfo) {
	writeStatus(w, 404, "NotFound", fmt.Sprintf("%s %q not found", r.resource, r.name),
		map[string]any{"name": r.name, "kind": r.resource})
}

var _ runtime.Object = &ConfigMap{}
