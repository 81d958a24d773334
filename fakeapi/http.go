package fakeapi

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Handler returns the HTTP API in the Kubernetes wire format (JSON only):
//
//	/api, /apis, /api/v1, /apis/{group}[/{version}]   discovery
//	/api/v1/..., /apis/{group}/{version}/...          resources (list, watch, get, create,
//	                                                  update, status, patch, delete, deletecollection)
//	/openapi/v3[/api/v1 | /apis/{group}/{version}]    OpenAPI v3 (http_openapi.go)
//	/version, /healthz, /livez, /readyz               unauthenticated
//	/admin/faults[/...], /admin/silent/...            fault injection (http_admin.go)
//
// Every error is a metav1.Status. Each request is logged at Info level
// through Options.Logger. When Options.Token is set, every other path needs
// "Authorization: Bearer <token>" (401 otherwise). Request bodies are
// limited to Options.MaxRequestBodyBytes (413). Open watches end when the
// request's context ends or on Server.Close; call Close before shutting an
// http.Server down so that Shutdown does not wait for them.
//
// The Handler does not know the address it is served on, so it does not
// check where a request comes from: cmd/fakeapi serves it behind package
// internal/sameorigin's guard, which refuses what a web page of another
// site can send.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serveHTTP)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logger.Error("fakeapi: handler panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p))
			if rec.code == 0 {
				writeError(rec, apierrors.NewInternalError(fmt.Errorf("fakeapi: internal error (panic): %v", p)))
			}
		}
		s.logger.Info("fakeapi request", "method", r.Method, "uri", r.URL.RequestURI(), "status", rec.status(),
			"bytes", rec.bytes, "duration", time.Since(start), "userAgent", r.UserAgent())
	}()
	r.Body = http.MaxBytesReader(rec, r.Body, s.opts.MaxRequestBodyBytes)
	path := strings.Trim(r.URL.Path, "/")
	segs := strings.Split(path, "/")
	if path == "" {
		segs = nil
	}
	if slices.Contains(segs, "") {
		writeError(rec, errNotFoundPath())
		return
	}
	if len(segs) > 0 && publicPaths[segs[0]] {
		s.servePublic(rec, r, segs)
		return
	}
	if !s.authorized(r) {
		writeError(rec, apierrors.NewUnauthorized("Unauthorized"))
		return
	}
	switch {
	case len(segs) == 0:
		s.serveRootPaths(rec, r)
	case segs[0] == "api" || segs[0] == "apis":
		s.serveAPI(rec, r, segs, false)
	case segs[0] == "admin":
		s.serveAdmin(rec, r, segs[1:])
	case segs[0] == "openapi":
		s.serveOpenAPI(rec, r, segs[1:])
	default:
		writeError(rec, errNotFoundPath())
	}
}

var publicPaths = map[string]bool{"version": true, "healthz": true, "livez": true, "readyz": true}

func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.opts.Token)) == 1
}

func (s *Server) servePublic(w http.ResponseWriter, r *http.Request, segs []string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errMethod(r.Method))
		return
	}
	if segs[0] == "version" {
		if len(segs) > 1 {
			writeError(w, errNotFoundPath())
			return
		}
		writeJSON(w, http.StatusOK, serverVersion())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("ok"))
}

func (s *Server) serveRootPaths(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeError(w, errMethod(r.Method))
		return
	}
	paths := []string{"/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version", "/admin/faults"}
	for _, gv := range s.groupVersions() {
		if gv.Group != "" {
			paths = append(paths, "/apis/"+gv.Group, "/apis/"+gv.String())
		}
	}
	writeJSON(w, http.StatusOK, map[string][]string{"paths": paths})
}

// writeJSON writes v as a JSON response with a trailing newline.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(fmt.Errorf("fakeapi: encode response: %w", err)))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

// writeError writes err as a metav1.Status with its code.
func writeError(w http.ResponseWriter, err error) {
	st := statusOf(err)
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	writeJSON(w, int(st.Code), st)
}

func errNotFoundPath() error {
	return errStatus(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

func errMethod(method string) error {
	return errStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		fmt.Sprintf("the server does not allow this method on the requested resource: %s", method))
}

// statusRecorder remembers the response code and size for the request log.
type statusRecorder struct {
	http.ResponseWriter
	code  int
	bytes int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}
