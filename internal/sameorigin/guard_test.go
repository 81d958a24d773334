package sameorigin_test

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/sameorigin"
)

// request builds a request to the server as a client would send it: Host
// from the URL, then the headers given as name, value pairs.
func request(method, url string, headers ...string) *http.Request {
	r := httptest.NewRequest(method, url, strings.NewReader(`{}`))
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

// withHost sets the Host header as a client could, whatever the URL.
func withHost(r *http.Request, host string) *http.Request {
	r.Host = host
	return r
}

func newGuard(t *testing.T, addr string, opts sameorigin.Options) *sameorigin.Guard {
	t.Helper()
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	require.NoError(t, err)
	g, err := sameorigin.New(tcp, opts)
	require.NoError(t, err)
	return g
}

const json = "application/json"

// TestGuardRefusesWhatAPageOfAnotherSiteCanSend walks each rule: a
// request a page of another site can make (a form, a no-cors fetch, a
// rebound DNS name) is refused with a reason naming the rule; a program
// that names the server and sends JSON is not.
// Diagram: API. client-go: none.
func TestGuardRefusesWhatAPageOfAnotherSiteCanSend(t *testing.T) {
	g := newGuard(t, "127.0.0.1:8080", sameorigin.Options{})
	const self = "http://127.0.0.1:8080"
	tests := []struct {
		name string
		r    *http.Request
		want string // "" if accepted
	}{
		{"foreign Host on a read", request("GET", "http://evil.example:8080/api/state"), `Host "evil.example:8080" is not this server`},
		{"foreign Host on a write", request("POST", "http://evil.example:8080/api/control", "Content-Type", json), "DNS rebinding"},
		{"loopback Host with another port", request("GET", "http://127.0.0.1:9090/api/state"), `Host "127.0.0.1:9090"`},
		{"no Host (HTTP/1.0)", withHost(request("GET", "http://127.0.0.1:8080/api/state"), ""), `Host ""`},
		{"foreign Origin", request("POST", self+"/api/control", "Content-Type", json, "Origin", "http://evil.example"), `from the page at "http://evil.example"`},
		{"Origin on another port of the same host", request("POST", self+"/api/control", "Content-Type", json, "Origin", "http://127.0.0.1:9090"), "not from this server's own page"},
		{"Origin with another scheme", request("POST", self+"/api/control", "Content-Type", json, "Origin", "https://127.0.0.1:8080"), "not from this server's own page"},
		{"null Origin (sandboxed frame, file:)", request("POST", self+"/api/control", "Content-Type", json, "Origin", "null"), `"null"`},
		{"cross-site Sec-Fetch-Site", request("POST", self+"/api/control", "Content-Type", json, "Sec-Fetch-Site", "cross-site"), "Sec-Fetch-Site: cross-site"},
		{"same-site Sec-Fetch-Site (another port)", request("POST", self+"/api/control", "Content-Type", json, "Sec-Fetch-Site", "same-site"), "Sec-Fetch-Site: same-site"},
		{"text/plain (a no-cors fetch)", request("POST", self+"/api/control", "Content-Type", "text/plain;charset=UTF-8"), `not Content-Type "text/plain;charset=UTF-8"`},
		{"a form", request("POST", self+"/api/control", "Content-Type", "application/x-www-form-urlencoded"), "Content-Type application/json"},
		{"a multipart form", request("POST", self+"/api/control", "Content-Type", "multipart/form-data; boundary=x"), "what a form or a page of another site can send"},
		{"no Content-Type on a POST", request("POST", self+"/api/control"), `not Content-Type ""`},
		{"no Content-Type on a PUT", request("PUT", self+"/api/control"), `a PUT must send`},
		{"a malformed Content-Type", request("POST", self+"/api/control", "Content-Type", "application/json; =x"), "not Content-Type"},

		{"a program's JSON POST", request("POST", self+"/api/control", "Content-Type", json), ""},
		{"JSON with a charset", request("POST", self+"/api/control", "Content-Type", "Application/JSON; charset=utf-8"), ""},
		{"the page's own POST", request("POST", self+"/api/control", "Content-Type", json, "Origin", self, "Sec-Fetch-Site", "same-origin"), ""},
		{"localhost", request("POST", "http://localhost:8080/api/control", "Content-Type", json, "Origin", "http://localhost:8080"), ""},
		{"LOCALHOST in capitals", request("GET", "http://LOCALHOST:8080/api/state"), ""},
		{"[::1]", request("POST", "http://[::1]:8080/api/control", "Content-Type", json, "Origin", "http://[::1]:8080"), ""},
		{"another loopback IP", request("GET", "http://127.0.0.2:8080/api/state"), ""},
		{"a typed URL (Sec-Fetch-Site: none)", request("GET", self+"/", "Sec-Fetch-Site", "none"), ""},
		{"a cross-site read (the browser keeps the answer from the page)", request("GET", self+"/api/state", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), ""},
		{"a DELETE without a body", request("DELETE", self+"/x"), ""},
		{"OPTIONS", request("OPTIONS", self+"/api/control", "Origin", "http://evil.example"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.Check(tt.r)

			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "sameorigin: refused: "), err.Error())
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// TestGuardLetsKubernetesClientsWrite: with KubernetesTypes, every body
// type kubectl and client-go send on a write passes, with the Host they
// send and no Origin; a text/plain POST still does not.
// Diagram: API. client-go: rest.Request (Content-Type of each verb).
func TestGuardLetsKubernetesClientsWrite(t *testing.T) {
	g := newGuard(t, "127.0.0.1:6443", sameorigin.Options{ContentTypes: sameorigin.KubernetesTypes})
	const cms = "http://127.0.0.1:6443/api/v1/namespaces/default/configmaps"

	for _, tt := range []struct{ method, contentType string }{
		{"POST", "application/json"},
		{"PUT", "application/json"},
		{"DELETE", "application/json"},
		{"PATCH", "application/merge-patch+json"},
		{"PATCH", "application/strategic-merge-patch+json"},
		{"PATCH", "application/json-patch+json"},
		{"PATCH", "application/apply-patch+yaml"},
		{"POST", "application/vnd.kubernetes.protobuf"},
	} {
		assert.NoError(t, g.Check(request(tt.method, cms, "Content-Type", tt.contentType, "User-Agent", "kubectl/v1.32.0")), "%s %s", tt.method, tt.contentType)
	}
	err := g.Check(request("POST", "http://127.0.0.1:6443/admin/faults/latency?delay=5s", "Content-Type", "text/plain"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a Content-Type among application/apply-patch+cbor, application/apply-patch+yaml, application/json,")
}

// TestGuardAcceptsTheNamesOfItsListeningAddress: the listening IP and the
// names given in Options.Hosts pass, with the listening port only; a
// server on every interface accepts loopback and its interfaces'
// addresses, and the port may go unsaid when it is the scheme's default.
// Diagram: API. client-go: none.
func TestGuardAcceptsTheNamesOfItsListeningAddress(t *testing.T) {
	onLAN := newGuard(t, "192.0.2.7:8080", sameorigin.Options{Hosts: []string{"MyHost.lan"}})
	everywhere := newGuard(t, "0.0.0.0:8080", sameorigin.Options{Hosts: []string{"0.0.0.0"}})
	onPort80 := newGuard(t, "127.0.0.1:80", sameorigin.Options{})
	tlsOn443 := newGuard(t, "127.0.0.1:443", sameorigin.Options{})

	assert.NoError(t, onLAN.Check(request("GET", "http://192.0.2.7:8080/")))
	assert.NoError(t, onLAN.Check(request("POST", "http://myhost.lan:8080/", "Content-Type", json, "Origin", "http://myhost.lan:8080")))
	assert.NoError(t, onLAN.Check(request("GET", "http://localhost:8080/")))
	assert.Error(t, onLAN.Check(request("GET", "http://192.0.2.8:8080/")), "another machine's IP")
	assert.Error(t, onLAN.Check(request("GET", "http://myhost.lan:8081/")), "another port")
	assert.NoError(t, everywhere.Check(request("GET", "http://127.0.0.1:8080/")))
	assert.NoError(t, everywhere.Check(request("GET", "http://[::1]:8080/")))
	assert.Error(t, everywhere.Check(request("GET", "http://0.0.0.0:8080/")), "the unspecified address names no machine")
	assert.Error(t, everywhere.Check(request("GET", "http://evil.example:8080/")))
	if ip := firstInterfaceIP(t); ip != "" {
		assert.NoError(t, everywhere.Check(request("GET", "http://"+net.JoinHostPort(ip, "8080")+"/")), "interface address %s", ip)
	}
	assert.NoError(t, onPort80.Check(request("POST", "http://localhost/", "Content-Type", json, "Origin", "http://localhost")))
	assert.NoError(t, onPort80.Check(request("POST", "http://localhost/", "Content-Type", json, "Origin", "http://localhost:80")))
	assert.Error(t, onPort80.Check(withHost(request("GET", "http://127.0.0.1/"), "::1")), "an IPv6 Host without brackets")
	secure := request("POST", "https://localhost/", "Content-Type", json, "Origin", "https://localhost")
	secure.TLS = &tls.ConnectionState{}
	assert.NoError(t, tlsOn443.Check(secure))
	plainOrigin := request("POST", "https://localhost/", "Content-Type", json, "Origin", "http://localhost")
	plainOrigin.TLS = &tls.ConnectionState{}
	assert.Error(t, tlsOn443.Check(plainOrigin), "an http page is another origin than the https server")
}

// firstInterfaceIP returns a non-loopback address of this machine, if it
// has one.
func firstInterfaceIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// TestGuardHandlerNeverCallsTheHandlerOnARefusal: the wrapped handler runs
// for an accepted request only; a refusal gets Options.Refuse, or a plain
// 403 by default.
// Diagram: API. client-go: none.
func TestGuardHandlerNeverCallsTheHandlerOnARefusal(t *testing.T) {
	calls := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { calls++ })
	var refusedWith string
	custom := newGuard(t, "127.0.0.1:8080", sameorigin.Options{Refuse: func(w http.ResponseWriter, _ *http.Request, reason string) {
		refusedWith = reason
		w.WriteHeader(http.StatusTeapot)
	}})
	plain := newGuard(t, "127.0.0.1:8080", sameorigin.Options{})
	form := func() *http.Request {
		return request("POST", "http://127.0.0.1:8080/", "Content-Type", "text/plain")
	}

	w1, w2, w3 := httptest.NewRecorder(), httptest.NewRecorder(), httptest.NewRecorder()
	plain.Handler(next).ServeHTTP(w1, form())
	custom.Handler(next).ServeHTTP(w2, form())
	plain.Handler(next).ServeHTTP(w3, request("POST", "http://127.0.0.1:8080/", "Content-Type", json))

	assert.Equal(t, http.StatusForbidden, w1.Code)
	assert.Equal(t, "text/plain; charset=utf-8", w1.Header().Get("Content-Type"))
	assert.Contains(t, w1.Body.String(), `not Content-Type "text/plain"`)
	assert.Equal(t, http.StatusTeapot, w2.Code)
	assert.Contains(t, refusedWith, "sameorigin: refused: ")
	assert.Equal(t, http.StatusOK, w3.Code)
	assert.Equal(t, 1, calls, "only the accepted request reached the handler")
}

// TestNewRefusesAnAddressWithoutAPort: an address that is not host:port is
// an error, not a guard that refuses everything.
// Diagram: API. client-go: none.
func TestNewRefusesAnAddressWithoutAPort(t *testing.T) {
	_, err := sameorigin.New(&net.UnixAddr{Name: "/tmp/sock", Net: "unix"}, sameorigin.Options{})

	require.Error(t, err)
	assert.Contains(t, err.Error(), `sameorigin: listening address "/tmp/sock"`)
}
