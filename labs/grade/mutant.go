package grade

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// A suite proves that its behaviours can fail by grading deliberately
// broken implementations ("mutants") and checking that the behaviour
// each one breaks is reported. A failing behaviour fails the test that
// runs it, so the grading happens in a child process: the suite's test
// binary runs again, selecting a helper test that grades one mutant.
//
//	func TestHelperMutant(t *testing.T) {
//		if name := grade.Mutant(); name != "" {
//			grade.Lab(t, "mutant", Behaviours(mutants[name]))
//		}
//	}
//
//	func TestSuiteCatchesMutants(t *testing.T) {
//		failed := grade.FailedInChild(t, "TestHelperMutant", "no-dedup")
//		assert.Contains(t, failed, "AddCollapsesWhileWaiting")
//	}

const mutantEnv = "INFORMERLAB_GRADE_MUTANT"

// Mutant returns the name of the mutant this process should grade, or ""
// when it is not a child started by FailedInChild.
func Mutant() string { return os.Getenv(mutantEnv) }

// failedLine matches a report line of a failed behaviour.
var failedLine = regexp.MustCompile(`(?m)^  ✗ (\S+) — `)

// FailedInChild runs the test binary again with only helperTest selected
// and Mutant() returning mutant, and returns the names of the behaviours
// its report marks as failed.
func FailedInChild(t *testing.T, helperTest, mutant string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helperTest+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), mutantEnv+"="+mutant)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // a mutant's grading fails; the report is what counts
	if !bytes.Contains(out.Bytes(), []byte(ScoreLinePrefix)) {
		t.Fatalf("mutant %s: no report from the child process:\n%s", mutant, out.String())
	}
	var failed []string
	for _, m := range failedLine.FindAllSubmatch(out.Bytes(), -1) {
		failed = append(failed, string(m[1]))
	}
	return failed
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
}
