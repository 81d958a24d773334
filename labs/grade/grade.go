package grade

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
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

// Lab grades a learner's implementation: it runs every behaviour as a
// subtest and prints the score and one line per behaviour that does not
// pass yet (see [WriteReport]) to standard output.
//
// Behaviours that hit a NotImplementedError are skipped, not failed. So an
// untouched skeleton scores zero and its TestGrade is skipped, which keeps
// `go test ./...` of the whole project green; as soon as anything passes
// or fails, every behaviour still missing fails TestGrade. Built with the
// labs_reference tag (the reference implementation wired in), Lab is
// strict: anything short of a full score fails.
func Lab(t *testing.T, lab string, behaviours []Behaviour) {
	t.Helper()
	results := run(t, behaviours, referenceBuild)
	WriteReport(os.Stdout, lab, results)
	s := Tally(results)
	switch {
	case s.NotStarted == s.Total():
		t.Skipf("lab %s not started: 0 of %d behaviours pass", lab, s.Total())
	case s.NotStarted > 0:
		t.Errorf("%d of %d behaviours not started", s.NotStarted, s.Total())
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
	run(t, behaviours, true)
}

func run(t *testing.T, behaviours []Behaviour, strict bool) []Result {
	t.Helper()
	results := make([]Result, 0, len(behaviours))
	for _, b := range behaviours {
		if b.Test == nil {
			t.Errorf("behaviour %q has no test", b.Name)
			continue
		}
		notStarted := false
		var name string
		passed := t.Run(b.Name, func(t *testing.T) {
			name = t.Name()
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				if err, ok := r.(error); ok && IsNotImplemented(err) {
					if strict {
						t.Fatalf("not started: %v", err)
					}
					notStarted = true
					t.Skipf("not started: %v", err)
				}
				t.Fatalf("panic: %v\n%s", r, debug.Stack())
			}()
			b.Test(t)
		})
		if _, ok := startedNothing.LoadAndDelete(name); ok && !passed && !strict {
			notStarted = true
		}
		outcome := Failed
		switch {
		case notStarted:
			outcome = NotStarted
		case passed:
			outcome = Passed
		}
		results = append(results, Result{Behaviour: b, Outcome: outcome})
	}
	return results
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

// WriteReport writes the score of one lab: the machine-readable line, the
// score in words, and for every behaviour that does not pass, what was
// expected and where it is explained.
func WriteReport(w io.Writer, lab string, results []Result) {
	s := Tally(results)
	var b strings.Builder
	fmt.Fprintf(&b, "%slab=%s passed=%d total=%d notstarted=%d\n", ScoreLinePrefix, lab, s.Passed, s.Total(), s.NotStarted)
	fmt.Fprintf(&b, "%s: %d of %d behaviours pass", lab, s.Passed, s.Total())
	if s.NotStarted > 0 {
		fmt.Fprintf(&b, " (%d not started)", s.NotStarted)
	}
	b.WriteString("\n")
	for _, r := range results {
		switch r.Outcome {
		case Failed:
			fmt.Fprintf(&b, "  ✗ %s — want: %s (see %s)\n", r.Behaviour.Name, r.Behaviour.Want, r.Behaviour.Doc)
		case NotStarted:
			fmt.Fprintf(&b, "  · %s — not started; want: %s (see %s)\n", r.Behaviour.Name, r.Behaviour.Want, r.Behaviour.Doc)
		}
	}
	io.WriteString(w, b.String())
}
