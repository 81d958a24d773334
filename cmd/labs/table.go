package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/informerlab/informerlab/labs/grade"
)

// status sums a lab's grade up in a word or two.
func (g labGrade) status() string {
	switch {
	case g.problem != "":
		return "no score"
	case g.notStarted == g.total:
		return "not started"
	case g.passed == g.total:
		return "done ✓"
	default:
		return "in progress"
	}
}

// writeTable writes one row per lab.
func writeTable(w io.Writer, grades []labGrade) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lab\tpass\tfail\tnot started\tof\t\tstatus")
	sumPass, sumTotal := 0, 0
	for _, g := range grades {
		if g.problem != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s\t%s\n", g.lab, bar(0, 1), g.status())
			continue
		}
		failed := g.total - g.passed - g.notStarted
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\n", g.lab, g.passed, failed, g.notStarted, g.total, bar(g.passed, g.total), g.status())
		sumPass += g.passed
		sumTotal += g.total
	}
	fmt.Fprintf(tw, "all\t%d\t\t\t%d\t%s\n", sumPass, sumTotal, bar(sumPass, sumTotal))
	tw.Flush()
}

// writeProblems says, for each lab without a score, why, with the end of
// its test output.
func writeProblems(w io.Writer, grades []labGrade) {
	for _, g := range grades {
		if g.problem != "" {
			fmt.Fprintf(w, "%s: %s\n", g.lab, g.problem)
			for _, line := range tail(g.output, 15) {
				fmt.Fprintln(w, "  "+grade.CapLine(line))
			}
			fmt.Fprintln(w)
		}
	}
}

// bar draws passed/total as ten cells.
func bar(passed, total int) string {
	filled := 0
	if total > 0 {
		filled = passed * 10 / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", 10-filled) + "]"
}

// writeDetails writes a lab's own report: the first lines of each
// failure, one line per behaviour that does not pass, and its score.
func writeDetails(w io.Writer, g labGrade) {
	if len(g.report) == 0 {
		return
	}
	for _, line := range g.report {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// writeNext points at the first lab not done; every is whether grades
// covers every lab.
func writeNext(w io.Writer, grades []labGrade, every bool) {
	for _, g := range grades {
		if g.problem == "" && g.passed == g.total {
			continue
		}
		fmt.Fprintf(w, "Next: labs/%s (README.md there). Details: go run ./cmd/labs %s\n\n", g.lab, g.lab)
		return
	}
	if !every {
		fmt.Fprint(w, "Done. Compare your code with informerlab's; the lab's README names the files.\n\n")
		return
	}
	fmt.Fprint(w, "Every lab passes. Compare your code with informerlab's, package by package.\n\n")
}

func tail(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}
