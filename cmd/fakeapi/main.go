package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/cli"
	"github.com/informerlab/informerlab/internal/sameorigin"
	"github.com/informerlab/informerlab/samplecontroller"
)

// shutdownTimeout bounds how long in-flight requests may take to finish
// after SIGINT or SIGTERM. It must exceed five seconds: http.Server.Shutdown
// counts a connection a client opened but has not yet sent a request on (Go's
// transport dials spare connections) as busy until it is five seconds old,
// and with a 5 s bound such a connection made a clean shutdown fail now and
// then.
const shutdownTimeout = 10 * time.Second

func main() { cli.Main(run) }

// run is the whole program: it parses args, serves until ctx is cancelled,
// then shuts down. --help prints the usage on stdout and returns nil; a
// flag error returns a *usageError; anything else that stops the server
// early (the address is in use, the kubeconfig cannot be written) is an
// ordinary error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args)
	if errors.Is(err, errHelp) {
		printUsage(stdout)
		return nil
	}
	if err != nil {
		return err
	}

	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	opts := fakeapi.Options{
		HistoryLimit:     cfg.history,
		BookmarkInterval: cfg.bookmarkInterval,
		Token:            cfg.token,
		// kubectl and client-go users see what a real server does: a create
		// in a namespace that does not exist is 404.
		NamespaceLifecycle: true,
		Logger:             logger,
	}
	if cfg.sampleResources {
		// The sample types are the schema of Foos and Deployments: a Foo
		// with a string for spec.replicas is 422 Invalid, as with the CRD.
		opts.Scheme = samplecontroller.NewScheme()
	}
	api := fakeapi.New(opts)
	defer api.Close()
	if cfg.sampleResources {
		if err := samplecontroller.Register(api); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("fakeapi: listen on %s: %w", cfg.addr, err)
	}
	scheme := "http"
	var caPEM []byte
	if cfg.tls {
		var cert tls.Certificate
		cert, caPEM, err = selfSignedCert(ln.Addr().(*net.TCPAddr).IP)
		if err != nil {
			ln.Close()
			return err
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	url := serverURL(scheme, ln.Addr())
	if cfg.kubeconfig != "" {
		if err := writeKubeconfig(cfg.kubeconfig, url, cfg.token, caPEM); err != nil {
			ln.Close()
			return err
		}
		logger.Info("fakeapi: wrote kubeconfig", "path", cfg.kubeconfig)
	}
	if cfg.token != "" && !cfg.tls {
		logger.Warn("fakeapi: --token without --tls: kubectl and kubeconfig-based client-go clients send no token to an http server, so they get 401; add --tls")
	}
	if !isLoopback(ln.Addr()) {
		logger.Warn("fakeapi: listening beyond loopback; anyone who can reach this address can use the API",
			"addr", ln.Addr().String(), "token", cfg.token != "")
	}

	// Pages of other sites in the learner's browser are refused, token or
	// not: see package internal/sameorigin.
	host, _, _ := net.SplitHostPort(cfg.addr)
	guard, err := sameorigin.New(ln.Addr(), sameorigin.Options{
		Hosts:        []string{host},
		ContentTypes: sameorigin.KubernetesTypes,
		Refuse:       refuseStatus(logger),
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("fakeapi: %w", err)
	}
	srv := &http.Server{
		Handler:           guard.Handler(api.Handler()),
		ReadHeaderTimeout: min(10*time.Second, cfg.readTimeout),
		// ReadTimeout bounds reading the request, body included: a client
		// that stops mid-body is disconnected. A watch's request is read
		// at once, and no WriteTimeout ends its long response.
		ReadTimeout: cfg.readTimeout,
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// Shutdown closes the listener first, then runs this: open watches end,
	// so their handlers return and Shutdown does not wait for them.
	srv.RegisterOnShutdown(api.Close)

	if cfg.kubeconfig != "" {
		fmt.Fprintf(stdout, "fakeapi: kubeconfig in %s; try: kubectl --kubeconfig %s get configmaps\n",
			cfg.kubeconfig, cfg.kubeconfig)
	}
	// The URL line comes last: scripts and tests wait for it as the sign
	// that everything before it is done.
	fmt.Fprintf(stdout, "fakeapi: serving on %s\n", url)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err := <-serveErr:
		return fmt.Errorf("fakeapi: serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("fakeapi: shutting down", "timeout", shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
		err = fmt.Errorf("fakeapi: shutdown: %w", err)
	}
	<-serveErr // http.ErrServerClosed once Shutdown or Close has begun
	return err
}

// refuseStatus answers a request the same-origin guard refused as the API
// server answers any refusal: a 403 Forbidden Status, which kubectl and
// client-go print. It logs the refusal, which the API's request log would
// not see.
func refuseStatus(logger *slog.Logger) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, reason string) {
		logger.Warn("fakeapi: refused a request", "method", r.Method, "uri", r.URL.RequestURI(), "host", r.Host,
			"origin", r.Header.Get("Origin"), "reason", reason)
		st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Message: reason, Reason: metav1.StatusReasonForbidden, Code: http.StatusForbidden}
		data, _ := json.Marshal(st) // a Status always encodes
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write(append(data, '\n'))
	}
}

// serverURL is the URL clients should use for a listener: an unspecified
// host (":8080", "0.0.0.0:8080") is reached through 127.0.0.1.
func serverURL(scheme string, addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return scheme + "://" + addr.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return scheme + "://" + net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
