package fakeapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Fault injection: the failures an informer must survive, on demand. Each
// fault is logged (Options.Logger, message "fakeapi fault: ...") and counted
// in FaultCounts. The same faults are reachable over HTTP under /admin/ (see
// http_admin.go).

// FaultCounts counts injected faults, and the slow watches the server cut off.
//
// client-go: none.
type FaultCounts struct {
	WatchesClosed       int `json:"watchesClosed"`       // watches ended by CloseWatches
	Compactions         int `json:"compactions"`         // Compact calls
	SilentWrites        int `json:"silentWrites"`        // writes made through SilentResource (no watch event)
	FailedRequests      int `json:"failedRequests"`      // requests failed by FailNext
	WatchErrorsInjected int `json:"watchErrorsInjected"` // watches that were sent an InjectWatchError event
	Hangs               int `json:"hangs"`               // HangWatches(true) calls that started a hang
	DelayedRequests     int `json:"delayedRequests"`     // requests delayed by SetLatency
	WatchesCutOff       int `json:"watchesCutOff"`       // watches ended because their buffer was full (not injected)
}

// Faults returns the fault counters.
func (s *Server) Faults() FaultCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// failure is a pending FailNext.
type failure struct {
	remaining int
	code      int
}

// failVerbs and failCodes are what FailNext accepts (read-only).
var failVerbs = []string{"list", "watch", "get", "create", "update", "patch", "delete"}

var failCodes = []int{http.StatusGone, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// CloseWatches ends every open watch cleanly, as an apiserver restart or a
// load balancer does. Clients see their result channel close (over HTTP, the
// end of the stream) and should re-watch from their last resourceVersion.
func (s *Server) CloseWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for w := range s.watchers {
		if !w.ended() {
			w.end()
			n++
		}
	}
	s.faults.WatchesClosed += n
	s.logger.Info("fakeapi fault: close watches", "closed", n)
}

// Compact drops the whole watch history, as etcd compaction does: a watch
// from any resourceVersion before now gets 410 Expired (the client must
// relist), and so do continue tokens and Exact lists from before now.
func (s *Server) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactedRV = s.rv
	s.history = nil
	s.faults.Compactions++
	s.logger.Info("fakeapi fault: compact", "compactedResourceVersion", s.rv)
}

// SilentResource returns a client whose writes change storage and take a
// resourceVersion but emit no watch event: open watches miss them, and only
// a relist reveals them (for a deletion, as a DeletedFinalStateUnknown
// tombstone in the informer). Reads through it are ordinary.
func (s *Server) SilentResource(gvr schema.GroupVersionResource) *ResourceClient {
	return &ResourceClient{s: s, gvr: gvr, silent: true}
}

// FailNext makes the next n requests with the given verb ("list", "watch",
// "get", "create", "update", "patch" or "delete") fail with code: 410 Gone
// (reason Expired), 429 TooManyRequests, 500 InternalError, 503
// ServiceUnavailable or 504 Timeout. A failed watch fails to start (over
// HTTP: a non-200 response). n = 0 cancels a pending failure.
func (s *Server) FailNext(verb string, n int, code int) error {
	if !slices.Contains(failVerbs, verb) {
		return fmt.Errorf("fakeapi: FailNext: unknown verb %q (want one of %v)", verb, failVerbs)
	}
	if !slices.Contains(failCodes, code) {
		return fmt.Errorf("fakeapi: FailNext: unsupported code %d (want one of %v)", code, failCodes)
	}
	if n < 0 {
		return fmt.Errorf("fakeapi: FailNext: negative count %d", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n == 0 {
		delete(s.failNext, verb)
	} else {
		s.failNext[verb] = failure{remaining: n, code: code}
	}
	s.logger.Info("fakeapi fault: fail next", "verb", verb, "count", n, "code", code)
	return nil
}

// InjectWatchError sends an ERROR event carrying status to every open watch,
// after the events already queued; each watch then ends. A nil status means
// 500 InternalError. A 410 status teaches the relist path, a 429 or 500 the
// re-watch path.
func (s *Server) InjectWatchError(status *metav1.Status) {
	st := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonInternalError, Message: "fakeapi: injected watch error"}
	if status != nil {
		st = *status.DeepCopy()
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for w := range s.watchers {
		if !w.ended() {
			w.pushEnd(watchItem{typ: watch.Error, status: &st})
			n++
		}
	}
	s.faults.WatchErrorsInjected += n
	s.logger.Info("fakeapi fault: inject watch error", "watches", n, "code", st.Code, "reason", st.Reason)
}

// HangWatches(true) makes every watch, open or new, stop delivering: the
// connection stays up but nothing flows, not even bookmarks, and the watch
// timeout does not fire, which is how an informer silently stops. Writes go
// on; a watch whose buffer fills while hung is cut off when the hang ends.
// HangWatches(false) resumes delivery.
func (s *Server) HangWatches(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.hung.Swap(on)
	if on && !was {
		s.faults.Hangs++
	}
	for w := range s.watchers {
		if !on {
			w.mu.Lock()
			overflowed := w.overflowed
			w.mu.Unlock()
			if overflowed && !w.ended() {
				s.cutOffLocked(w)
			}
		}
		w.signal()
	}
	s.logger.Info("fakeapi fault: hang watches", "on", on)
}

// SetLatency delays every later request (in-process and HTTP, including the
// start of a watch) by d. 0 removes the delay.
func (s *Server) SetLatency(d time.Duration) {
	s.latency.Store(int64(max(d, 0)))
	s.logger.Info("fakeapi fault: latency", "delay", d)
}

// begin runs before every request: latency, closed server, FailNext.
func (s *Server) begin(ctx context.Context, verb string) error {
	if d := time.Duration(s.latency.Load()); d > 0 {
		s.mu.Lock()
		s.faults.DelayedRequests++
		s.mu.Unlock()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("fakeapi: %s: %w", verb, ctx.Err())
		case <-s.closed:
			return errClosed()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return errClosed()
	}
	f, ok := s.failNext[verb]
	if !ok {
		return nil
	}
	if f.remaining--; f.remaining == 0 {
		delete(s.failNext, verb)
	} else {
		s.failNext[verb] = f
	}
	s.faults.FailedRequests++
	s.logger.Info("fakeapi fault: request failed", "verb", verb, "code", f.code)
	return errForCode(f.code, fmt.Sprintf("fakeapi: injected failure for %s", verb))
}
