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

// Every form a server URL's userinfo can take stays hidden wherever the URL is
// shown: a password with an unescaped '/', '?', '#', '@' or space (which a URL
// parser reads as the end of the host, or refuses), a percent-encoded one, a
// user name that is a token, a URL that does not parse, a URL without a
// scheme. Config's every fmt verb and slog, RedactedServer, and the errors of
// ConfigFromURL and New show the host and never a piece of the secret.
// Diagram: none. client-go: none (rest.Config.String redacts the token, not
// the host's userinfo).
func TestNoFormOfServerURLShowsItsUserinfo(t *testing.T) {
	cases := []struct {
		url     string
		secrets []string
	}{
		{"https://admin:pa/ss-secret@10.0.0.1:6443", []string{"pa/ss", "ss-secret"}},
		{"https://admin:1234/5678@10.0.0.1:6443", []string{"1234", "5678"}},
		{"https://admin:p@ss/w0rd-secret@10.0.0.1:6443", []string{"p@ss", "w0rd-secret"}},
		{"https://admin:pa%2Fss-secret@10.0.0.1:6443", []string{"pa%2Fss", "ss-secret"}},
		{"https://admin:pw?q-secret@10.0.0.1:6443", []string{"pw?q", "q-secret"}},
		{"https://admin:1234?q-secret@10.0.0.1:6443", []string{"1234", "q-secret"}},
		{"https://admin:pw#f-secret@10.0.0.1:6443", []string{"pw#f", "f-secret"}},
		{"https://admin:pw s-secret@10.0.0.1:6443", []string{"s-secret"}},
		{"https://tok-as-user-secret@10.0.0.1:6443", []string{"tok-as-user"}},
		{"https://admin:pw-secret@10.0.0.1:6443/prefix", []string{"pw-secret"}},
		{"https://admin:pw-secret@10.0.0.1:6443[", []string{"pw-secret"}},
		{"admin:pw-secret@10.0.0.1:6443", []string{"pw-secret"}},
		{"ht*tp://admin:pw-secret@10.0.0.1:6443", []string{"pw-secret"}},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			cfg := client.Config{Server: tc.url, BearerToken: secretToken}
			_, fromURLErr := client.ConfigFromURL(tc.url)
			_, newErr := client.New(&cfg, nil)

			shown := []string{cfg.RedactedServer()}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
				shown = append(shown, fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg))
			}
			var logs bytes.Buffer
			slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "config", cfg)
			slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "config", &cfg)
			shown = append(shown, logs.String())
			for _, err := range []error{fromURLErr, newErr} {
				if err != nil {
					shown = append(shown, err.Error())
				}
			}

			for _, out := range shown {
				for _, secret := range tc.secrets {
					assert.NotContains(t, out, secret)
				}
				assert.NotContains(t, out, secretToken)
				assert.Contains(t, out, "10.0.0.1", "the host still shows")
			}
		})
	}
}

// A server URL that only a password with an unescaped '/' makes valid
// (https://admin:1234/5678@host parses as host "admin", port 1234 and path
// "/5678@host") is refused, with an error that says how to write the
// password, rather than sent to the wrong host.
// Diagram: none. client-go: none (it would dial admin:1234).
func TestAServerURLWithAnAtInItsPathIsRefused(t *testing.T) {
	_, err := client.ConfigFromURL("https://admin:1234/5678@10.0.0.1:6443")

	require.Error(t, err)
	assert.Contains(t, err.Error(), `client: server URL "https://xxxxx@10.0.0.1:6443"`)
	assert.Contains(t, err.Error(), "%2F")
}

// No fmt verb and no slog handler prints a Client's bearer token or its
// server URL's userinfo: the Client describes itself with both redacted, as
// Config does, and a Client value holds its token behind a pointer, which
// fmt prints as an address.
// Diagram: none. client-go: rest.Config redacts when printed through a
// pointer; a rest.RESTClient prints its token.
func TestClientNeverPrintsItsToken(t *testing.T) {
	c, err := client.New(&client.Config{Server: "https://admin:" + secretPassword + "@10.0.0.1:6443", BearerToken: secretToken}, nil)
	require.NoError(t, err)
	rc := c.Resource(configMaps).Namespace("ns")

	var shown []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		shown = append(shown, fmt.Sprintf(verb, c), fmt.Sprintf(verb, rc), fmt.Sprintf(verb, struct{ C *client.Client }{c}))
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("client", "client", c, "resource", rc)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("client", "client", c, "resource", rc)
	shown = append(shown, logs.String())

	for _, out := range shown {
		assert.NotContains(t, out, secretToken)
		assert.NotContains(t, out, secretPassword)
	}
	assert.Equal(t, `client.Client{Server: "https://xxxxx@10.0.0.1:6443", BearerToken: --- REDACTED ---, UserAgent: "informerlab-client"}`, fmt.Sprintf("%+v", c))
}

// A user name that is itself a token (https://TOKEN@host) stays out of a
// failed request's error too: net/http masks a password in the URL of its
// errors, not a user name.
// Diagram: step 1. client-go: none.
func TestARefusedRequestsErrorHidesAUserNameToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := client.New(&client.Config{Server: strings.Replace(srv.URL, "http://", "http://tok-as-user-secret@", 1), Logger: slog.New(slog.DiscardHandler)}, nil)
	require.NoError(t, err)

	_, getErr := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
	_, discoveryErr := c.ServerGroups(t.Context())

	require.Error(t, getErr)
	require.Error(t, discoveryErr)
	assert.NotContains(t, getErr.Error(), "tok-as-user-secret")
	assert.NotContains(t, discoveryErr.Error(), "tok-as-user-secret")
	assert.Contains(t, getErr.Error(), "xxxxx@127.0.0.1")
}
