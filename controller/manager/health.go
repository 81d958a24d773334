package manager

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// checkLoopback accepts host:port addresses whose host is a loopback IP or
// "localhost": the probes say nothing secret, but a teaching program should
// not open ports to the network by default.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("controller: manager: HealthProbeBindAddress %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("controller: manager: HealthProbeBindAddress %q is not a loopback address", addr)
}

// HealthHandler serves the probes, for a server of your own (the Manager
// serves it on HealthProbeBindAddress when that is set):
//
//	/healthz  200 "ok" while the Manager runs, 503 once it is stopping
//	/readyz   200 "ok" once the cache has synced and while the webhook server
//	          (if any) serves, 503 before and once stopping
//
// client-go: controller-runtime pkg/healthz (with its Ping and the cache's
// readiness check as the only checks).
func (m *Manager) HealthHandler() http.Handler {
	mux := http.NewServeMux()
	probe := func(ok func() bool, reason string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if m.stopping.Load() {
				http.Error(w, "stopping", http.StatusServiceUnavailable)
				return
			}
			if !ok() {
				http.Error(w, reason, http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte("ok"))
		}
	}
	mux.HandleFunc("GET /healthz", probe(func() bool { return true }, ""))
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if m.webhooks != nil && !m.webhooks.Serving() {
			probe(func() bool { return false }, "webhook server not serving")(w, r)
			return
		}
		probe(m.synced.Load, "cache not synced")(w, r)
	})
	return mux
}

// startHealthServer listens on the probe address and serves the probes on
// one goroutine; the returned stop function shuts the server down and waits
// for that goroutine.
func (m *Manager) startHealthServer() (stop func(), err error) {
	l, err := net.Listen("tcp", m.healthAddr)
	if err != nil {
		return nil, fmt.Errorf("controller: manager: health probes: %w", err)
	}
	m.mu.Lock()
	m.probeAddr = l.Addr()
	m.mu.Unlock()
	srv := &http.Server{Handler: m.HealthHandler(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.logger.Error("health probe server failed", "err", err)
		}
	}()
	m.logger.Info("serving health probes", "addr", l.Addr().String())
	return func() {
		_ = srv.Close() // probes are short: no need to wait for them
		<-done
	}, nil
}
