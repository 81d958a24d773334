package grade_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/labs/grade"
)

// sampleBehaviours has one behaviour of each outcome, chosen by the
// GRADE_SAMPLE environment variable of the child process.
func sampleBehaviours(which string) []grade.Behaviour {
	pass := grade.Behaviour{Name: "Passes", Want: "nothing", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {}}
	fail := grade.Behaviour{Name: "Fails", Want: "one equals two", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		t.Error("1 != 2")
	}}
	panics := grade.Behaviour{Name: "Panics", Want: "no panic", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		var items []string
		_ = items[len(items)] // index out of range
	}}
	missing := grade.Behaviour{Name: "Missing", Want: "Queue.Add to work", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		panic(grade.NotImplemented("Queue.Add"))
	}}
	missingElsewhere := grade.Behaviour{Name: "MissingElsewhere", Want: "Run to work", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		<-grade.Go(t, func() { panic(grade.NotImplemented("Reflector.Run")) })
	}}
	blocks := grade.Behaviour{Name: "Blocks", Want: "an end", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		<-make(chan struct{}) // a waiter nobody wakes, outside any bubble
	}}
	spins := grade.Behaviour{Name: "Spins", Want: "a Get that waits", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		spinGet(new(atomic.Bool))
	}}
	deadlocks := grade.Behaviour{Name: "Deadlocks", Want: "a Get that wakes", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		grade.Bubble(t, func(t *testing.T) { waitForever(make(chan struct{})) })
	}}
	noisy := grade.Behaviour{Name: "Noisy", Want: "quiet", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		for i := range 100 {
			t.Errorf("item-%d missing", i)
		}
	}}
	long := grade.Behaviour{Name: "Long", Want: "short", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		t.Errorf("cache: %s", strings.Repeat("x", 1000))
	}}
	logs := grade.Behaviour{Name: "Logs", Want: "quiet", Doc: "docs/labs.md#the-path", Test: func(t *testing.T) {
		slog.Info("component-info-line")
		slog.Warn("component-warn-line")
		log.Print("learner-log-line")
	}}
	switch which {
	case "deadlocks":
		return []grade.Behaviour{blocks, blocks, blocks, blocks, blocks, pass}
	case "long":
		return []grade.Behaviour{long}
	case "logs":
		return []grade.Behaviour{logs}
	case "hangs":
		return []grade.Behaviour{pass, blocks, spins, deadlocks, fail, pass}
	case "noisy":
		return []grade.Behaviour{noisy, pass}
	case "skeleton":
		return []grade.Behaviour{missing, missing}
	case "done":
		return []grade.Behaviour{pass, pass}
	default:
		return []grade.Behaviour{pass, fail, panics, missing, missingElsewhere}
	}
}

// spinGet is a Get that never blocks: it polls a flag nobody sets.
//
//go:noinline
func spinGet(ready *atomic.Bool) {
	for !ready.Load() {
	}
}

// waitForever blocks on ch; it is here so a hang's stacks have a frame of
// this package to show.
//
//go:noinline
func waitForever(ch chan struct{}) { <-ch }

// TestHelperLab is the child process of the tests below: it grades a
// sample lab only when asked to through the environment.
func TestHelperLab(t *testing.T) {
	which := os.Getenv("GRADE_SAMPLE")
	if which == "" {
		t.Skip("run by the tests below in a child process")
	}
	grade.Lab(t, "0-sample", sampleBehaviours(which))
}

func runLab(t *testing.T, which string, env ...string) (string, error) {
	t.Helper()
	return runHelper(t, "TestHelperLab", append(env, "GRADE_SAMPLE="+which)...)
}

