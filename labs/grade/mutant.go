package grade

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A suite proves that its behaviours can fail by grading deliberately
// broken implementations ("mutants") and checking that the behaviour
// each one breaks is reported. A failing behaviour fails the test that
// runs it, so the grading happens in a child process: the suite's test
// binary runs again, selecting a helper test that grades one mutant.
//
//	func TestHelperMutant(t *testing.T) {
//		grade.GradeMutant(t, Behaviours, mutants) // mutants: name → Impl
//	}
//
//	func TestSuiteCatchesEveryMistake(t *testing.T) {
//		grade.CatchesMistakes(t, "TestHelperMutant", catalogue)
//	}

const mutantEnv = "INFORMERLAB_GRADE_MUTANT"

// Mutant returns the name of the mutant this process should grade, or ""
// when it is not a child started by FailedInChild.
func Mutant() string { return os.Getenv(mutantEnv) }

// failedLine matches a report line of a failed behaviour; hungLine one
// that hung.
var (
	failedLine = regexp.MustCompile(`(?m)^  ✗ (\S+) — `)
	hungLine   = regexp.MustCompile(`(?m)^  ✗ (\S+) — hung; `)
)

const (
	// childWatchdog is the watchdog a child process grades with: shorter
	// than Watchdog, so a catalogue of mutants that hang stays quick.
	childWatchdog = 5 * time.Second
	// childLimit is how many watchdogs a child may go without starting a
	// behaviour before it is killed: its own watchdog should have fired
	// long before, so the grader itself hangs.
	childLimit = 3
)

// childReport is what grading one mutant in a child process found.
type childReport struct {
	failed, hung []string
	// died names the behaviour that was running when the child died
	// without a report (a fatal error such as "concurrent map writes").
	died   string
	output string
}

// FailedInChild runs the test binary again with only helperTest selected
// and Mutant() returning mutant, and returns the names of the behaviours
// its report marks as failed (hung ones included). The child grades with
// a watchdog of a few seconds; if it goes three times that without
// starting a behaviour, it is killed and the test fails, naming the
// behaviour that hung the grader.
func FailedInChild(t *testing.T, helperTest, mutant string) []string {
	t.Helper()
	r, err := gradeInChild(helperTest, mutant, childWatchdog)
	if err != nil {
		t.Fatalf("mutant %s: %v", mutant, err)
	}
	return r.failed
}

// gradeInChild runs the child, with watchdog as its Watchdog, and reads
// its report.
func gradeInChild(helperTest, mutant string, watchdog time.Duration) (childReport, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+helperTest+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), mutantEnv+"="+mutant, watchdogEnv+"="+watchdog.String(), progressEnv+"=1")
	pr, pw, err := os.Pipe()
	if err != nil {
		return childReport{}, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return childReport{}, err
	}
	pw.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var out strings.Builder
	running := "(none yet)"
	limit := childLimit * watchdog
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait() // a mutant's grading fails; the report is what counts
				r, err := readChildReport(out.String())
				if err != nil && running != "(none yet)" {
					return childReport{died: running, output: out.String()}, err
				}
				return r, err
			}
			out.WriteString(line + "\n")
			if name, ok := strings.CutPrefix(line, StartLinePrefix); ok {
				running = name
				timer.Reset(limit)
			}
		case <-timer.C:
			_ = cmd.Process.Kill()
			for line := range lines {
				out.WriteString(line + "\n")
			}
			_ = cmd.Wait()
			return childReport{}, fmt.Errorf("hung the grader in behaviour %s: nothing new for %v, so the child was killed:\n%s",
				running, limit, out.String())
		}
	}
}

func readChildReport(out string) (childReport, error) {
	if !strings.Contains(out, "\n"+ScoreLinePrefix+"lab=") {
		return childReport{}, fmt.Errorf("no report from the child process:\n%s", out)
	}
	r := childReport{output: out}
	for _, m := range failedLine.FindAllStringSubmatch(out, -1) {
		r.failed = append(r.failed, m[1])
	}
	for _, m := range hungLine.FindAllStringSubmatch(out, -1) {
		r.hung = append(r.hung, m[1])
	}
	return r, nil
}

