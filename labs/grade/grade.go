package grade

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
)

// Behaviour is one thing a component must do, graded by one test.
type Behaviour struct {
	// Name names the behaviour as a sentence run together, e.g.
	// "AddCollapsesWhileWaiting". It is the subtest's name.
	Name string
	// Want says in one line what a correct implementation does; the grader
	// prints it when the behaviour fails.
	Want string
	// Doc is where the behaviour is explained: a path from the repository
	// root and a heading anchor, e.g. "docs/workqueue.md#shutting-down".
	Doc string
	// Test checks the behaviour. It fails t as any test does; a panic
	// fails it too, and a panic with a [NotImplementedError] marks the
	// behaviour as not started.
	Test func(t *testing.T)
}

// NotImplementedError is what a lab's skeleton panics with (or returns)
// while a function is still empty.
type NotImplementedError struct {
	// What names the function, e.g. "Queue.Add".
	What string
}

func (e *NotImplementedError) Error() string { return e.What + ": not implemented" }

// NotImplemented returns a *NotImplementedError for what. A skeleton's
// functions start as panic(grade.NotImplemented("Queue.Add")).
func NotImplemented(what string) error { return &NotImplementedError{What: what} }

// Outcome is what grading one behaviour found.
type Outcome int

const (
	// Passed: the test passed.
	Passed Outcome = iota
	// Failed: the test failed or panicked with something other than a
	// NotImplementedError.
	Failed
	// NotStarted: the test hit a NotImplementedError.
	NotStarted
)

