package e2e

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlaygroundRequestsNothingOutsideItsFolder opens the playground, lets
// it run, creates a Foo and opens a cached object: every request the page
// makes (chromium's network events) is for a file of its own folder, and
// the page fetched the files of the site and nothing else.
// Diagram: none. client-go: none.
func TestPlaygroundRequestsNothingOutsideItsFolder(t *testing.T) {
	base := servePlayground(t)
	p := startBrowser(t)
	var mu sync.Mutex
	var urls []string
	require.NoError(t, chromedp.Listen(p.ctx, func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			urls = append(urls, r.Request.URL)
			mu.Unlock()
		}
	}))

	p.do(t, 30*time.Second, chromedp.Navigate(base))
	p.waitFor(t, "the page to connect", `document.getElementById('conn').textContent.startsWith('connected')`, 60*time.Second)
	p.click(t, "btn-create")
	p.waitFor(t, "steps 1 to 9 for Foo default/web", `document.querySelectorAll('#steps-strip li.done').length === 9`, 10*time.Second)
	p.clickFirst(t, `#cache button.obj`)
	p.waitFor(t, "the object's YAML", `document.getElementById('object-yaml').textContent.includes('resourceVersion')`, 10*time.Second)

	mu.Lock()
	defer mu.Unlock()
	fetched := map[string]bool{}
	for _, u := range urls {
		if strings.HasPrefix(u, "data:") {
			continue // the page's icon is inline: no request leaves the page
		}
		rest, ok := strings.CutPrefix(u, base)
		if assert.True(t, ok, "the page requested %s, outside its folder %s", u, base) {
			fetched[rest] = true
		}
	}
	assert.Equal(t, map[string]bool{"": true, "style.css": true, "wasm_exec.js": true, "playground.js": true, "app.js": true, "playground.wasm": true}, fetched)
	assert.Empty(t, p.consoleErrors())
}

// TestPlaygroundBudgets measures the playground and prints what it found
// (run it with -v); it asserts only that each was measured, never a time:
//
//   - the .wasm's size, raw and gzipped (the budget is 8 MB gzipped);
//   - in headless chromium, the time from navigation to the pipeline
//     answering in the tab (connected) and to the first token moving
//     (Create Foo pressed as soon as the page is connected); budget 3 s;
//   - the Go runtime's memory in the tab over a run with a Foo created
//     every second (and the one created five seconds before deleted, so
//     that the world itself keeps its size): the history and per-page
//     buffers are bounded, so the live heap levels off; and the page
//     script's heap and its inspectable keys (bounded too). The run lasts
//     30s; INFORMERLAB_PLAYGROUND_SOAK (a Go duration) sets it: 10m needs
//     go test's -timeout raised (-timeout 30m).
//
// Diagram: steps 1-9. client-go: none.
func TestPlaygroundBudgets(t *testing.T) {
	soak := 30 * time.Second
	if v := os.Getenv("INFORMERLAB_PLAYGROUND_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "INFORMERLAB_PLAYGROUND_SOAK")
		soak = d
	}
	raw, gz := fileSizes(t, filepath.Join(siteDir, "playground.wasm"))
	t.Logf("budget: playground.wasm is %.1f MB, %.2f MB gzipped (budget 8 MB gzipped)", float64(raw)/1e6, float64(gz)/1e6)

	base := servePlayground(t)
	p := startBrowser(t)
	p.do(t, 30*time.Second, chromedp.Navigate(base))
	p.waitFor(t, "the page to connect", `document.getElementById('conn').textContent.startsWith('connected')`, 60*time.Second)
	p.click(t, "btn-create")
	p.waitFor(t, "the first token", `performance.getEntriesByName('informerlab:first-token').length > 0`, 30*time.Second)
	connected := eval[float64](t, p, `performance.getEntriesByName('informerlab:connected')[0].startTime`)
	firstToken := eval[float64](t, p, `performance.getEntriesByName('informerlab:first-token')[0].startTime`)
	t.Logf("budget: in headless chromium, the pipeline answered in the tab %.2fs after navigation, and the first token moved at %.2fs (budget 3s)", connected/1000, firstToken/1000)
	assert.Positive(t, connected)
	assert.GreaterOrEqual(t, firstToken, connected)

	const sample = `(() => { const s = window.informerlabPlaygroundStats(); return [s.heapAlloc, s.sys, s.goroutines, performance.memory ? performance.memory.usedJSHeapSize : 0, document.getElementById('inspect-key').options.length]; })()`
	eval[bool](t, p, `window.informerlabPlayground.then((pg) => { window.informerlabPlaygroundStats = pg.stats; }), true`)
	p.waitFor(t, "the stats function", `typeof window.informerlabPlaygroundStats === 'function'`, 5*time.Second)
	first := eval[[]float64](t, p, sample)
	t.Logf("budget: memory at the start: live Go heap %.1f MB, Go runtime total %.1f MB, %d goroutines; page script heap %.1f MB, %d keys inspectable", first[0]/1e6, first[1]/1e6, int(first[2]), first[3]/1e6, int(first[4]))
	start := time.Now()
	var peak float64
	for i := 1; time.Since(start) < soak; i++ {
		eval[bool](t, p, `document.getElementById('foo-name').value = 'soak-`+itoa(i)+`', document.getElementById('btn-create').click(), true`)
		if i > 5 {
			eval[bool](t, p, `document.getElementById('foo-name').value = 'soak-`+itoa(i-5)+`', document.getElementById('btn-delete').click(), true`)
		}
		time.Sleep(time.Second) // the soak's own pace: one Foo a second, in the browser's real time
		if i%10 == 0 {
			s := eval[[]float64](t, p, sample)
			peak = max(peak, s[0])
			t.Logf("budget: after %3ds and %d Foos: live Go heap %.1f MB, Go runtime total %.1f MB, %d goroutines; page script heap %.1f MB, %d keys inspectable", int(time.Since(start).Seconds()), i, s[0]/1e6, s[1]/1e6, int(s[2]), s[3]/1e6, int(s[4]))
		}
	}
	last := eval[[]float64](t, p, sample)
	t.Logf("budget: at the end of %s: live Go heap %.1f MB (peak sampled %.1f MB), Go runtime total %.1f MB, %d goroutines; page script heap %.1f MB, %d keys inspectable; the page shows %s",
		soak, last[0]/1e6, peak/1e6, last[1]/1e6, int(last[2]), last[3]/1e6, int(last[4]), eval[string](t, p, `document.getElementById('conn').textContent`))
	assert.Positive(t, last[0])
	assert.Empty(t, p.consoleErrors())
}

// fileSizes returns a file's size, raw and gzipped.
func fileSizes(t *testing.T, path string) (raw, gz int64) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var n countingWriter
	zw, err := gzip.NewWriterLevel(&n, gzip.BestCompression)
	require.NoError(t, err)
	raw, err = io.Copy(zw, f)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return raw, int64(n)
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

func itoa(i int) string { return strconv.Itoa(i) }
