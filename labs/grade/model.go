package grade

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// A model behaviour checks a component that is a state machine against
// informerlab's own: it generates seeded random sequences of operations,
// runs each on both side by side, and compares what the two show after
// every step. On a difference it shrinks the sequence to a shortest one
// that still differs and prints it as a learner can replay it: the steps,
// the step where the two part, both answers, and the seed.
//
// Sequences are generated from seeds Model.Seed, Model.Seed+1, … so a
// grade is the same on every run; ModelSeedEnv replays one seed.

// ModelSeedEnv, if set to a number, makes every model behaviour run that
// one seed only: the grader prints it with a difference, to replay it.
const ModelSeedEnv = "INFORMERLAB_GRADE_SEED"

// Op is one step of a generated sequence.
type Op[S any] struct {
	// Call is the step as code a learner can read and replay, e.g.
	// `q.AddAfter("a", 2s)`.
	Call string
	// Run performs the step on s and returns what it observed: the
	// results of the call and whatever state the contract makes
	// observable after it (e.g. "Len=2"). Equal sequences of answers
	// mean the two implementations agree.
	Run func(s S) string
}

// Model is a model behaviour's setup.
type Model[S any] struct {
	// New returns the implementation graded, Reference informerlab's:
	// both fresh for every sequence. Close, if set, releases one (a
	// queue's ShutDown) once its sequence ends.
	New, Reference func() S
	Close          func(s S)
	// Gen returns one random operation.
	Gen func(r *rand.Rand) Op[S]
	// Seed is the first seed; Runs sequences (default 200) of Steps
	// operations (default 30) are tried.
	Seed        uint64
	Runs, Steps int
	// What names the implementation in the report, e.g. "Queue".
	What string
}

// Check runs the model behaviour and fails t with a shrunk sequence on a
// difference. A NotImplementedError in the graded implementation
// propagates (the behaviour is not started); any other panic of it is a
// difference, shown as its answer.
func (m Model[S]) Check(t *testing.T) {
	t.Helper()
	runs, steps := m.Runs, m.Steps
	if runs <= 0 {
		runs = 200
	}
	if steps <= 0 {
		steps = 30
	}
	first := m.Seed
	if s, err := strconv.ParseUint(os.Getenv(ModelSeedEnv), 10, 64); err == nil {
		first, runs = s, 1
	}
	for seed := first; seed < first+uint64(runs); seed++ {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		ops := make([]Op[S], steps)
		for i := range ops {
			ops[i] = m.Gen(r)
		}
		d := m.run(ops)
		if d == nil {
			continue
		}
		ops, d = m.shrink(ops[:d.step+1], d)
		t.Errorf("%s", m.report(ops, d, seed, t.Name()))
		return
	}
}

// difference is where the two implementations part.
type difference struct {
	step          int
	answers       []string // the answers both gave before step
	yours, theirs string
}

// run runs ops on a fresh reference, then on a fresh implementation
// graded, and returns the first difference, or nil. The two run one after
// the other, not step by step, so that a step that lets time pass (in a
// synctest bubble) lets it pass once for each.
func (m Model[S]) run(ops []Op[S]) *difference {
	ref := m.Reference()
	theirs := make([]string, len(ops))
	for i, op := range ops {
		theirs[i] = op.Run(ref)
	}
	if m.Close != nil {
		m.Close(ref)
	}
	mine := m.New()
	if m.Close != nil {
		defer m.Close(mine)
	}
	for i, op := range ops {
		if yours := answer(op, mine); yours != theirs[i] {
			return &difference{step: i, answers: theirs[:i], yours: yours, theirs: theirs[i]}
		}
	}
	return nil
}

// answer runs op on s, turning a panic other than NotImplemented into an
// answer.
func answer[S any](op Op[S], s S) (a string) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok && IsNotImplemented(err) {
				panic(r)
			}
			a = fmt.Sprintf("panic: %v", r)
		}
	}()
	return op.Run(s)
}

