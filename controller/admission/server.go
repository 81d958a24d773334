package admission

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ServerOptions configure a [Server].
//
// client-go: controller-runtime pkg/webhook.Options.
type ServerOptions struct {
	// BindAddress is the host:port to listen on, such as "127.0.0.1:9443";
	// port 0 picks a free port (see Server.Addr). Required.
	BindAddress string
	// CertFile and KeyFile are the PEM serving certificate (its chain, leaf
	// first) and private key. The API server verifies the certificate
	// against the caBundle of the webhook configuration. Both files are
	// read at Start and again whenever either changes (cert-manager and
	// kubelet rotate them in place); a pair that fails to load keeps the
	// previous one in service, and says so in the log. Required.
	CertFile, KeyFile string
	// ClientCAFile, when set, is a PEM file of CA certificates, and the
	// server authenticates its callers: a caller must present a client
	// certificate signed by one of them, or the TLS handshake fails. The
	// API server presents the one its admission configuration names for
	// the webhook's host (docs/admission.md). The file is read at Start and
	// again whenever it changes, like CertFile. Empty: any caller.
	ClientCAFile string
	// Logger receives the server's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Server serves admission webhooks over TLS, one handler per path.
// Give it to a Manager ([manager.Options.WebhookServer]), which starts it
// before its cache, so that the API server can call it as soon as the
// Manager runs, and counts it in /readyz. It is safe for concurrent use.
//
// client-go: controller-runtime pkg/webhook.Server.
type Server struct {
	opts   ServerOptions
	mux    *http.ServeMux
	certs  *certReloader
	logger *slog.Logger

	clientCAs *clientCAReloader // set by Start with ClientCAFile; nil without

	serving atomic.Bool // set while Start serves

	mu      sync.Mutex // guards the fields below
	paths   map[string]bool
	addr    net.Addr
	started bool
}

// NewServer returns a Server. It checks the options and
// starts nothing.
func NewServer(opts ServerOptions) (*Server, error) {
	switch {
	case opts.BindAddress == "":
		return nil, errors.New("controller: webhook server: BindAddress is empty")
	case opts.CertFile == "" || opts.KeyFile == "":
		return nil, errors.New("controller: webhook server: CertFile and KeyFile are required: the API server calls webhooks over TLS only")
	}
	if _, _, err := net.SplitHostPort(opts.BindAddress); err != nil {
		return nil, fmt.Errorf("controller: webhook server: BindAddress %q: %w", opts.BindAddress, err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger = logger.With("component", "webhook-server")
	return &Server{
		opts:   opts,
		mux:    http.NewServeMux(),
		certs:  &certReloader{certFile: opts.CertFile, keyFile: opts.KeyFile, logger: logger},
		logger: logger,
		paths:  map[string]bool{},
	}, nil
}

// Register serves h at path (exactly; "/validate-foo"). A path registered
// twice, or one that does not start with "/", is an error. Handlers may be
// registered before or after Start.
func (s *Server) Register(path string, h http.Handler) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("controller: webhook server: path %q must start with /", path)
	}
	if h == nil {
		return fmt.Errorf("controller: webhook server: nil handler for %q", path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paths[path] {
		return fmt.Errorf("controller: webhook server: path %q is already registered", path)
	}
	s.paths[path] = true
	s.mux.Handle("POST "+path, h)
	s.mux.Handle(path, h) // other methods reach h, which answers 405
	return nil
}

// Addr returns the address the server listens on, or nil before Start.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Serving reports whether the server is accepting calls.
func (s *Server) Serving() bool { return s.serving.Load() }

// NeedLeaderElection is false: every replica serves webhooks, leader or not,
// since the API server calls whichever one its Service reaches.
func (s *Server) NeedLeaderElection() bool { return false }

// Start loads the certificate, listens and serves until ctx is done, then
// shuts down, letting calls in progress finish for up to five seconds. It
// returns an error at once if the certificate does not load or the address
// cannot be bound. It runs once.
func (s *Server) Start(ctx context.Context) error {
	l, err := s.Listen()
	if err != nil {
		return err
	}
	return s.Serve(ctx, l)
}

// Listen loads the certificate and binds the address: the part of Start
// that can fail at once.
func (s *Server) Listen() (net.Listener, error) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return nil, errors.New("controller: webhook server already started")
	}
	s.started = true
	s.mu.Unlock()
	if err := s.certs.load(); err != nil {
		return nil, fmt.Errorf("controller: webhook server: %w", err)
	}
	if err := s.loadClientCAs(); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", s.opts.BindAddress)
	if err != nil {
		return nil, fmt.Errorf("controller: webhook server: %w", err)
	}
	s.mu.Lock()
	s.addr = l.Addr()
	s.mu.Unlock()
	return l, nil
}

// Serve serves on l until ctx is done.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{
		Handler:           s.mux,
		TLSConfig:         s.tlsConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelDebug),
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(l, "", "") }()
	s.serving.Store(true)
	s.logger.Info("serving webhooks", "addr", l.Addr().String())
	defer s.serving.Store(false)

	select {
	case err := <-done:
		return fmt.Errorf("controller: webhook server: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("controller: webhook server: %w", err)
	}
	return nil
}
