package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// chromiumPath is Debian's chromium; CI installs it (.ci/run). A missing
// browser is a failure, not a skip.
const chromiumPath = "/usr/bin/chromium"

// pageURL finds the page's address in the demo's output.
var pageURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)

// startWebDemo starts `demo --web` on a free loopback port with extra
// flags, returns the page's URL once it is printed, and stops the demo
// (SIGINT, then a required clean exit) when the test ends.
func startWebDemo(t *testing.T, extra ...string) string {
	t.Helper()
	url, _ := startWebDemoWithOutput(t, extra...)
	return url
}

// startWebDemoWithOutput is startWebDemo that also returns what the demo
// prints.
func startWebDemoWithOutput(t *testing.T, extra ...string) (string, *lockedBuffer) {
	t.Helper()
	args := append([]string{"--web", "--web-addr", "127.0.0.1:0", "--no-color"}, extra...)
	cmd := exec.Command(demoBinary, args...)
	out := &lockedBuffer{}
	cmd.Stderr = out
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	urls := make(chan string, 1)
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			_, _ = out.Write([]byte(sc.Text() + "\n"))
			if u := pageURL.FindString(sc.Text()); u != "" && !sent {
				urls <- u
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("demo --web did not exit cleanly on SIGINT: %v\noutput:\n%s", err, out)
			}
		case <-time.After(deadline):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("demo --web did not exit within %v of SIGINT\noutput:\n%s", deadline, out)
		}
		if t.Failed() {
			t.Logf("demo output (tail):\n%s", tail(out.String(), 60))
		}
	})
	select {
	case u := <-urls:
		return u, out
	case err := <-exited:
		require.FailNowf(t, "demo --web exited before serving", "%v\noutput:\n%s", err, out)
	case <-time.After(deadline):
		require.FailNowf(t, "demo --web printed no URL", "output:\n%s", out)
	}
	return "", out
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// browserPage is one headless chromium tab on the page, collecting console
// errors and uncaught exceptions.
type browserPage struct {
	ctx context.Context

	mu     sync.Mutex // guards errors
	errors []string
}

// openPage starts a headless chromium with a fresh profile, opens url and
// waits until the page says it is connected to the event stream.
func openPage(t *testing.T, url string) *browserPage {
	t.Helper()
	p := startBrowser(t)
	p.do(t, 30*time.Second, chromedp.Navigate(url))
	p.waitFor(t, "the page to connect", `document.getElementById('conn').textContent.startsWith('connected')`, 10*time.Second)
	return p
}

// startBrowser starts a headless chromium with a fresh profile and one
// blank tab, collecting its console errors.
func startBrowser(t *testing.T) *browserPage {
	t.Helper()
	_, err := os.Stat(chromiumPath)
	require.NoError(t, err, "the browser tests need chromium at %s (apt-get install -y chromium)", chromiumPath)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1150),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	p := &browserPage{ctx: ctx}
	// The browser lives as long as the context of the first call: no
	// timeout on it.
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				p.fail(fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
			}
		}
	}()
	return p
}

func (p *browserPage) fail(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errors = append(p.errors, msg)
}

// consoleErrors returns the console errors and exceptions seen so far.
func (p *browserPage) consoleErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// do runs actions with a deadline.
func (p *browserPage) do(t *testing.T, timeout time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...))
}

// eval evaluates a JavaScript expression on the page.
func eval[T any](t *testing.T, p *browserPage, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, "evaluate %s", js)
	return v
}

// waitFor polls a JavaScript expression until it is true, failing the test
// with what after timeout.
func (p *browserPage) waitFor(t *testing.T, what, js string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		lctx, lcancel := context.WithTimeout(p.ctx, 5*time.Second)
		defer lcancel()
		log, _ := chromedp.Run(lctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#log li')].slice(-25).map(l => l.textContent).join('\n')`))
		require.FailNowf(t, "timed out waiting", "waiting for %s (%s): %v\nthe page's log ends:\n%s", what, js, err, log)
	}
}

// click clicks the element with id.
func (p *browserPage) click(t *testing.T, id string) {
	t.Helper()
	p.do(t, 10*time.Second, chromedp.Click(chromedp.ID(id)))
}

// clickFirst clicks the first element matching a CSS selector, found and
// clicked in one step inside the page: a list the page re-renders on every
// event (the cache's objects, the replica lanes) may replace the element
// between a query and a click made from outside.
func (p *browserPage) clickFirst(t *testing.T, selector string) {
	t.Helper()
	clicked := eval[bool](t, p, `(() => { const el = document.querySelector(`+jsString(selector)+`); if (!el) return false; el.click(); return true; })()`)
	require.True(t, clicked, "no element matches %s", selector)
}

// key presses a key (see package kb) on the focused element.
func (p *browserPage) key(t *testing.T, key string) {
	t.Helper()
	p.do(t, 5*time.Second, chromedp.KeyEvent(key))
}

// setValue sets a form field and tells the page it changed.
func (p *browserPage) setValue(t *testing.T, id, value string) {
	t.Helper()
	ok := eval[bool](t, p, `(() => { const el = document.getElementById(`+jsString(id)+`); el.value = `+jsString(value)+
		`; el.dispatchEvent(new Event('change', {bubbles: true})); return el.value === `+jsString(value)+`; })()`)
	require.True(t, ok, "#%s has no option %q", id, value)
}

// screenshot saves the whole page as name.png in the test's artifact
// directory (kept with go test -artifacts) and logs where.
func (p *browserPage) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := filepath.Join(t.ArtifactDir(), name+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}

// viewport saves what the window shows now as name.png, as screenshot does.
func (p *browserPage) viewport(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	path := filepath.Join(t.ArtifactDir(), name+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}

// reduceMotion makes the page's prefers-reduced-motion media query match.
func (p *browserPage) reduceMotion(t *testing.T) {
	t.Helper()
	p.do(t, 5*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		})
		return err
	}))
}

// count counts the nodes matching a CSS selector.
func (p *browserPage) count(t *testing.T, selector string) int {
	t.Helper()
	return eval[int](t, p, `document.querySelectorAll(`+jsString(selector)+`).length`)
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}
