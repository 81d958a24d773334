package pipelineweb

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"time"

	"go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/runtime"
)

//go:embed assets
var assets embed.FS

// Server serves the page and its API:
//
//	GET  /                     the page (assets/index.html with this run's token, app.js, style.css)
//	GET  /api/events           Server-Sent Events: hello, batch, dropped, state
//	GET  /api/state            the Model's snapshot, with the valve and Status
//	GET  /api/object?kind&key  one cached object as YAML
//	POST /api/control          an Action, as JSON: {"message"} when done,
//	                           {"error"} when refused, 400 when malformed,
//	                           403 without the page's token in TokenHeader
//
// The token is made fresh for each Server and written into the page, so
// only a page this server served can use the controls. Serve the Server
// behind a sameorigin.Guard (cmd/demo does), which refuses what pages of
// other sites can send: a read through a rebound DNS name, a form, a
// text/plain fetch.
//
// It is safe for concurrent use; make it with [NewServer].
type Server struct {
	hub      *Hub
	model    *Model
	rec      *Recorder
	controls Controls
	mux      *http.ServeMux
	// token is this run's control token; pageHTML is index.html with it.
	token    string
	pageHTML []byte
	// statePeriod is how often an event stream sends a changed snapshot.
	statePeriod time.Duration
	// bufferSize bounds each event stream's backlog.
	bufferSize int
}

// NewServer returns the page's server for a pipeline recorded by rec on
// hub, with model's state and controls' actions.
func NewServer(hub *Hub, model *Model, rec *Recorder, controls Controls) *Server {
	s := &Server{hub: hub, model: model, rec: rec, controls: controls, mux: http.NewServeMux(),
		statePeriod: 250 * time.Millisecond, bufferSize: DefaultBuffer}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	s.token = newToken()
	s.pageHTML = renderPage(static, s.token)
	s.mux.HandleFunc("GET /{$}", s.page)
	s.mux.Handle("GET /", http.FileServerFS(static))
	s.mux.HandleFunc("GET /api/events", s.events)
	s.mux.HandleFunc("GET /api/state", s.state)
	s.mux.HandleFunc("GET /api/object", s.object)
	s.mux.HandleFunc("POST /api/control", s.control)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.mux.ServeHTTP(w, r)
}

// snapshot is the state message: the boxes, the valve, the world.
type snapshot struct {
	State
	Valve     ValveState `json:"valve"`
	Status    Status     `json:"status"`
	SlowMS    float64    `json:"slowHandlerMs"`
	Now       int64      `json:"now"`
	Listeners int        `json:"pages"`
}

func (s *Server) snapshot() snapshot {
	return snapshot{
		State:     s.model.Snapshot(),
		Valve:     s.rec.Valve().State(),
		Status:    s.controls.Status(),
		SlowMS:    durationMS(s.rec.SlowHandler()),
		Now:       time.Now().UnixMilli(),
		Listeners: s.hub.Subscribers(),
	}
}

func (s *Server) state(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.snapshot())
}

// object serves one cached object as YAML (managedFields left out).
func (s *Server) object(w http.ResponseWriter, r *http.Request) {
	text, err := s.Object(r.URL.Query().Get("kind"), r.URL.Query().Get("key"))
	switch {
	case errors.Is(err, ErrNotCached):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
		return
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(text)
}

// ErrNotCached is the error of Object for a kind without a cache or a key
// the cache does not hold.
var ErrNotCached = errors.New("pipelineweb: not in the cache")

// Object returns one cached object as YAML, managedFields left out: the
// page's GET /api/object, without HTTP. An object the cache does not hold
// is an error wrapping ErrNotCached.
func (s *Server) Object(kind, key string) ([]byte, error) {
	s.model.mu.Lock()
	inf := s.model.informers[kind]
	s.model.mu.Unlock()
	if inf == nil {
		return nil, fmt.Errorf("pipelineweb: no cache of kind %q: %w", kind, ErrNotCached)
	}
	obj, ok, err := inf.GetStore().GetByKey(key)
	if err != nil || !ok {
		return nil, fmt.Errorf("pipelineweb: %s %q is not in the cache: %w", kind, key, ErrNotCached)
	}
	return objectYAML(obj)
}

func objectYAML(obj any) ([]byte, error) {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("pipelineweb: a %T is not an API object", obj)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
	if err != nil {
		return nil, fmt.Errorf("pipelineweb: %w", err)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("pipelineweb: %w", err)
	}
	return out, nil
}

// maxControlBody bounds a control request.
const maxControlBody = 4 << 10

func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	if !s.tokenOK(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "pipelineweb: refused: a control needs the token of the page this demo served, in " + TokenHeader + " (reload the page if the demo was restarted)"})
		return
	}
	code, answer := s.Act(r.Context(), http.MaxBytesReader(w, r.Body, maxControlBody))
	writeJSON(w, code, answer)
}

// Act carries out one control request, an Action as JSON read from body:
// the page's POST /api/control, without HTTP (and so without its token,
// which only a page served over HTTP needs). It returns the HTTP status
// and the answer: {"message"} when done, {"error"} when the action was
// refused (status 200: the request was fine), {"error"} with status 400
// when the request is malformed or names no action.
func (s *Server) Act(ctx context.Context, body io.Reader) (int, map[string]string) {
	var a Action
	dec := json.NewDecoder(io.LimitReader(body, maxControlBody+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return http.StatusBadRequest, map[string]string{"error": "pipelineweb: bad control request: " + err.Error()}
	}
	// Playback and the slow handler are the server's own; the rest is the
	// controls', which publish what they do themselves.
	msg, handled, err := s.playback(a)
	if !handled {
		msg, err = s.controls.Do(ctx, a)
	}
	switch {
	case errors.Is(err, ErrUnknownAction):
		return http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("pipelineweb: unknown action %q", a.Name)}
	case err != nil:
		// The request was fine and the action refused (a Foo that does not
		// exist, Step while not paused): the page shows why. 200, so that a
		// browser does not log a refusal as a failed request.
		return http.StatusOK, map[string]string{"error": err.Error()}
	}
	if handled {
		op := OpControl
		if a.Name == "slow-handler" {
			op = OpFault
		}
		s.hub.Publish(Event{Op: op, Tag: TagStory, Verb: a.Name, Text: msg})
	}
	return http.StatusOK, map[string]string{"message": msg}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Serve serves h on ln until ctx ends, then stops: open event streams end
// (their requests' context is ctx's), and Serve returns once the server has
// shut down.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("pipelineweb: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("pipelineweb: %w", err)
	}
	return nil
}

// Assets returns the page's files (index.html, app.js, style.css), as the
// Server serves them but for the token, which index.html leaves empty:
// cmd/playground/build copies them into the static site.
func Assets() fs.FS {
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	return static
}
