package client_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
)

const (
	secretToken    = "tok-0123456789-secret"
	secretKey      = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIKEY-secret\n-----END EC PRIVATE KEY-----\n"
	secretPassword = "pa55-secret"
)

// No way of printing a Config shows its bearer token, its client key or a
// password in its server URL: every fmt verb, and slog in both of its output
// formats, see a redacted copy. What is not secret (the server's host, the
// namespace, the size of the certificates) still shows, so the line stays
// useful for debugging.
// Diagram: none. client-go: rest.Config.String and GoString redact the same fields.
func TestConfigNeverPrintsItsSecrets(t *testing.T) {
	cfg := client.Config{
		Server:      "https://admin:" + secretPassword + "@10.0.0.1:6443",
		BearerToken: secretToken,
		TLS:         client.TLSConfig{CAData: []byte("ca-pem"), CertData: []byte("cert-pem"), KeyData: []byte(secretKey)},
		Namespace:   "team-a",
	}
	var printed []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		printed = append(printed, fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg))
		assert.NotContains(t, fmt.Sprintf(verb, cfg.TLS), "KEY-secret")
	}
	for _, h := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
	} {
		var buf bytes.Buffer
		slog.New(h(&buf)).Info("connecting", "config", cfg, "pointer", &cfg, "tls", cfg.TLS)
		printed = append(printed, buf.String())
	}

	for _, out := range printed {
		assert.NotContains(t, out, secretToken)
		assert.NotContains(t, out, "KEY-secret")
		assert.NotContains(t, out, secretPassword)
		assert.Contains(t, out, "10.0.0.1:6443")
	}
	assert.Contains(t, fmt.Sprint(cfg), "team-a")
	assert.Contains(t, fmt.Sprint(cfg), "6 bytes", "the CA is shown by size")
	assert.Equal(t, "https://xxxxx@10.0.0.1:6443", cfg.RedactedServer())
}

// A password in the server URL never reaches a log line or an error message:
// not the per-request debug line, not the "retrying" line, not a refused
// connection's error, not a bad URL's error.
// Diagram: step 1. client-go: none (it has no userinfo in its URLs).
func TestLogLinesAndErrorsHideTheServerURLsPassword(t *testing.T) {
	retried := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !retried {
			retried = true
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(aConfigMap))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	withPassword := strings.Replace(srv.URL, "http://", "http://admin:"+secretPassword+"@", 1)
	c, err := client.New(&client.Config{Server: withPassword, Logger: logger}, nil)
	require.NoError(t, err)

	_, err = c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
	require.NoError(t, err)
	srv.Close()
	_, refused := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
	_, badURL := client.New(&client.Config{Server: "http://admin:" + secretPassword + "@[::1"}, nil)

	require.Error(t, refused)
	require.Error(t, badURL)
	assert.Contains(t, logs.String(), "client: retrying")
	assert.Contains(t, logs.String(), "xxxxx@127.0.0.1")
	assert.NotContains(t, logs.String(), secretPassword)
	assert.NotContains(t, refused.Error(), secretPassword)
	assert.NotContains(t, badURL.Error(), secretPassword)
}
