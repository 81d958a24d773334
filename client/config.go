package client

import (
	"cmp"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config says where the API server is and how to authenticate to it. Build one with
// [ConfigFromURL] or [LoadKubeconfig], or fill the fields directly. The zero TLS settings
// mean "verify the server against the system's root CAs"; verification is skipped only
// when TLS.Insecure is set, which [LoadKubeconfig] does only when the kubeconfig itself
// says insecure-skip-tls-verify.
//
// client-go: rest.Config.
type Config struct {
	// Server is the API server's base URL: scheme, host, port and an optional path
	// prefix, e.g. "https://127.0.0.1:6443" or "http://127.0.0.1:8080".
	Server string

	// BearerToken, if set, is sent as "Authorization: Bearer <token>" on every request.
	BearerToken string

	// TLS holds the certificate settings used for https servers.
	TLS TLSConfig

	// Namespace is the namespace the kubeconfig context names, for callers to pass to
	// [ResourceClient.Namespace]. The client never applies it on its own.
	Namespace string

	// UserAgent is sent on every request; empty means "informerlab-client".
	UserAgent string

	// Logger receives one Debug line per request; nil means slog.Default().
	Logger *slog.Logger

	// HealthCheck says when a silent HTTP/2 connection is pinged and when it is given
	// up for dead. The zero value is client-go's: ping after 30 s, drop after 15 more.
	HealthCheck HealthCheck

	// Timeout bounds each request but a watch, from sending it to reading the whole
	// answer; a retry gets a new one. A watch is bounded by it only until its response
	// headers arrive: after that it may run for as long as the server keeps it open.
	// Zero means DefaultTimeout; a negative value means no bound (a context still
	// bounds every request).
	Timeout time.Duration

	// MaxResponseBytes caps the body of every response but a watch's (whose events are
	// capped one by one at MaxWatchEventBytes). A larger answer fails, with an error
	// that says so, once MaxResponseBytes have been read. Zero means no cap.
	MaxResponseBytes int64

	// WrapTransport, when set, wraps the transport every request of the client goes
	// through: it is given the shared transport of the Config's TLS and health-check
	// settings and returns the RoundTripper the client uses, typically one that
	// observes each request and response (counts the bytes of response bodies,
	// times requests) and calls the shared one. The wrapper belongs to this client
	// alone: the transport under it, and so its connections, are still shared with
	// every client of the same settings, and a wrapper never decides which transport
	// that is. It must not return nil.
	//
	// client-go: rest.Config.WrapTransport.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// DefaultTimeout is Config.Timeout's default: kube-apiserver's own limit on a
// request (its --request-timeout, 60 s). A server that has not answered by then
// never will.
const DefaultTimeout = 60 * time.Second

// HealthCheck is the HTTP/2 connection health check. Over TLS the client speaks
// HTTP/2, and every request to a server, watches included, shares one TCP connection.
// When that connection dies without a word (a NAT or load balancer forgot the flow, a
// proxy stopped forwarding), nothing on it ever fails by itself: a watch stays open
// and silent, and a re-watch or relist sent on it waits for an answer forever. The
// health check notices: after PingAfter without a frame from the server it sends a
// ping, and if no answer comes within PingTimeout it closes the connection, which
// fails every request on it and makes the next ones dial a new connection.
//
// client-go: rest.Config's transport (apimachinery util/net.SetTransportDefaults:
// ReadIdleTimeout 30s, PingTimeout 15s).
type HealthCheck struct {
	// PingAfter is how long a connection may carry nothing from the server before the
	// client pings it; zero means DefaultPingAfter.
	PingAfter time.Duration
	// PingTimeout is how long the client waits for the ping's answer before it closes
	// the connection; zero means DefaultPingTimeout.
	PingTimeout time.Duration
}

// The health check's defaults, client-go's figures.
const (
	DefaultPingAfter   = 30 * time.Second
	DefaultPingTimeout = 15 * time.Second
)

// TLSConfig holds PEM-encoded certificate material, as found in a kubeconfig.
//
// client-go: rest.TLSClientConfig.
type TLSConfig struct {
	// CAData is the PEM bundle that verifies the server. Empty means the system roots.
	CAData []byte
	// CertData and KeyData are the PEM client certificate and key, both or neither.
	CertData []byte
	KeyData  []byte
	// ServerName overrides the name the server certificate is checked against.
	ServerName string
	// Insecure skips verification of the server certificate. It must never be set
	// unless the user asked for it explicitly, and it cannot be combined with CAData.
	Insecure bool
}

// ConfigFromURL returns a Config for an API server at rawURL with no credentials, such
// as a local fakeapi ("http://127.0.0.1:8080"). An https URL is verified against the
// system roots unless the caller sets TLS fields on the result.
func ConfigFromURL(rawURL string) (*Config, error) {
	cfg := &Config{Server: rawURL}
	if _, err := cfg.serverURL(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// serverURL parses and checks Server.
func (c *Config) serverURL() (*url.URL, error) {
	if c.Server == "" {
		return nil, errors.New("client: config has no server URL")
	}
	shown := redactURL(c.Server)
	if !strings.Contains(c.Server, "://") {
		return nil, fmt.Errorf("client: server URL %q: scheme must be http or https (e.g. https://127.0.0.1:6443)", shown)
	}
	hasUserinfo := shown != c.Server
	u, err := url.Parse(c.Server)
	if err != nil && hasUserinfo {
		// The parser's message quotes the part it choked on, which may be a
		// piece of the password (`invalid port ":pa" after host`).
		return nil, fmt.Errorf("client: server URL %q does not parse; %s", shown, escapeHint)
	}
	if err != nil {
		var ue *url.Error // its message repeats the whole URL
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("client: server URL %q: %w", shown, err)
	}
	if strings.Contains(u.Path, "@") {
		// Only a password with an unescaped '/' makes https://admin:1234/5678@host
		// valid: as host "admin", port 1234, path "/5678@host".
		return nil, fmt.Errorf("client: server URL %q has an '@' in its path; %s", shown, escapeHint)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("client: server URL %q: scheme must be http or https", shown)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("client: server URL %q has no host", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		if hasUserinfo {
			return nil, fmt.Errorf("client: server URL %q must not have a query or fragment; %s", shown, escapeHint)
		}
		return nil, fmt.Errorf("client: server URL %q must not have a query or fragment", shown)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// escapeHint says how to write a password that breaks a URL apart.
const escapeHint = "a '/', '?', '#', '@' or space in a user name or password must be percent-encoded (%2F, %3F, %23, %40, %20)"

// tlsConfig turns the PEM material into a *tls.Config. It refuses combinations that
// would silently weaken verification.
func (t TLSConfig) tlsConfig() (*tls.Config, error) {
	out := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.Insecure && len(t.CAData) > 0 {
		return nil, errors.New("client: TLS: a CA bundle together with insecure skip-verify is contradictory; remove one")
	}
	if t.Insecure {
		// Only reachable when the user asked for it (kubeconfig insecure-skip-tls-verify).
		out.InsecureSkipVerify = true
	}
	if len(t.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CAData) {
			return nil, errors.New("client: TLS: CA data holds no PEM certificate")
		}
		out.RootCAs = pool
	}
	switch {
	case len(t.CertData) > 0 && len(t.KeyData) > 0:
		cert, err := tls.X509KeyPair(t.CertData, t.KeyData)
		if err != nil {
			return nil, fmt.Errorf("client: TLS: client certificate and key: %w", err)
		}
		out.Certificates = []tls.Certificate{cert}
	case len(t.CertData) > 0:
		return nil, errors.New("client: TLS: client certificate without a key")
	case len(t.KeyData) > 0:
		return nil, errors.New("client: TLS: client key without a certificate")
	}
	return out, nil
}

// transport returns the HTTP transport for this config's TLS and health-check
// settings: the standard one (proxies from the environment, keep-alives,
// HTTP/2) with those settings. Clients with equal settings share one transport,
// and so its connections: a program that makes a client per informer, or per
// request, holds one pool of connections per server, not one per client.
//
// client-go: rest's transport cache (transport/cache.go), keyed the same way.
func (c *Config) transport() (*http.Transport, error) {
	if c.HealthCheck.PingAfter < 0 || c.HealthCheck.PingTimeout < 0 {
		return nil, fmt.Errorf("client: HealthCheck %+v: durations must not be negative", c.HealthCheck)
	}
	key := transportKey{
		tls:         c.TLS.fingerprint(),
		pingAfter:   cmp.Or(c.HealthCheck.PingAfter, DefaultPingAfter),
		pingTimeout: cmp.Or(c.HealthCheck.PingTimeout, DefaultPingTimeout),
	}
	transports.mu.Lock()
	defer transports.mu.Unlock()
	if tr, ok := transports.byKey[key]; ok {
		return tr, nil
	}
	tlsCfg, err := c.TLS.tlsConfig()
	if err != nil {
		return nil, err
	}
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, errors.New("client: http.DefaultTransport is not an *http.Transport")
	}
	tr := base.Clone()
	tr.TLSClientConfig = tlsCfg
	tr.HTTP2 = &http.HTTP2Config{SendPingTimeout: key.pingAfter, PingTimeout: key.pingTimeout}
	transports.byKey[key] = tr
	return tr, nil
}

// transports is the process's one cache of transports, like
// http.DefaultTransport: a transport owns connections, and connections belong
// to the process, not to a Client. It grows by one entry per distinct TLS and
// health-check setting, which a program has few of.
var transports = struct {
	mu    sync.Mutex // guards byKey
	byKey map[transportKey]*http.Transport
}{byKey: map[transportKey]*http.Transport{}}

// transportKey is what makes two transports different.
type transportKey struct {
	tls                    [sha256.Size]byte
	pingAfter, pingTimeout time.Duration
}

// fingerprint digests every TLS setting, so that the cache key holds no key
// material itself.
func (t TLSConfig) fingerprint() [sha256.Size]byte {
	h := sha256.New()
	for _, field := range [][]byte{t.CAData, t.CertData, t.KeyData, []byte(t.ServerName), []byte(strconv.FormatBool(t.Insecure))} {
		_ = binary.Write(h, binary.BigEndian, uint64(len(field)))
		h.Write(field)
	}
	return [sha256.Size]byte(h.Sum(nil))
}
