package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action string
	Test   string
	Output string
}

// runResult is what one go test -json run reported: the outcome of every
// top-level test, the output of the failed ones, and whether the package
// as a whole failed for a reason no test carries (a build error, a leaked
// goroutine found by TestMain, a panic, a timeout).
type runResult struct {
	Outcome     map[string]string   // test -> "pass", "fail" or "skip"
	Output      map[string][]string // test -> its output lines
	PackageFail bool
	PackageOut  []string
}

// parseEvents reads go test -json output.
func parseEvents(r io.Reader) (runResult, error) {
	res := runResult{Outcome: map[string]string{}, Output: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil {
			res.PackageOut = append(res.PackageOut, string(line))
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		switch {
		case ev.Test == "" && ev.Action == "fail":
			res.PackageFail = true
		case ev.Test == "" && ev.Action == "output":
			res.PackageOut = append(res.PackageOut, strings.TrimRight(ev.Output, "\n"))
		case ev.Action == "output":
			res.Output[top] = append(res.Output[top], strings.TrimRight(ev.Output, "\n"))
		case ev.Test == top && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
			res.Outcome[top] = ev.Action
		}
	}
	return res, sc.Err()
}

// fileRow is one line of the table.
type fileRow struct {
	File                             string
	Tests, Run, Pass, Fail, Excluded int
}

// verdict compares one run with the list. A failure the list does not
// expect, an expected failure that passed, a test that was kept but did not
// run, or a package failure no test explains is a problem.
func verdict(suite string, files []testFile, res runResult, exp expectations, queue string) ([]fileRow, []string) {
	var rows []fileRow
	var problems []string
	for _, f := range files {
		row := fileRow{File: f.Name, Tests: len(f.Tests)}
		dropped := map[string]bool{}
		for _, d := range f.Dropped {
			dropped[d] = true
		}
		for _, t := range f.Tests {
			if dropped[t] {
				row.Excluded++
				if exp.excluded(suite, t) == nil {
					problems = append(problems, fmt.Sprintf("%s %s: taken out, but not in the list (it reaches a listed declaration)", suite, t))
				}
				continue
			}
			outcome, ran := res.Outcome[t]
			want := exp.expectedFailure(suite, t, queue)
			switch {
			case !ran:
				if !res.PackageFail {
					problems = append(problems, fmt.Sprintf("%s %s: did not run", suite, t))
				}
			case outcome == "skip":
				row.Run++
				problems = append(problems, fmt.Sprintf("%s %s: skipped itself", suite, t))
			case outcome == "pass":
				row.Run++
				row.Pass++
				if want != nil {
					problems = append(problems, fmt.Sprintf("%s %s: passed, but the list expects it to fail (%s)", suite, t, want.Reason))
				}
			default:
				row.Run++
				row.Fail++
				if want == nil {
					problems = append(problems, fmt.Sprintf("%s %s: FAILED (not in the list)\n%s", suite, t, indent(res.Output[t])))
				}
			}
		}
		rows = append(rows, row)
	}
	if res.PackageFail {
		failedTest := false
		for _, o := range res.Outcome {
			failedTest = failedTest || o == "fail"
		}
		if !failedTest || len(res.Outcome) == 0 {
			problems = append(problems, fmt.Sprintf("%s: the package failed outside any test\n%s", suite, indent(res.PackageOut)))
		} else if tail := packageTail(res.PackageOut); len(tail) > 0 {
			problems = append(problems, fmt.Sprintf("%s: package output after the tests\n%s", suite, indent(tail)))
		}
	}
	return rows, problems
}

// packageTail is the package-level output that is not go test's own summary
// (a goleak report after the tests, say). An informational log line (an
// informer of the last test saying it stopped, after the test returned) is
// not a problem either.
func packageTail(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l == "FAIL" || l == "PASS" || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "coverage:") {
			continue
		}
		if infoLog.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// infoLog matches an INFO or DEBUG line of the standard logger, of slog's
// text handler, or of klog.
var infoLog = regexp.MustCompile(`^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d (INFO|DEBUG) |time=\S+ level=(INFO|DEBUG) |[ID]\d{4} \d\d:\d\d:\d\d)`)

func indent(lines []string) string {
	const max = 60
	if len(lines) > max {
		lines = append(lines[:max:max], fmt.Sprintf("... (%d more lines)", len(lines)-max))
	}
	return "    " + strings.Join(lines, "\n    ")
}

// printTable writes the per-file table with a total row.
func printTable(w io.Writer, title string, rows []fileRow) fileRow {
	sort.Slice(rows, func(i, j int) bool { return rows[i].File < rows[j].File })
	fmt.Fprintf(w, "\n%s\n", title)
	fmt.Fprintf(w, "%-44s %6s %5s %5s %5s %9s\n", "file", "tests", "run", "pass", "fail", "excluded")
	var total fileRow
	for _, r := range rows {
		if r.Tests == 0 {
			continue
		}
		fmt.Fprintf(w, "%-44s %6d %5d %5d %5d %9d\n", r.File, r.Tests, r.Run, r.Pass, r.Fail, r.Excluded)
		total.Tests += r.Tests
		total.Run += r.Run
		total.Pass += r.Pass
		total.Fail += r.Fail
		total.Excluded += r.Excluded
	}
	fmt.Fprintf(w, "%-44s %6d %5d %5d %5d %9d\n", "total", total.Tests, total.Run, total.Pass, total.Fail, total.Excluded)
	return total
}
