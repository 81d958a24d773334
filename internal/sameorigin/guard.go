package sameorigin

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// JSON is the content type a state-changing request to the demo's page
// must have.
var JSON = []string{"application/json"}

// KubernetesTypes are the content types Kubernetes clients send on writes:
// JSON for create, update and delete options; the patch types (merge,
// strategic merge, JSON patch, server-side apply as YAML or CBOR); and
// protobuf, which a JSON-only server answers with an explanation (415)
// rather than a bare refusal. None of them is a type a page can send
// without the browser asking the server first.
var KubernetesTypes = []string{
	"application/json",
	"application/merge-patch+json",
	"application/strategic-merge-patch+json",
	"application/json-patch+json",
	"application/apply-patch+yaml",
	"application/apply-patch+cbor",
	"application/vnd.kubernetes.protobuf",
}

// Options configure a Guard.
type Options struct {
	// Hosts are more names (no port) a request's Host may carry, such as
	// the host name given in the listening address (`--addr myhost:8080`).
	// Loopback forms and the listening IP are always accepted.
	Hosts []string
	// ContentTypes are the media types a state-changing request's body may
	// have (parameters such as charset are ignored). Empty means [JSON].
	ContentTypes []string
	// Refuse writes the answer to a refused request; reason is one line.
	// Nil writes 403 with the reason as plain text.
	Refuse func(w http.ResponseWriter, r *http.Request, reason string)
}

// Guard checks that a request comes from this server's own pages or from
// a program, not from a page of another site. Make it with [New]; it is
// safe for concurrent use and never changes after New.
//
// client-go: none (kube-apiserver relies on authentication instead).
type Guard struct {
	port         string          // the listening port, as in a Host header
	hosts        map[string]bool // accepted names and IPs, lower case, no brackets
	contentTypes map[string]bool
	refuse       func(w http.ResponseWriter, r *http.Request, reason string)
	describe     string // the accepted hosts, for refusals
}

// New returns a Guard for a server listening on addr (a listener's Addr:
// host and port). A server listening on every interface (0.0.0.0, [::])
// accepts the address of each of this machine's interfaces as well.
func New(addr net.Addr, opts Options) (*Guard, error) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil, fmt.Errorf("sameorigin: listening address %q: %w", addr, err)
	}
	g := &Guard{port: port, hosts: map[string]bool{"localhost": true}, contentTypes: map[string]bool{}, refuse: opts.Refuse}
	if g.refuse == nil {
		g.refuse = refusePlain
	}
	for _, t := range cmpOr(opts.ContentTypes, JSON) {
		g.contentTypes[strings.ToLower(t)] = true
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		g.add(host)
	case ip.IsUnspecified():
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					g.add(n.IP.String())
				}
			}
		}
	default:
		g.add(ip.String())
	}
	for _, h := range opts.Hosts {
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip == nil || !ip.IsUnspecified() {
			g.add(h)
		}
	}
	names := []string{"localhost", "127.0.0.1", "[::1]"}
	for h := range g.hosts {
		if h != "localhost" && h != "127.0.0.1" && h != "::1" && !strings.HasPrefix(h, "fe80:") {
			names = append(names, bracket(h))
		}
	}
	sort.Strings(names[3:])
	g.describe = strings.Join(names, ", ") + " with port " + port
	return g, nil
}

func (g *Guard) add(host string) {
	if host = strings.ToLower(strings.Trim(host, "[]")); host != "" {
		g.hosts[host] = true
	}
}

// Handler returns next behind the guard: a refused request gets
// Options.Refuse and never reaches next.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.Check(r); err != nil {
			g.refuse(w, r, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Check returns nil if r may go on, or an error saying in one line why
// not. Every request must name this server in Host; a state-changing one
// (any method but GET, HEAD and OPTIONS) must also come from this
// server's own page or from no page at all, and carry a body type that a
// page cannot send without asking first.
func (g *Guard) Check(r *http.Request) error {
	if !g.hostOK(r.Host, scheme(r)) {
		return fmt.Errorf("sameorigin: refused: Host %q is not this server (%s); a page of another site reaches a local server through a name of its own (DNS rebinding)", r.Host, g.describe)
	}
	if safeMethod(r.Method) {
		return nil
	}
	// Browsers say where a request comes from: Sec-Fetch-Site on every
	// request, Origin on every request that is not GET or HEAD.
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return fmt.Errorf("sameorigin: refused: a %s request from another site (Sec-Fetch-Site: %s) may not change anything here", r.Method, site)
	}
	if origin, ok := r.Header["Origin"]; ok {
		if want := scheme(r) + "://" + strings.ToLower(r.Host); len(origin) != 1 || !sameOrigin(origin[0], want, scheme(r)) {
			return fmt.Errorf("sameorigin: refused: a %s request from the page at %q, not from this server's own page (%s)", r.Method, strings.Join(origin, ", "), want)
		}
	}
	return g.contentTypeOK(r)
}

// contentTypeOK requires a body type a browser will not send from a form
// or a simple fetch: those can only say text/plain, a form encoding, or
// nothing. DELETE may go without one: a browser asks before any DELETE.
func (g *Guard) contentTypeOK(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.Method == http.MethodDelete {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || !g.contentTypes[strings.ToLower(mt)] {
		return fmt.Errorf("sameorigin: refused: a %s must send %s, not Content-Type %q (what a form or a page of another site can send)", r.Method, g.typesText(), ct)
	}
	return nil
}

func (g *Guard) typesText() string {
	var ts []string
	for t := range g.contentTypes {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	if len(ts) == 1 {
		return "Content-Type " + ts[0]
	}
	return "a Content-Type among " + strings.Join(ts, ", ")
}

// hostOK reports whether a Host header names this server: an accepted name
// or a loopback IP, with the listening port (or none when the port is the
// scheme's default).
func (g *Guard) hostOK(hostport, scheme string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: only the scheme's default port may go unsaid.
		host, port = hostport, map[string]string{"http": "80", "https": "443"}[scheme]
		if strings.Contains(strings.Trim(host, "[]"), ":") && !strings.HasPrefix(host, "[") {
			return false // an IPv6 literal must be bracketed
		}
	}
	if port != g.port {
		return false
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback() || g.hosts[ip.String()]
	}
	return g.hosts[host]
}

// sameOrigin compares an Origin header with scheme://host[:port], the
// default port written or not.
func sameOrigin(origin, want, scheme string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.User != nil {
		return false // "null", a path, garbage
	}
	return normalize(u.Scheme, u.Host) == normalize(scheme, strings.TrimPrefix(want, scheme+"://"))
}

func normalize(scheme, hostport string) string {
	scheme, hostport = strings.ToLower(scheme), strings.ToLower(hostport)
	if h, p, err := net.SplitHostPort(hostport); err == nil &&
		((scheme == "http" && p == "80") || (scheme == "https" && p == "443")) {
		hostport = bracket(h)
	}
	return scheme + "://" + hostport
}

func bracket(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func refusePlain(w http.ResponseWriter, _ *http.Request, reason string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusForbidden)
	_, _ = fmt.Fprintln(w, reason)
}

func cmpOr(s, def []string) []string {
	if len(s) == 0 {
		return def
	}
	return s
}
