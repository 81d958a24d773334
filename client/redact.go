package client

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// redacted stands in for a secret wherever a Config is printed or logged.
const redacted = "--- REDACTED ---"

// String describes the Config with its secrets redacted: the bearer token and
// the client key are replaced, a password in the server URL is masked, and
// certificate data is shown by size. fmt's %v and %+v use it.
func (c Config) String() string {
	return fmt.Sprintf("client.Config{Server: %q, BearerToken: %s, TLS: %s, Namespace: %q, UserAgent: %q, HealthCheck: %+v}",
		redactURL(c.Server), redactSecret(c.BearerToken), c.TLS, c.Namespace, c.UserAgent, c.HealthCheck)
}

// GoString is String for %#v, so that no format verb prints a secret.
func (c Config) GoString() string { return c.String() }

// LogValue makes slog log the Config with its secrets redacted.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("server", redactURL(c.Server)),
		slog.String("bearerToken", redactSecret(c.BearerToken)),
		slog.Any("tls", c.TLS),
		slog.String("namespace", c.Namespace),
		slog.String("userAgent", c.UserAgent),
	)
}

// RedactedServer returns Server with any password masked, for messages and
// logs.
func (c Config) RedactedServer() string { return redactURL(c.Server) }

// String describes the TLS settings without the client key: certificates by
// size, the key as redacted.
func (t TLSConfig) String() string {
	return fmt.Sprintf("{CAData: %s, CertData: %s, KeyData: %s, ServerName: %q, Insecure: %t}",
		pemSize(t.CAData), pemSize(t.CertData), redactSecret(string(t.KeyData)), t.ServerName, t.Insecure)
}

// GoString is String for %#v.
func (t TLSConfig) GoString() string { return t.String() }

// LogValue makes slog log the TLS settings without the client key.
func (t TLSConfig) LogValue() slog.Value { return slog.StringValue(t.String()) }

func redactSecret(s string) string {
	if s == "" {
		return `""`
	}
	return redacted
}

func pemSize(b []byte) string {
	if len(b) == 0 {
		return `""`
	}
	return fmt.Sprintf("%d bytes", len(b))
}

// redactURL hides the userinfo of a URL (xxxxx@host): a password, or a user
// name that is itself a token. A string that does not parse but looks like it
// carries userinfo loses everything before the '@' of its authority.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if u.User != nil {
			u.User = url.User("xxxxx")
		}
		return u.String()
	}
	scheme, rest, found := strings.Cut(raw, "://")
	if !found {
		scheme, rest = "", raw
	}
	authority, path, hasPath := strings.Cut(rest, "/")
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	out := "xxxxx@" + authority[at+1:]
	if hasPath {
		out += "/" + path
	}
	if found {
		out = scheme + "://" + out
	}
	return out
}
