package pipelineweb

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"io/fs"
	"net/http"
)

// TokenHeader carries the page's control token on every POST to
// /api/control.
const TokenHeader = "X-Control-Token"

// tokenMeta is the placeholder in assets/index.html that the server fills
// with its token; app.js reads it back.
const tokenMeta = `<meta name="control-token" content="">`

// newToken returns a fresh random token of at least 128 bits.
func newToken() string { return rand.Text() }

// renderPage returns index.html with token in its control-token meta tag.
func renderPage(static fs.FS, token string) []byte {
	page, err := fs.ReadFile(static, "index.html")
	if err != nil || !bytes.Contains(page, []byte(tokenMeta)) {
		panic(fmt.Sprintf("pipelineweb: assets/index.html lacks %s: a build error", tokenMeta)) // the embedded page is part of the binary
	}
	return bytes.Replace(page, []byte(tokenMeta), fmt.Appendf(nil, `<meta name="control-token" content="%s">`, token), 1)
}

// page serves index.html with this run's token. Only this server's own
// pages can read it: a page of another site cannot read the answer, and
// one that reaches the server through a rebound DNS name is refused by the
// Host check in front of the server (package internal/sameorigin).
func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(s.pageHTML)
}

// tokenOK reports whether r carries this run's token.
func (s *Server) tokenOK(r *http.Request) bool {
	return subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(s.token)) == 1
}