// runHelper runs one helper test of this package in a child process.
func runHelper(t *testing.T, helper string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestLabReportsScoreAndWhatIsWrong(t *testing.T) {
	out, err := runLab(t, "mixed")
	require.Error(t, err, "a lab with failing behaviours fails:\n%s", out)
	if grade.ReferenceBuild() {
		// Built with labs_reference, Lab is strict: not started is failed.
		assert.Contains(t, out, "grade: lab=0-sample passed=1 total=5 notstarted=0\n")
		assert.Contains(t, out, "✗ Missing — want: Queue.Add to work")
		assert.Contains(t, out, "✗ MissingElsewhere — want: Run to work")
		return
	}
	assert.Contains(t, out, "grade: lab=0-sample passed=1 total=5 notstarted=2\n")
	assert.Contains(t, out, "0-sample: 1 of 5 behaviours pass (2 not started)\n")
	assert.Contains(t, out, "✗ Fails — want: one equals two (see docs/labs.md#the-path)")
	assert.Contains(t, out, "✗ Panics — want: no panic (see docs/labs.md#the-path)")
	assert.Contains(t, out, "· Missing — not started; want: Queue.Add to work")
	assert.Contains(t, out, "· MissingElsewhere — not started; want: Run to work", "a goroutine's NotImplemented")
	assert.NotContains(t, out, "✗ Passes")
	assert.Contains(t, out, "✗ Fails\n    grade_test.go:", "the failure's own message, with its line")
	assert.Contains(t, out, "grade_test.sampleBehaviours", "a panic's stack shows the test's frame")
	assert.True(t, strings.HasSuffix(out, "0-sample: 1 of 5 behaviours pass (2 not started)\n--- FAIL: TestHelperLab\nFAIL\n") ||
		strings.Contains(lastGraderLine(out), "1 of 5 behaviours pass"), "the score is the last line the grader prints:\n%s", out)
}

// lastGraderLine is the last line of out before the testing package's own
// verdict lines (--- FAIL, FAIL, PASS, ok).
func lastGraderLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if strings.HasPrefix(l, "--- ") || l == "FAIL" || l == "PASS" || strings.HasPrefix(l, "exit status") {
			continue
		}
		return l
	}
	return ""
}

func TestHangingBehavioursFailWithStacksAndGradingGoesOn(t *testing.T) {
	start := time.Now()
	out, err := runLab(t, "hangs", "INFORMERLAB_GRADE_WATCHDOG=500ms")
	require.Error(t, err, "a lab that hung fails:\n%s", out)
	assert.Less(t, time.Since(start), time.Minute, "the grader did not wait for the hung behaviours")
	assert.Contains(t, out, "grade: lab=0-sample passed=2 total=6 notstarted=0\n", out)
	assert.Equal(t, "0-sample: 2 of 6 behaviours pass", lastGraderLine(out))
	for _, name := range []string{"Blocks", "Spins", "Deadlocks"} {
		assert.Regexp(t, "(?m)^  ✗ "+name+" — hung; want: ", out)
	}
	assert.Contains(t, out, "✗ Blocks did not finish within 500ms (real time).\n  A behaviour that never finishes is usually a waiter nobody wakes")
	assert.Contains(t, out, "✗ Spins did not finish within 500ms", "a busy loop is caught by the watchdog")
	assert.Contains(t, out, "grade_test.spinGet", "the spinning goroutine's stack")
	assert.Contains(t, out, "✗ Deadlocks deadlocked: every goroutine of its synctest bubble was blocked")
	assert.Contains(t, out, "grade_test.waitForever", "the deadlocked goroutine's stack")
	assert.NotContains(t, out, "labs/grade.(*grader)", "the grader's own goroutines are not shown")
	assert.Contains(t, out, "✗ Fails — want: one equals two", "grading went on after the hangs")
}

func TestStartLinesNameEachBehaviourWhenAsked(t *testing.T) {
	out, err := runLab(t, "done", "INFORMERLAB_GRADE_PROGRESS=1")
	require.NoError(t, err, out)
	assert.Equal(t, 2, strings.Count(out, grade.StartLinePrefix+"Passes\n"), out)
	out, err = runLab(t, "done")
	require.NoError(t, err, out)
	assert.NotContains(t, out, grade.StartLinePrefix)
}