// shrink returns a shortest sequence it finds that still differs, and
// its difference: it drops chunks of ops, halving the chunk size down to
// one, for as long as that keeps a difference, and cuts what follows the
// difference. d is the difference ops shows.
func (m Model[S]) shrink(ops []Op[S], d *difference) ([]Op[S], *difference) {
	for size := len(ops) / 2; size >= 1; size /= 2 {
		for start := 0; start+size <= len(ops); {
			candidate := append(append([]Op[S](nil), ops[:start]...), ops[start+size:]...)
			if cd := m.run(candidate); cd != nil {
				ops, d = candidate[:cd.step+1], cd
				continue // the same start, now a different chunk
			}
			start += size
		}
	}
	return ops, d
}

// report says where the implementations part, step by step.
func (m Model[S]) report(ops []Op[S], d *difference, seed uint64, test string) string {
	var b strings.Builder
	what := m.What
	if what == "" {
		what = "implementation"
	}
	fmt.Fprintf(&b, "your %s and informerlab's part after %d steps (seed %d, shrunk):\n", what, len(ops), seed)
	for i, op := range ops {
		if i < d.step {
			fmt.Fprintf(&b, "  %2d. %-28s → %s\n", i+1, op.Call, d.answers[i])
			continue
		}
		fmt.Fprintf(&b, "  %2d. %s\n", i+1, op.Call)
	}
	yours, theirs := differingParts(d.yours, d.theirs)
	fmt.Fprintf(&b, "      yours:         %s\n", yours)
	fmt.Fprintf(&b, "      informerlab's: %s\n", theirs)
	name, _, _ := strings.Cut(test, "/")
	sub := strings.TrimPrefix(test, name+"/")
	fmt.Fprintf(&b, "replay: %s=%d go test %s -run '%s/%s'", ModelSeedEnv, seed, labPackage(), name, sub)
	return b.String()
}

// differingParts keeps, of two answers made of the same number of parts
// ("; " between them), the parts that differ, so a long state shows
// only where it differs.
func differingParts(yours, theirs string) (string, string) {
	y, t := strings.Split(yours, "; "), strings.Split(theirs, "; ")
	if len(y) != len(t) || len(y) == 1 {
		return yours, theirs
	}
	var ky, kt []string
	for i := range y {
		if y[i] != t[i] {
			ky, kt = append(ky, y[i]), append(kt, t[i])
		}
	}
	if len(ky) == len(y) {
		return yours, theirs
	}
	return "… " + strings.Join(ky, "; ") + " …", "… " + strings.Join(kt, "; ") + " …"
}

// Returns runs fn on a goroutine of the current synctest bubble, waits
// until every other goroutine of the bubble is blocked, and reports
// whether fn returned by then: a call the contract says never blocks, or
// one that should have found its answer at once, shows as false. A panic
// in fn is raised again in the caller. Call it only inside a bubble; a
// call that did not return is left blocked, so the caller must wake it
// (shut the component down) before the bubble ends.
func Returns(fn func()) bool {
	done := make(chan any, 1)
	go func() {
		defer func() {
			r := recover()
			if err, ok := r.(error); r != nil && !(ok && IsNotImplemented(err)) {
				// Raised again on the caller's goroutine, r would lose
				// where it happened.
				r = fmt.Sprintf("%v\n%s", r, trimPanicStack(string(debug.Stack())))
			}
			done <- r
		}()
		fn()
	}()
	synctest.Wait()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
		return true
	default:
		return false
	}
}

// labPackage is the package under test as go test names it from the
// repository's root ("./labs/2-workqueue"), or "." outside labs/.
func labPackage() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	wd = filepath.ToSlash(wd)
	if i := strings.LastIndex(wd, "/labs/"); i >= 0 {
		return "./" + wd[i+1:]
	}
	return "."
}
