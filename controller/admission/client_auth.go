package admission

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// Client authentication of the webhook server: with
// ServerOptions.ClientCAFile set, a caller must present a client
// certificate signed by a CA of that file, or the TLS handshake fails. The
// API server presents one when its admission configuration gives it one for
// the webhook's host (kube-apiserver --admission-control-config-file, a
// WebhookAdmissionConfiguration whose kubeConfigFile has client-certificate
// and client-key for the host, or for "*"); anyone else who can reach the
// port is refused before a byte of HTTP is read.

// loadClientCAs reads ClientCAFile, if set: the part of Start that can
// fail at once. Only Start's goroutine sets and reads s.clientCAs.
func (s *Server) loadClientCAs() error {
	if s.opts.ClientCAFile == "" {
		return nil
	}
	c := &clientCAReloader{file: s.opts.ClientCAFile, logger: s.logger}
	if err := c.load(); err != nil {
		return fmt.Errorf("controller: webhook server: %w", err)
	}
	s.clientCAs = c
	return nil
}

// tlsConfig is the server's TLS configuration: the serving certificate, and
// with a client CA, the check of the caller's certificate.
func (s *Server) tlsConfig() *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: s.certs.get}
	if s.clientCAs == nil {
		return cfg
	}
	// Go verifies against a fixed ClientCAs pool; the pool may be rotated,
	// so the handshake only demands a certificate, and VerifyConnection
	// checks it against the pool of the moment.
	cfg.ClientAuth = tls.RequireAnyClientCert
	cfg.VerifyConnection = s.clientCAs.verify
	return cfg
}

// clientCAReloader holds the CAs of a PEM file, loading them again when the
// file changes, as certReloader does for the serving pair: it looks at the
// file's size and modification time on each handshake.
type clientCAReloader struct {
	file   string
	logger *slog.Logger

	mu    sync.Mutex // guards the fields below
	pool  *x509.CertPool
	stamp string // the file's size and modification time when pool was loaded
}

// load reads the file now; an error leaves the previous pool in place.
func (c *clientCAReloader) load() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loadLocked()
}

func (c *clientCAReloader) loadLocked() error {
	fi, err := os.Stat(c.file)
	if err != nil {
		return fmt.Errorf("client CA: %w", err)
	}
	data, err := os.ReadFile(c.file)
	if err != nil {
		return fmt.Errorf("client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return fmt.Errorf("client CA %s: no PEM certificate in it", c.file)
	}
	c.pool, c.stamp = pool, stampOf(fi)
	return nil
}

// current returns the pool, loaded again first if the file changed. A file
// that is missing or does not load (mid-rotation) keeps the previous pool.
func (c *clientCAReloader) current() *x509.CertPool {
	c.mu.Lock()
	defer c.mu.Unlock()
	fi, err := os.Stat(c.file)
	if err == nil && stampOf(fi) != c.stamp {
		if err := c.loadLocked(); err != nil {
			c.logger.Error("webhook server: the changed client CA does not load; verifying with the previous one", "err", err)
		} else {
			c.logger.Info("webhook server: client CA reloaded", "file", c.file)
		}
	}
	return c.pool
}

// verify is tls.Config.VerifyConnection: the caller's certificate must
// chain to the client CA and be meant for client authentication. An error
// fails the handshake with a bad-certificate alert.
func (c *clientCAReloader) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("controller: webhook server: no client certificate")
	}
	leaf := cs.PeerCertificates[0]
	intermediates := x509.NewCertPool()
	for _, cert := range cs.PeerCertificates[1:] {
		intermediates.AddCert(cert)
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots: c.current(), Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		c.logger.Warn("webhook server: refused a caller's client certificate", "subject", leaf.Subject.String(), "err", err)
		return fmt.Errorf("controller: webhook server: client certificate %q: %w", leaf.Subject.String(), err)
	}
	return nil
}

// stampOf describes a file by size and modification time.
func stampOf(fi os.FileInfo) string {
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}