func TestFailureOutputIsCappedPerBehaviour(t *testing.T) {
	out, err := runLab(t, "noisy")
	require.Error(t, err)
	assert.Contains(t, out, "item-0 missing")
	assert.NotContains(t, out, "item-99 missing")
	assert.Contains(t, out, fmt.Sprintf("… and %d more lines", 100-grade.MaxOutputLines))
	assert.Equal(t, "0-sample: 1 of 2 behaviours pass", lastGraderLine(out))
}

func TestUntouchedSkeletonScoresZeroAndSkips(t *testing.T) {
	out, err := runLab(t, "skeleton")
	if grade.ReferenceBuild() {
		// Built with labs_reference, a skeleton is a failure: the reference
		// must be wired in.
		require.Error(t, err, out)
		assert.Contains(t, out, "grade: lab=0-sample passed=0 total=2 notstarted=0\n")
		return
	}
	require.NoError(t, err, "an untouched skeleton keeps go test green:\n%s", out)
	assert.Contains(t, out, "grade: lab=0-sample passed=0 total=2 notstarted=2\n")
	assert.Contains(t, out, "--- SKIP: TestHelperLab")
	assert.Equal(t, "0-sample: 0 of 2 behaviours pass (2 not started)", lastGraderLine(out))
}

func TestFullScorePasses(t *testing.T) {
	out, err := runLab(t, "done")
	require.NoError(t, err, out)
	assert.Contains(t, out, "grade: lab=0-sample passed=2 total=2 notstarted=0\n")
	assert.NotContains(t, out, "✗")
}

func TestNotImplementedIsRecognisedWhenWrapped(t *testing.T) {
	err := fmt.Errorf("store: %w", grade.NotImplemented("Store.Add"))
	assert.True(t, grade.IsNotImplemented(err))
	assert.Equal(t, "store: Store.Add: not implemented", err.Error())
	assert.False(t, grade.IsNotImplemented(errors.New("Store.Add: not implemented")))
}

func TestGoReportsAPanicInsteadOfCrashing(t *testing.T) {
	// A child process again: the panic must fail the test that started
	// the goroutine, and only that one.
	if os.Getenv("GRADE_GO_PANIC") != "" {
		<-grade.Go(t, func() { panic("boom") })
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoReportsAPanicInsteadOfCrashing$", "-test.v")
	cmd.Env = append(os.Environ(), "GRADE_GO_PANIC=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "panic in a goroutine: boom")
	assert.Contains(t, string(out), "--- FAIL: TestGoReportsAPanicInsteadOfCrashing")
	assert.NotContains(t, string(out), "goroutine 1 [", "the process did not crash")
}

func TestAnchorFollowsGitHubRules(t *testing.T) {
	for heading, want := range map[string]string{
		" 1. Keys": "1-keys",
		"Get, Done, Forget, AddRateLimited: what each one does": "get-done-forget-addratelimited-what-each-one-does",
		"HasSynced: after the last initial item is *processed*": "hassynced-after-the-last-initial-item-is-processed",
		"Replace and the tombstone":                             "replace-and-the-tombstone",
	} {
		assert.Equal(t, want, grade.Anchor(heading), heading)
	}
}

func TestCheckDocsFindsBrokenLinks(t *testing.T) {
	ok := grade.Behaviour{Name: "Ok", Doc: "docs/workqueue.md#shutting-down"}
	noFile := grade.Behaviour{Name: "NoFile", Doc: "docs/nope.md#x"}
	noAnchor := grade.Behaviour{Name: "NoAnchor", Doc: "docs/workqueue.md#no-such-heading"}
	bare := grade.Behaviour{Name: "Bare", Doc: "docs/workqueue.md"}
	require.NoError(t, grade.CheckDocs([]grade.Behaviour{ok}))
	err := grade.CheckDocs([]grade.Behaviour{ok, noFile, noAnchor, bare})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "behaviour NoFile")
	assert.Contains(t, msg, "docs/workqueue.md has no heading with anchor #no-such-heading")
	assert.Contains(t, msg, `Doc "docs/workqueue.md" is not a path#anchor`)
	assert.False(t, strings.Contains(msg, "behaviour Ok"))
}

func TestBubbleCarriesAPanicOut(t *testing.T) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		require.True(t, ok, "recovered %v", r)
		assert.True(t, grade.IsNotImplemented(err))
	}()
	grade.Bubble(t, func(t *testing.T) {
		panic(grade.NotImplemented("Queue.Add"))
	})
	t.Fatal("Bubble returned")
}

