package client

import (
	"errors"
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

// String describes the Client with its secrets redacted, as Config.String
// does: the server URL with its userinfo masked, the bearer token replaced.
func (c *Client) String() string {
	token := ""
	if c.token != nil {
		token = *c.token
	}
	return fmt.Sprintf("client.Client{Server: %q, BearerToken: %s, UserAgent: %q}",
		redactURL(c.base.String()), redactSecret(token), c.userAgent)
}

// Format prints String for every verb (%v, %+v, %#v, %s, %q, %x, ...), so that
// no verb walks the fields. A Client value (not a pointer) has no Format, but
// holds its token behind a pointer, which fmt prints as an address.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = fmt.Fprint(f, c.String()) }

// LogValue makes slog log the Client as String describes it.
func (c *Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

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

// redactURL hides the userinfo of a URL (user:password@host): a password, or a
// user name that is itself a token. It works on the text, not on a parse: a
// password with an unescaped '/', '?' or '#' ends the authority early for a
// URL parser, so https://admin:1234/5678@host parses as host "admin", port
// 1234 and path "/5678@host", with no userinfo at all. Everything from the
// start of the authority to the last '@' of the string is replaced, wherever
// that '@' is: a URL with an '@' further on loses more than its userinfo,
// never less.
func redactURL(raw string) string {
	prefix, rest := "", raw
	if scheme, after, ok := strings.Cut(raw, "://"); ok && isScheme(scheme) {
		prefix, rest = scheme+"://", after
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	return prefix + "xxxxx@" + rest[at+1:]
}

// isScheme says whether s is a URL scheme: a letter, then letters, digits,
// '+', '-' or '.' (RFC 3986, section 3.1).
func isScheme(s string) bool {
	for i, r := range s {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case i > 0 && ('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// redactError hides the userinfo of the URL in err, if err is (or wraps) the
// *url.Error of a request: net/http masks a password there, but not a user
// name, which may be a token.
func redactError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redactURL(ue.URL)
	}
	return err
}
