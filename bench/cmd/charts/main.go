package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "charts:", err)
			os.Exit(1)
		}
	}
}

const usage = `Usage: go run ./cmd/charts [-in results.txt] [-out charts]

Draws the Scale benchmarks of a benchmark results file (the go test -bench
output run.sh writes) as SVG line charts, informerlab against client-go:
one point per size, the median of all passes. Files written to -out:

`

// spec is one chart: which benchmark, which parameter is x, which unit is
// y (times scale).
type spec struct {
	file, title, subtitle string
	bench, param, unit    string
	scale                 float64
	xLabel, yLabel        string
	logX, logY            bool
}

var specs = []spec{
	{file: "sync-time.svg", title: "Informer sync: List to the last initial OnAdd",
		subtitle: "BenchmarkScaleSync · lower is better · log scales", bench: "BenchmarkScaleSync", param: "objects",
		unit: "ns/op", scale: 1e-6, xLabel: "objects listed", yLabel: "time to sync (ms)", logX: true, logY: true},
	{file: "sync-memory.svg", title: "Heap kept per cached object",
		subtitle: "BenchmarkScaleSync retained-B/obj · objects and cache together · lower is better", bench: "BenchmarkScaleSync", param: "objects",
		unit: "retained-B/obj", scale: 1, xLabel: "objects cached", yLabel: "bytes per object", logX: true},
	{file: "relist-time.svg", title: "Relist after 410: every object again, 10% changed",
		subtitle: "BenchmarkScaleRelist · lower is better · log scales", bench: "BenchmarkScaleRelist", param: "objects",
		unit: "ns/op", scale: 1e-6, xLabel: "objects listed", yLabel: "time to relist (ms)", logX: true, logY: true},
	{file: "fanout.svg", title: "Fan-out: one watch update to every handler",
		subtitle: "BenchmarkScaleFanout · time per update until all handlers had it · lower is better", bench: "BenchmarkScaleFanout", param: "handlers",
		unit: "ns/op", scale: 1e-3, xLabel: "handlers on one informer", yLabel: "time per update (µs)", logX: true, logY: true},
	{file: "drain.svg", title: "Workqueue drain: 100,000 keys, ~1µs reconcile",
		subtitle: "BenchmarkScaleDrain · plain queue · lower is better", bench: "BenchmarkScaleDrain", param: "workers",
		unit: "ns/op", scale: 1e-6, xLabel: "workers", yLabel: "time to drain (ms)", logX: true},
}

// impls are the two curves of every chart.
var impls = []struct {
	name, label, color string
	dashed             bool
}{
	{"ours", "informerlab", "#1f6fb4", false},
	{"clientgo", "client-go v0.37.2", "#e0701a", true},
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("charts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "results.txt", "benchmark results to read (go test -bench output)")
	out := fs.String("out", "charts", "directory to write the SVG files to (created if missing)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		for _, s := range specs {
			fmt.Fprintf(stderr, "  %-16s %s\n", s.file, s.title)
		}
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (flags only; see -help)", fs.Args())
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := parseResults(f)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	charts := buildCharts(res)
	if len(charts) == 0 {
		return fmt.Errorf("%s has no Scale benchmark results to draw (run: BENCH=Scale ./run.sh)", *in)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, c := range charts {
		path := filepath.Join(*out, c.file)
		if err := os.WriteFile(path, []byte(c.chart.svg()), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", path)
	}
	return nil
}

type namedChart struct {
	file  string
	chart chart
}

// buildCharts returns the charts whose benchmarks are in res, with the
// curves that have points.
func buildCharts(res results) []namedChart {
	var out []namedChart
	for _, s := range specs {
		c := chart{title: s.title, subtitle: s.subtitle, xLabel: s.xLabel, yLabel: s.yLabel, logX: s.logX, logY: s.logY}
		for _, im := range impls {
			pts := res.curve(s.bench, s.param, im.name, s.unit)
			for i := range pts {
				pts[i].y *= s.scale
			}
			if len(pts) > 0 {
				c.series = append(c.series, series{label: im.label, color: im.color, dashed: im.dashed, pts: pts})
			}
		}
		if len(c.series) > 0 {
			out = append(out, namedChart{file: s.file, chart: c})
		}
	}
	return out
}