// CatchesMistakes grades every mistake of a suite's catalogue in a child
// process (see [FailedInChild]), one subtest each, and fails unless every
// behaviour the mistake lists in Catches failed for it. helperTest is
// the suite's helper test that grades the mutant named by [Mutant].
func CatchesMistakes(t *testing.T, helperTest string, catalogue []Mistake) {
	t.Helper()
	names := map[string]bool{}
	for _, m := range catalogue {
		if names[m.Name] {
			t.Errorf("two mistakes are named %s", m.Name)
		}
		names[m.Name] = true
		t.Run(m.Name, func(t *testing.T) {
			if m.NeedsRace && !raceEnabled {
				t.Skipf("mutant %s is a data race: run with -race", m.Name)
			}
			if len(m.Catches) == 0 {
				t.Fatalf("mutant %s: Catches names no behaviour", m.Name)
			}
			r, err := gradeInChild(helperTest, m.Name, childWatchdog)
			for try := 1; try < m.Tries && err == nil && !caught(m, r); try++ {
				r, err = gradeInChild(helperTest, m.Name, childWatchdog)
			}
			switch {
			case r.died != "" && slices.Contains(m.Catches, r.died):
				// The test binary died in a behaviour that catches the
				// mistake (a fatal "concurrent map writes" of a store
				// without a lock): the learner is told it died there.
				return
			case err != nil:
				t.Fatalf("mutant %s (%s): %v", m.Name, m.What, err)
			case m.NeedsRace && len(r.failed) > 0 && strings.Contains(r.output, "race detected during execution of test"):
				// The race detector reports a race once per process, in
				// whichever behaviour first runs into it: a race mutant
				// is caught wherever it is reported.
				return
			}
			var missed []string
			for _, want := range m.Catches {
				if !slices.Contains(r.failed, want) {
					missed = append(missed, want)
				}
			}
			if len(missed) > 0 {
				t.Errorf("mutant %s (%s): expected %s to fail; failed: %v, of which hung: %v\n%s",
					m.Name, m.What, strings.Join(missed, ", "), r.failed, r.hung, r.output)
			}
		})
	}
}

// caught reports whether r shows every behaviour of m.Catches failed.
func caught(m Mistake, r childReport) bool {
	for _, want := range m.Catches {
		if !slices.Contains(r.failed, want) {
			return false
		}
	}
	return true
}

// A Mistake is one entry of a suite's mutant catalogue: a mistake a learner
// plausibly makes, written as a small wrong implementation (the suite's Impl,
// kept beside the entry), and the behaviours that must report it.
type Mistake struct {
	// Name is short and kebab-case, and selects the mutant in the child
	// process: "done-does-not-wake-get".
	Name string
	// What says the mistake as a learner would make it, in one sentence:
	// "Done puts a dirty item back on the queue but signals no waiter".
	What string
	// Catches lists the behaviours that must fail for this mutant; each of
	// them must be reported, not just one.
	Catches []string
	// NeedsRace marks a data race (a missing lock): only the race
	// detector reports it for sure, so CatchesMistakes skips the mistake
	// in a binary built without -race (where it may crash the grader).
	// The detector reports a race once, in whichever behaviour meets it
	// first, so a race mistake counts as caught when any behaviour fails
	// with a race report, not only those in Catches.
	NeedsRace bool
	// Tries is how many gradings may be spent to see the mistake: more
	// than one only for a mistake whose behaviour is a stress of real
	// goroutines, which catches it in most runs, not in every one (its
	// measured rate is in docs/labs.md). 0 means 1.
	Tries int
}

// GradeMutant is the body of a suite's helper test: in the child process
// [FailedInChild] starts, it grades impls[Mutant()] with behaviours; in the
// parent process it does nothing. A name impls lacks fails the test.
//
//	func TestHelperMutant(t *testing.T) {
//		impls := map[string]mysuite.Impl{"learner": learner(mistakes{})}
//		for _, m := range catalogue {
//			impls[m.Name] = m.impl
//		}
//		grade.GradeMutant(t, mysuite.Behaviours, impls)
//	}
func GradeMutant[I any](t *testing.T, behaviours func(I) []Behaviour, impls map[string]I) {
	t.Helper()
	name := Mutant()
	if name == "" {
		return
	}
	impl, ok := impls[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	Lab(t, "mutant-"+name, behaviours(impl))
}