// TestHelperHangingGrader stands for a grader that itself hangs: it names
// a behaviour and then never finishes, watchdog or not.
func TestHelperHangingGrader(t *testing.T) {
	if grade.Mutant() == "" {
		t.Skip("run by TestFailedInChildKillsAGraderThatHangs in a child process")
	}
	fmt.Println(grade.StartLinePrefix + "SpinsForever")
	spinGet(new(atomic.Bool))
}

func TestFailedInChildKillsAGraderThatHangs(t *testing.T) {
	start := time.Now()
	_, err := grade.GradeInChild("TestHelperHangingGrader", "spin", 300*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hung the grader in behaviour SpinsForever")
	assert.Less(t, time.Since(start), 30*time.Second)
}

// TestHelperCatalogue grades the sample behaviours as a mutant's lab,
// or, asked for a catalogue, checks one that expects too much.
func TestHelperCatalogue(t *testing.T) {
	switch {
	case grade.Mutant() != "":
		grade.Lab(t, "mutant-"+grade.Mutant(), sampleBehaviours("mixed"))
	case os.Getenv("GRADE_CATALOGUE") != "":
		grade.CatchesMistakes(t, "TestHelperCatalogue", []grade.Mistake{
			{Name: "caught", What: "a sample that fails", Catches: []string{"Fails", "Panics"}},
			{Name: "missed", What: "a sample that passes", Catches: []string{"Fails", "Passes"}},
		})
	default:
		t.Skip("run by TestCatchesMistakesNamesTheBehaviourThatDidNotFail")
	}
}

func TestCatchesMistakesNamesTheBehaviourThatDidNotFail(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCatalogue$", "-test.v")
	cmd.Env = append(os.Environ(), "GRADE_CATALOGUE=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestHelperCatalogue/caught")
	assert.Contains(t, string(out), "--- FAIL: TestHelperCatalogue/missed")
	assert.Contains(t, string(out), "mutant missed (a sample that passes): expected Passes to fail; failed: [Fails Panics")
}

func TestAfterTwoHangsTheRestGetTheShortWatchdog(t *testing.T) {
	start := time.Now()
	out, err := runLab(t, "deadlocks", "INFORMERLAB_GRADE_WATCHDOG=2s")
	require.Error(t, err, "a lab that hung fails:\n%s", out)
	assert.Less(t, time.Since(start), 2*2*time.Second+3*grade.ShortWatchdog+5*time.Second,
		"two hangs at the full watchdog, the rest at the short one")
	assert.Equal(t, 2, strings.Count(out, "did not finish within 2s (real time"), out)
	assert.Equal(t, 3, strings.Count(out, fmt.Sprintf("did not finish within %v (real time; the short watchdog, since two behaviours hung before).", grade.ShortWatchdog)), out)
	assert.Contains(t, out, "grade: lab=0-sample passed=1 total=6 notstarted=0\n", "a behaviour that does not hang still passes")
}

func TestFailureLinesAreCappedInLength(t *testing.T) {
	out, err := runLab(t, "long")
	require.Error(t, err)
	assert.Contains(t, out, "more characters")
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, len([]rune(l)), grade.MaxLineLength+40, "a line of the report: %.80s…", l)
	}
}

func TestComponentsInfoLogIsSilencedUnlessAsked(t *testing.T) {
	out, err := runLab(t, "logs")
	require.NoError(t, err, out)
	assert.NotContains(t, out, "component-info-line")
	assert.Contains(t, out, "component-warn-line", "warnings still show")
	assert.Contains(t, out, "learner-log-line", "the log package's lines still show")
	out, err = runLab(t, "logs", "INFORMERLAB_GRADE_LOG=1")
	require.NoError(t, err, out)
	assert.Contains(t, out, "component-info-line")
}
