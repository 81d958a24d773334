package grade_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

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
	switch which {
	case "skeleton":
		return []grade.Behaviour{missing, missing}
	case "done":
		return []grade.Behaviour{pass, pass}
	default:
		return []grade.Behaviour{pass, fail, panics, missing, missingElsewhere}
	}
}

// TestHelperLab is the child process of the tests below: it grades a
// sample lab only when asked to through the environment.
func TestHelperLab(t *testing.T) {
	which := os.Getenv("GRADE_SAMPLE")
	if which == "" {
		t.Skip("run by the tests below in a child process")
	}
	grade.Lab(t, "0-sample", sampleBehaviours(which))
}

func runLab(t *testing.T, which string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLab$", "-test.v")
	cmd.Env = append(os.Environ(), "GRADE_SAMPLE="+which)
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
	assert.Contains(t, out, "2 of 5 behaviours not started")
	assert.NotContains(t, out, "✗ Passes")
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
	assert.Contains(t, out, "lab 0-sample not started: 0 of 2 behaviours pass")
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
