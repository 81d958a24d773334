package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `# 2026-11-24T23:00Z go1.26.8 linux/amd64
goos: linux
# pass 1 of 3, load 0.4
BenchmarkScaleSync/objects=10000/impl=ours-2      	       1	  24000000 ns/op	        12.30 peak-MiB	       786.0 retained-B/obj	 7917928 B/op	   60615 allocs/op
BenchmarkScaleSync/objects=10000/impl=clientgo-2  	       1	  25000000 ns/op	        11.28 peak-MiB	       809.0 retained-B/obj	 9129440 B/op	  101460 allocs/op
BenchmarkScaleSync/objects=100000/impl=ours-2     	       1	 300000000 ns/op	        120 peak-MiB	       763.0 retained-B/obj	 1 B/op	   1 allocs/op
BenchmarkScaleSync/objects=100000/impl=clientgo-2 	       1	 320000000 ns/op	        120 peak-MiB	       778.0 retained-B/obj	 1 B/op	   1 allocs/op
# pass 2 of 3, load 0.4
BenchmarkScaleSync/objects=10000/impl=ours-2      	       1	  20000000 ns/op	        12.30 peak-MiB	       790.0 retained-B/obj	 7917928 B/op	   60615 allocs/op
# pass 3 of 3, load 0.4
BenchmarkScaleSync/objects=10000/impl=ours-2      	       1	  22000000 ns/op	        12.30 peak-MiB	       780.0 retained-B/obj	 7917928 B/op	   60615 allocs/op
BenchmarkWorkqueueAddAfter/queue=plain/impl=ours-2	 1000000	       947 ns/op	      46 B/op	       1 allocs/op
PASS
ok  	github.com/informerlab/informerlab/bench	13.148s
`

func TestParseTakesTheMedianOfEveryPass(t *testing.T) {
	res, err := parseResults(strings.NewReader(sample))
	require.NoError(t, err)
	got, ok := res.median("BenchmarkScaleSync/objects=10000/impl=ours", "ns/op")
	require.True(t, ok)
	assert.Equal(t, 22e6, got, "median of 24, 20 and 22 ms")
	got, _ = res.median("BenchmarkScaleSync/objects=10000/impl=ours", "retained-B/obj")
	assert.Equal(t, 786.0, got)
	got, _ = res.median("BenchmarkWorkqueueAddAfter/queue=plain/impl=ours", "ns/op")
	assert.Equal(t, 947.0, got, "the -2 suffix is dropped")
	_, ok = res.median("BenchmarkScaleSync/objects=10000/impl=ours", "no-such-unit")
	assert.False(t, ok)
}

func TestParseRejectsAValueThatIsNotANumber(t *testing.T) {
	_, err := parseResults(strings.NewReader("BenchmarkX-2  10  abc ns/op\n"))
	assert.ErrorContains(t, err, `"abc" is not a number`)
}

func TestCurveIsSortedByItsParameter(t *testing.T) {
	res, err := parseResults(strings.NewReader(sample))
	require.NoError(t, err)
	assert.Equal(t, []point{{10000, 786}, {100000, 763}}, res.curve("BenchmarkScaleSync", "objects", "ours", "retained-B/obj"))
	assert.Equal(t, []point{{10000, 25e6}, {100000, 320e6}}, res.curve("BenchmarkScaleSync", "objects", "clientgo", "ns/op"))
	assert.Empty(t, res.curve("BenchmarkScaleRelist", "objects", "ours", "ns/op"))
}

func TestChartDrawsBothCurvesWithAxesAndLegend(t *testing.T) {
	res, err := parseResults(strings.NewReader(sample))
	require.NoError(t, err)
	charts := buildCharts(res)
	require.Len(t, charts, 2, "sync time and sync memory; the other curves have no results")
	svg := charts[0].chart.svg()
	assert.True(t, strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="420" viewBox="0 0 720 420"`))
	assert.Equal(t, 2, strings.Count(svg, "<polyline"), "one line per implementation")
	assert.Equal(t, 4, strings.Count(svg, "<circle"), "one point per size and implementation")
	for _, want := range []string{">informerlab<", ">client-go v0.37.2<", ">10k<", ">100k<", ">time to sync (ms)<", ">objects listed<"} {
		assert.Contains(t, svg, want)
	}
	assert.NotContains(t, svg, "<script")
}

// TestLogAxesKeepOrder: a larger value is further right (x) and higher up
// (y, smaller pixel) on every axis.
func TestLogAxesKeepOrder(t *testing.T) {
	x := xAxis([]float64{1, 10, 100}, true)
	assert.Less(t, x.pos(1), x.pos(10))
	assert.InDelta(t, x.pos(10)-x.pos(1), x.pos(100)-x.pos(10), 0.001, "decades are equally wide")
	y := yAxis(0.5, 700, true)
	assert.Greater(t, y.pos(1), y.pos(100))
	assert.Contains(t, y.tickLabels, "1")
	assert.Contains(t, y.tickLabels, "500")
	lin := yAxis(0, 763, false)
	assert.Equal(t, 0.0, lin.ticks[0])
	assert.GreaterOrEqual(t, lin.ticks[len(lin.ticks)-1], 763.0)
}

func TestCompactNumbers(t *testing.T) {
	for v, want := range map[float64]string{1e6: "1M", 1e5: "100k", 1e4: "10k", 64: "64", 0.0312: "0.0312", 22.345: "22.3", 2500: "2.5k"} {
		assert.Equal(t, want, compact(v), "%g", v)
	}
}

func TestRunWritesTheFilesAndExplainsErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "results.txt")
	require.NoError(t, os.WriteFile(in, []byte(sample), 0o644))
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"-in", in, "-out", filepath.Join(dir, "charts")}, &stdout, &stderr))
	for _, f := range []string{"sync-time.svg", "sync-memory.svg"} {
		data, err := os.ReadFile(filepath.Join(dir, "charts", f))
		require.NoError(t, err)
		assert.Regexp(t, regexp.MustCompile(`</svg>\n$`), string(data))
	}
	assert.Contains(t, stdout.String(), "wrote "+filepath.Join(dir, "charts", "sync-time.svg"))

	err := run([]string{"-in", filepath.Join(dir, "missing.txt")}, &stdout, &stderr)
	assert.ErrorContains(t, err, "missing.txt: no such file or directory")

	empty := filepath.Join(dir, "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("PASS\n"), 0o644))
	err = run([]string{"-in", empty}, &stdout, &stderr)
	assert.ErrorContains(t, err, "has no Scale benchmark results to draw (run: BENCH=Scale ./run.sh)")

	err = run([]string{"-in", in, "extra"}, &stdout, &stderr)
	assert.ErrorContains(t, err, "unexpected arguments")
}