func (o Outcome) String() string {
	switch o {
	case Passed:
		return "pass"
	case Failed:
		return "fail"
	case NotStarted:
		return "not started"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Result is one graded behaviour.
type Result struct {
	Behaviour Behaviour
	Outcome   Outcome
	// Output is what a failed behaviour's test logged (its assertions'
	// messages), at most MaxOutputLines of it.
	Output []string
	// Hang, if set, says that the behaviour never finished: how it was
	// found out (the watchdog, or synctest seeing every goroutine of its
	// bubble blocked) and what usually causes it. Stacks then shows
	// where the graded package's goroutines were.
	Hang, Stacks string
}

// Score counts results.
type Score struct {
	Passed, Failed, NotStarted int
}

// Total is the number of behaviours graded.
func (s Score) Total() int { return s.Passed + s.Failed + s.NotStarted }

// Tally counts the outcomes of results.
func Tally(results []Result) Score {
	var s Score
	for _, r := range results {
		switch r.Outcome {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case NotStarted:
			s.NotStarted++
		}
	}
	return s
}

// Lab grades a learner's implementation: it runs every behaviour, each
// under the [Watchdog], and prints a report to standard output (see
// [WriteReport]) that ends with the score.
//
// Behaviours that hit a NotImplementedError are not started, not failed.
// So an untouched skeleton scores zero and its TestGrade is skipped, which
// keeps `go test ./...` of the whole project green; as soon as anything
// passes or fails, every behaviour still missing fails TestGrade. Built
// with the labs_reference tag (the reference implementation wired in),
// Lab is strict: anything short of a full score fails.
//
// A behaviour that outlives the watchdog keeps running on its goroutine:
// nothing can stop it. Lab then prints the report and ends the test
// binary with exit status 1 at once, rather than wait for it.
func Lab(t *testing.T, lab string, behaviours []Behaviour) {
	t.Helper()
	results, g := run(t, behaviours, referenceBuild, callerPackage(1))
	WriteReport(g.out.stdout, lab, results)
	if g.abandoned {
		os.Exit(1)
	}
	s := Tally(results)
	switch {
	case s.NotStarted == s.Total():
		t.SkipNow()
	case s.Passed < s.Total():
		// The report said what and why; it stays the last thing printed.
		t.Fail()
	}
}

// ReferenceBuild reports whether the labs_reference build tag is set: the
// labs are graded with informerlab's implementation wired in, and Lab is
// as strict as Reference.
func ReferenceBuild() bool { return referenceBuild }

// Reference runs the behaviours against informerlab's own implementation:
// every one must pass, and a NotImplementedError is a failure. It also
// checks that every behaviour's Doc link points at a heading that exists,
// so the grader's links cannot go stale.
func Reference(t *testing.T, behaviours []Behaviour) {
	t.Helper()
	if err := CheckDocs(behaviours); err != nil {
		t.Error(err)
	}
	results, g := run(t, behaviours, true, callerPackage(1))
	if g.abandoned {
		WriteReport(g.out.stdout, t.Name(), results)
		os.Exit(1)
	}
	for _, r := range results {
		if r.Outcome != Passed {
			var b strings.Builder
			writeFailure(&b, r)
			t.Errorf("%s — want: %s\n%s", r.Behaviour.Name, r.Behaviour.Want, b.String())
		}
	}
}

// run grades each behaviour in turn. pkg is the import path of the code
// graded, to which the stacks of a hang are trimmed.
func run(t *testing.T, behaviours []Behaviour, strict bool, pkg string) ([]Result, *grader) {
	t.Helper()
	out, err := startCapture()
	if err != nil {
		t.Fatalf("grade: capturing the behaviours' output: %v", err)
	}
	if os.Getenv(logEnv) == "" {
		// The components log through log/slog's default logger; while
		// slog.SetDefault was never called, this level drops their INFO
		// lines and keeps the log package's own output (a learner's
		// log.Printf) as it is.
		defer slog.SetLogLoggerLevel(slog.SetLogLoggerLevel(slog.LevelWarn))
	}
	g := &grader{strict: strict, watchdog: watchdogFromEnv(), pkg: pkg, top: t.Name(), out: out, shown: map[string]bool{}}
	if os.Getenv(progressEnv) != "" {
		g.progress = out.stdout
	}
	results := make([]Result, 0, len(behaviours))
	for _, b := range behaviours {
		if b.Test == nil {
			t.Errorf("behaviour %q has no test", b.Name)
			continue
		}
		if r, ran := g.one(b); ran {
			results = append(results, r)
		}
	}
	if !g.abandoned {
		out.stop()
	}
	return results, g
}

// IsNotImplemented reports whether err is or wraps a *NotImplementedError.
func IsNotImplemented(err error) bool {
	var ni *NotImplementedError
	return errors.As(err, &ni)
}

// ScoreLinePrefix starts the one machine-readable line of a report:
//
//	grade: lab=1-indexer passed=12 total=19 notstarted=5
const ScoreLinePrefix = "grade: "

// ReportLinePrefix starts the first line of a report, which names the lab:
//
//	grade: report lab=1-indexer
const ReportLinePrefix = "grade: report "

// WriteReport writes the report of one lab, the score last:
//
//   - for every failed behaviour, its first lines of output, or for one
//     that hung, why and where the lab's goroutines were;
//   - for every behaviour that does not pass, a line with what was
//     expected and where it is explained (✗ failed, · not started);
//   - the machine-readable score line, and the score in words.
func WriteReport(w io.Writer, lab string, results []Result) {
	s := Tally(results)
	var b strings.Builder
	fmt.Fprintf(&b, "%slab=%s\n", ReportLinePrefix, lab)
	for _, r := range results {
		writeFailure(&b, r)
	}
	for _, r := range results {
		switch {
		case r.Outcome == Failed && r.Hang != "":
			fmt.Fprintf(&b, "  ✗ %s — hung; want: %s (see %s)\n", r.Behaviour.Name, r.Behaviour.Want, r.Behaviour.Doc)
		case r.Outcome == Failed:
			fmt.Fprintf(&b, "  ✗ %s — want: %s (see %s)\n", r.Behaviour.Name, r.Behaviour.Want, r.Behaviour.Doc)
		case r.Outcome == NotStarted:
			fmt.Fprintf(&b, "  · %s — not started; want: %s (see %s)\n", r.Behaviour.Name, r.Behaviour.Want, r.Behaviour.Doc)
		}
	}
	fmt.Fprintf(&b, "%slab=%s passed=%d total=%d notstarted=%d\n", ScoreLinePrefix, lab, s.Passed, s.Total(), s.NotStarted)
	fmt.Fprintf(&b, "%s: %d of %d behaviours pass", lab, s.Passed, s.Total())
	if s.NotStarted > 0 {
		fmt.Fprintf(&b, " (%d not started)", s.NotStarted)
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

// writeFailure writes what a failed behaviour printed, or why it hung.
func writeFailure(b *strings.Builder, r Result) {
	if r.Outcome != Failed || (r.Hang == "" && len(r.Output) == 0) {
		return
	}
	if r.Hang != "" {
		first, rest, _ := strings.Cut(r.Hang, "\n")
		fmt.Fprintf(b, "✗ %s %s\n", r.Behaviour.Name, first)
		for _, l := range strings.Split(rest, "\n") {
			if l != "" {
				fmt.Fprintf(b, "  %s\n", l)
			}
		}
		for _, l := range strings.Split(strings.TrimRight(r.Stacks, "\n"), "\n") {
			fmt.Fprintf(b, "    %s\n", l)
		}
		return
	}
	fmt.Fprintf(b, "✗ %s\n", r.Behaviour.Name)
	for _, l := range r.Output {
		fmt.Fprintf(b, "    %s\n", l)
	}
}
