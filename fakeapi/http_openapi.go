package fakeapi

import (
	"net/http"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serveOpenAPI serves /openapi/v3 (the index of group versions) and
// /openapi/v3/{api/v1 | apis/{group}/{version}} (one document), in JSON.
// The documents are built from the registered resources on every request,
// so a resource registered at run time appears at once, under a new hash.
// /openapi/v2 is not served (404): kubectl 1.32 asks for v3 first.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, segs []string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errMethod(r.Method))
		return
	}
	if len(segs) == 0 || segs[0] != "v3" {
		writeError(w, errNotFoundPath())
		return
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		writeError(w, errStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
			"fakeapi serves OpenAPI documents only as application/json"))
		return
	}
	docs := s.openAPIGroupVersions()
	if len(segs) == 1 {
		keys := make([]string, 0, len(docs))
		for k := range docs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		paths := make(map[string]map[string]string, len(docs))
		for _, k := range keys {
			paths[k] = map[string]string{"serverRelativeURL": "/openapi/v3/" + k + "?hash=" + openAPIHash(docs[k])}
		}
		w.Header().Set("Cache-Control", "no-cache, private")
		writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
		return
	}
	doc, ok := docs[strings.Join(segs[1:], "/")]
	if !ok {
		writeError(w, errNotFoundPath())
		return
	}
	etag := `"` + openAPIHash(doc) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache, private")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc)
}

// acceptsJSON reports whether an Accept header allows a JSON answer.
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.TrimSpace(mt) {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}
