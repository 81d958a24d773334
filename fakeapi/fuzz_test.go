package fakeapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
)

var fuzzMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// FuzzHandler sends random requests (method, path, query, headers, body) to
// a fresh server holding a few objects and checks the handler never panics
// and answers every non-2xx with a well-formed metav1.Status whose code is
// the HTTP code; 2xx JSON answers must be valid JSON (one document per line
// for watches).
// Diagram: API. client-go: apierrors.FromObject must always find a Status.
func FuzzHandler(f *testing.F) {
	seeds := []struct {
		method                     uint8
		path, query, ctype, accept string
		body                       string
	}{
		{0, "/api/v1/namespaces/default/configmaps", "limit=1", "", "", ""},
		{0, "/api/v1/namespaces/default/configmaps", "watch=true&resourceVersion=2", "", "", ""},
		{0, "/api/v1/watch/configmaps", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=1", "", "", ""},
		{0, "/api/v1/namespaces/default/configmaps/a", "", "", kubectlAccept, ""},
		{0, "/api/v1/configmaps", "labelSelector=a+in+(b,c)&fieldSelector=metadata.name!=x", "", "application/vnd.kubernetes.protobuf", ""},
		{1, "/api/v1/namespaces/default/configmaps", "", "application/json", "", `{"metadata":{"generateName":"x-"},"data":{"a":"b"}}`},
		{2, "/api/v1/namespaces/default/configmaps/a", "", "application/json", "", `{"metadata":{"name":"a","resourceVersion":"2"},"data":{}}`},
		{3, "/api/v1/namespaces/default/configmaps/a", "", "application/json-patch+json", "", `[{"op":"move","from":"/data","path":"/x"}]`},
		{3, "/api/v1/namespaces/team/status", "", "application/merge-patch+json", "", `{"status":{"phase":null}}`},
		{3, "/api/v1/namespaces/default/configmaps/a", "", "application/strategic-merge-patch+json", "", `{"metadata":{"labels":{"$patch":"x"}}}`},
		{4, "/api/v1/namespaces/default/configmaps/a", "propagationPolicy=Orphan", "application/json", "", `{"preconditions":{"uid":"x"}}`},
		{4, "/api/v1/namespaces/default/configmaps", "labelSelector=x", "", "", ""},
		{0, "/apis/coordination.k8s.io/v1", "", "", "", ""},
		{1, "/admin/faults/fail-next", "verb=list&count=1&code=429", "", "", ""},
		{1, "/admin/silent/api/v1/namespaces/default/configmaps", "", "", "", `{"metadata":{"name":"s"}}`},
		{1, "/admin/faults/watch-error", "", "", "", `{"code":410,"reason":"Expired"}`},
		{5, "/healthz", "", "", "", ""},
		{6, "/version", "", "", "", ""},
	}
	for _, sd := range seeds {
		f.Add(sd.method, sd.path, sd.query, sd.ctype, sd.accept, []byte(sd.body))
	}
	f.Fuzz(func(t *testing.T, method uint8, path, query, ctype, accept string, body []byte) {
		var logs bytes.Buffer
		s := fakeapi.New(fakeapi.Options{MaxRequestBodyBytes: 1 << 12, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		defer s.Close()
		seedObjects(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a watch ends as soon as it starts instead of streaming forever
		req := (&http.Request{
			Method: fuzzMethods[int(method)%len(fuzzMethods)],
			URL:    &url.URL{Path: path, RawQuery: query},
			Header: http.Header{},
			Body:   http.NoBody,
			Host:   "fakeapi.test",
		}).WithContext(ctx)
		if len(body) > 0 {
			req.Body = httpBody(body)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		rec := httptest.NewRecorder()

		s.Handler().ServeHTTP(rec, req)

		if strings.Contains(logs.String(), "handler panic") {
			t.Fatalf("handler panicked: %s", logs.String())
		}
		checkWellFormed(t, rec)
	})
}

func seedObjects(t *testing.T, s *fakeapi.Server) {
	cms := s.Resource(configMaps).Namespace("default")
	a := configMap("default", "a", "app", "web")
	a.SetFinalizers([]string{"example.com/f"})
	owner := mustCreate(t, cms, a)
	mustCreate(t, cms, ownedBy(configMap("default", "b"), owner))
	mustCreate(t, s.Resource(namespaces), &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "team"}}})
}

func checkWellFormed(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	if rec.Code >= 200 && rec.Code < 300 {
		if rec.Header().Get("Content-Type") != "application/json" {
			return
		}
		for _, line := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("%d response is not JSON: %q", rec.Code, body)
			}
		}
		return
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("%d response is not a Status: %v: %q", rec.Code, err, body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || int(st.Code) != rec.Code || st.Reason == "" || st.Message == "" {
		t.Fatalf("%d response is a malformed Status: %q", rec.Code, body)
	}
	if strings.Contains(st.Message, "panic") {
		t.Fatalf("handler panicked: %s", st.Message)
	}
}

func httpBody(b []byte) *readCloser { return &readCloser{bytes.NewReader(b)} }

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
