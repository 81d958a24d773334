package e2e

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// webHost is a host of the pipeline page: what starts it and how long its
// page may take to connect to its pipeline.
type webHost struct {
	name string
	// start starts the host for one test and returns the page's URL.
	start func(t *testing.T) string
	// connectWithin bounds the wait for the page's first "connected".
	connectWithin time.Duration
}

// webHosts are the page's two hosts: `demo --web`, and the playground's
// static site, whose page starts the pipeline in the tab (compiling a
// WebAssembly module of some megabytes first).
var webHosts = []webHost{
	{name: "demo", start: func(t *testing.T) string { return startWebDemo(t) }, connectWithin: 10 * time.Second},
	{name: "playground", start: servePlayground, connectWithin: 60 * time.Second},
}

// servePlayground serves the playground's site (siteDir) with a plain
// http.FileServer on a free loopback port until the test ends, and
// returns its URL.
func servePlayground(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.FileServer(http.Dir(siteDir)), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return "http://" + ln.Addr().String() + "/"
}

// openPageOn starts h and opens its page in a fresh chromium, waiting
// until the page is connected to its pipeline.
func openPageOn(t *testing.T, h webHost) *browserPage {
	t.Helper()
	url := h.start(t)
	p := startBrowser(t)
	p.do(t, 30*time.Second, chromedp.Navigate(url))
	p.waitFor(t, "the page to connect", `document.getElementById('conn').textContent.startsWith('connected')`, h.connectWithin)
	return p
}
