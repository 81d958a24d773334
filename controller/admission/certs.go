package admission

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// certReloader serves the certificate in a pair of files, loading it again
// when either file changes. It looks at the files' size and modification time
// on each TLS handshake (two stats; connections are kept alive, so handshakes
// are rare): no goroutine, no watcher.
type certReloader struct {
	certFile, keyFile string
	logger            *slog.Logger

	mu    sync.Mutex // guards the fields below
	cert  *tls.Certificate
	stamp string // the files' sizes and modification times when cert was loaded
}

// load reads the pair now; an error leaves the previous certificate in place.
func (c *certReloader) load() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	stamp, err := c.stampLocked()
	if err != nil {
		return err
	}
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("serving certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cert, c.stamp = &cert, stamp
	return nil
}

// get is tls.Config.GetCertificate.
func (c *certReloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	stamp, err := c.stampLocked()
	changed := err == nil && stamp != c.stamp // a file missing mid-rotation: keep the old pair
	c.mu.Unlock()
	if changed {
		if err := c.load(); err != nil {
			c.logger.Error("webhook server: the changed certificate does not load; serving the previous one", "err", err)
		} else {
			c.logger.Info("webhook server: serving certificate reloaded", "cert", c.certFile)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cert, nil
}

// stampLocked describes both files by size and modification time.
func (c *certReloader) stampLocked() (string, error) {
	var stamp string
	for _, f := range []string{c.certFile, c.keyFile} {
		fi, err := os.Stat(f)
		if err != nil {
			return "", fmt.Errorf("serving certificate: %w", err)
		}
		stamp += fmt.Sprintf("%s:%d:%d;", f, fi.Size(), fi.ModTime().UnixNano())
	}
	return stamp, nil
}
