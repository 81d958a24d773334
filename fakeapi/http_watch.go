package fakeapi

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// A watch over HTTP: status 200, Content-Type application/json, no
// Content-Length (so chunked), then one JSON event per line,
//
//	{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1",...}}
//
// flushed after every event. The stream ends at timeoutSeconds (at once
// when it is negative, as on the real server), or, without it, after a
// random time between MinRequestTimeout and twice that. Errors found before the stream starts are a
// normal Status response; after that (too old resourceVersion, injected
// errors) they are ERROR events, as on the real server.

// MinRequestTimeout is the shortest time an HTTP watch without
// timeoutSeconds stays open: the server picks a random time between it and
// twice it, as kube-apiserver does with its --min-request-timeout (1800s by
// default), so that such watches end, and do not all end at once.
const MinRequestTimeout = 30 * time.Minute

// defaultWatchTimeoutSeconds is the timeout of an HTTP watch that asks for
// none (timeoutSeconds absent or 0).
func defaultWatchTimeoutSeconds() int64 {
	least := int64(MinRequestTimeout / time.Second)
	return least + rand.Int64N(least)
}

func ptr[T any](v T) *T { return &v }

// listBlueprintAnnotation carries a base64 empty list of the kind on the
// initial-events-end bookmark. Servers before 1.34 sent it and client-go
// v0.32/v0.33 typed watch-lists read it; newer ones ignore it.
const listBlueprintAnnotation = "kubernetes.io/initial-events-list-blueprint"

type wireEvent struct {
	Type   watch.EventType `json:"type"`
	Object any             `json:"object"`
}

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, ri requestInfo, opts metav1.ListOptions,
	table bool, include metav1.IncludeObjectPolicy) error {
	if err := s.begin(r.Context(), "watch"); err != nil {
		return err
	}
	if opts.TimeoutSeconds == nil || *opts.TimeoutSeconds == 0 {
		opts.TimeoutSeconds = ptr(defaultWatchTimeoutSeconds())
	}
	wt, err := s.watch(r.Context(), ri.res, ri.ns, opts, false)
	if err != nil {
		return err
	}
	defer wt.Stop()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	firstRow := true
	for ev := range wt.ResultChan() {
		var obj any = ev.Object
		if u, ok := ev.Object.(*unstructured.Unstructured); ok {
			switch {
			case ev.Type == watch.Bookmark:
				obj = s.wireBookmark(ri.res, u)
			case table:
				obj = s.table(ri.res, []*unstructured.Unstructured{u}, u.GetResourceVersion(), "", nil, include, firstRow)
				firstRow = false
			default:
				obj = u.Object
			}
		}
		data, err := json.Marshal(wireEvent{Type: ev.Type, Object: obj})
		if err != nil {
			s.logger.Error("fakeapi: encode watch event", "err", err)
			return nil
		}
		if _, err := w.Write(append(data, '\n')); err != nil {
			return nil // the client went away
		}
		_ = rc.Flush()
	}
	return nil
}

func (s *Server) wireBookmark(r *resource, u *unstructured.Unstructured) map[string]any {
	ann := u.GetAnnotations()
	if ann[metav1.InitialEventsAnnotationKey] != "true" {
		return u.Object
	}
	empty := mustJSON(map[string]any{"kind": r.info.ListKind, "apiVersion": r.apiVersion(), "metadata": map[string]any{}, "items": []any{}})
	ann[listBlueprintAnnotation] = base64.StdEncoding.EncodeToString(empty)
	u.SetAnnotations(ann)
	return u.Object
}
