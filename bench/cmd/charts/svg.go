package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// series is one implementation's curve.
type series struct {
	label, color string
	dashed       bool
	pts          []point
}

// chart is one SVG line chart.
type chart struct {
	title, subtitle string
	xLabel, yLabel  string
	logX, logY      bool
	series          []series
}

// The canvas, in SVG user units.
const (
	width, height = 720, 420
	left, right   = 84, 24
	top, bottom   = 66, 62
	legendX       = width - right - 150
)

// axis maps data values to pixels along one direction.
type axis struct {
	log        bool
	lo, hi     float64 // data domain (already padded)
	from, to   float64 // pixel range
	ticks      []float64
	tickLabels []string
}

func (a axis) pos(v float64) float64 {
	lo, hi := a.lo, a.hi
	if a.log {
		v, lo, hi = math.Log10(v), math.Log10(lo), math.Log10(hi)
	}
	if hi == lo {
		return (a.from + a.to) / 2
	}
	return a.from + (v-lo)/(hi-lo)*(a.to-a.from)
}

// xAxis puts a tick at every measured x: the sizes are what was chosen.
func xAxis(xs []float64, log bool) axis {
	lo, hi := xs[0], xs[len(xs)-1]
	a := axis{log: log, from: left, to: width - right}
	if log {
		a.lo, a.hi = lo/1.5, hi*1.5
	} else {
		pad := (hi - lo) * 0.05
		a.lo, a.hi = lo-pad, hi+pad
	}
	for _, x := range xs {
		a.ticks = append(a.ticks, x)
		a.tickLabels = append(a.tickLabels, compact(x))
	}
	return a
}

// yAxis spans the values: decades (and 2 and 5 between them) on a log
// axis, about five round steps from zero on a linear one.
func yAxis(lo, hi float64, log bool) axis {
	a := axis{log: log, from: height - bottom, to: top}
	if log {
		a.lo, a.hi = lo/2, hi*2
		for e := math.Floor(math.Log10(a.lo)); e <= math.Ceil(math.Log10(a.hi)); e++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, e)
				if v >= a.lo && v <= a.hi {
					a.ticks = append(a.ticks, v)
				}
			}
		}
	} else {
		step := niceStep(hi / 5)
		a.lo, a.hi = 0, math.Ceil(hi*1.1/step)*step
		for v := 0.0; v <= a.hi+step/2; v += step {
			a.ticks = append(a.ticks, v)
		}
	}
	for _, t := range a.ticks {
		a.tickLabels = append(a.tickLabels, compact(t))
	}
	return a
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// compact writes a number with at most three significant digits, and
// thousands and millions as k and M: 10000 as 10k, 2500 as 2.5k, 1000000
// as 1M.
func compact(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// svg renders the chart. Every series must have at least one point.
func (c chart) svg() string {
	var xs []float64
	seen := map[float64]bool{}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, s := range c.series {
		for _, p := range s.pts {
			if !seen[p.x] {
				seen[p.x] = true
				xs = append(xs, p.x)
			}
			ylo, yhi = math.Min(ylo, p.y), math.Max(yhi, p.y)
		}
	}
	slices.Sort(xs)
	xa, ya := xAxis(xs, c.logX), yAxis(ylo, yhi, c.logY)

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="26" font-size="17" font-weight="bold" fill="#222">%s</text>`+"\n", left, esc(c.title))
	fmt.Fprintf(&b, `<text x="%d" y="46" font-size="12" fill="#666">%s</text>`+"\n", left, esc(c.subtitle))

	// Grid and ticks.
	for i, t := range ya.ticks {
		y := ya.pos(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e6e6e6"/>`+"\n", left, y, width-right, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12" fill="#444" text-anchor="end">%s</text>`+"\n", left-8, y+4, esc(ya.tickLabels[i]))
	}
	for i, t := range xa.ticks {
		x := xa.pos(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e6e6e6"/>`+"\n", x, top, x, height-bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="12" fill="#444" text-anchor="middle">%s</text>`+"\n", x, height-bottom+18, esc(xa.tickLabels[i]))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444"/>`+"\n", left, height-bottom, width-right, height-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444"/>`+"\n", left, top, left, height-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="13" fill="#222" text-anchor="middle">%s</text>`+"\n", (left+width-right)/2, height-16, esc(c.xLabel))
	fmt.Fprintf(&b, `<text x="18" y="%d" font-size="13" fill="#222" text-anchor="middle" transform="rotate(-90 18 %d)">%s</text>`+"\n", (top+height-bottom)/2, (top+height-bottom)/2, esc(c.yLabel))

	// Curves.
	for _, s := range c.series {
		var pts []string
		for _, p := range s.pts {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xa.pos(p.x), ya.pos(p.y)))
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="7 5"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`+"\n", strings.Join(pts, " "), s.color, dash)
		for _, p := range s.pts {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s: %s</title></circle>`+"\n",
				xa.pos(p.x), ya.pos(p.y), s.color, esc(s.label), esc(compact(p.x)+" → "+compact(p.y)))
		}
	}

	// Legend, in the title band on the right, clear of the curves.
	for i, s := range c.series {
		y := 22 + i*20
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="7 5"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"%s/>`+"\n", legendX, y, legendX+28, y, s.color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="#222">%s</text>`+"\n", legendX+34, y+4, esc(s.label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
