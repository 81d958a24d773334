package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// results holds every sample of a benchmark output file: for each
// benchmark name (without the -GOMAXPROCS suffix) and unit, the values of
// all passes.
type results map[string]map[string][]float64

// parseResults reads the text format of `go test -bench` (what run.sh
// writes to results.txt): lines "BenchmarkX/a=1/b=2-8  N  v1 unit1  v2
// unit2 ...". Other lines (headers, pass markers, PASS, ok) are skipped.
func parseResults(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue // not a result line ("BenchmarkX ... --- FAIL" and the like)
		}
		name := trimProcs(fields[0])
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("line %d: %q: values and units do not pair up", line, sc.Text())
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number", line, fields[i])
			}
			if res[name] == nil {
				res[name] = map[string][]float64{}
			}
			res[name][fields[i+1]] = append(res[name][fields[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// trimProcs drops the "-8" GOMAXPROCS suffix go test adds to names.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

// median of the samples of name in unit, and whether there are any.
func (r results) median(name, unit string) (float64, bool) {
	vs := append([]float64(nil), r[name][unit]...)
	if len(vs) == 0 {
		return 0, false
	}
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// point is one x of a curve and the median there.
type point struct{ x, y float64 }

// curve returns the medians of unit for the benchmarks named
// prefix/<param>=<x>/impl=<impl>, sorted by x.
func (r results) curve(prefix, param, impl, unit string) []point {
	var pts []point
	for name := range r {
		rest, ok := strings.CutPrefix(name, prefix+"/"+param+"=")
		if !ok {
			continue
		}
		xs, suffix, ok := strings.Cut(rest, "/")
		if !ok || suffix != "impl="+impl {
			continue
		}
		x, err := strconv.ParseFloat(xs, 64)
		if err != nil {
			continue
		}
		if y, ok := r.median(name, unit); ok {
			pts = append(pts, point{x, y})
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
	return pts
}
