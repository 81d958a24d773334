package grade

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Watchdog is how long, in real time, one behaviour may run before the
// grader gives up on it. A behaviour that has not finished by then is
// failed as hung: the report says what usually causes that and where the
// lab's goroutines were, and grading goes on with the next behaviour.
//
// Behaviours in synctest bubbles take no real time to wait, and the
// others finish in well under a second, so only a hang — a waiter nobody
// wakes, a lock never released, a loop that never blocks — reaches it.
const Watchdog = 20 * time.Second

// After a behaviour hung, the lab very likely deadlocks everywhere (a lock
// taken again inside a method that holds it), so the grader waits less:
// the next behaviour gets a watchdog of AfterOneHang, and once two have
// hung, each of the rest gets ShortWatchdog. A self-deadlocking lab of
// seventeen behaviours then scores in under a minute rather than six.
const (
	AfterOneHang  = 10 * time.Second
	ShortWatchdog = time.Second
)

const (
	// watchdogEnv, if set to a duration, replaces Watchdog: the grader's
	// own tests and FailedInChild shorten it.
	watchdogEnv = "INFORMERLAB_GRADE_WATCHDOG"
	// logEnv, if set, leaves the components' INFO logging on while
	// grading (cmd/labs --log sets it); otherwise only warnings and
	// errors logged through log/slog's default logger are shown.
	logEnv = "INFORMERLAB_GRADE_LOG"
	// progressEnv, if set, makes the grader print a StartLinePrefix line
	// as each behaviour starts, so that whoever reads the output can tell
	// which behaviour was running if the test binary dies.
	progressEnv = "INFORMERLAB_GRADE_PROGRESS"
)

// StartLinePrefix starts the line the grader prints when a behaviour
// starts, if the environment asks for it (cmd/labs and FailedInChild do):
//
//	grade: start AddCollapsesWhileWaiting
const StartLinePrefix = "grade: start "

func watchdogFromEnv() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(watchdogEnv)); err == nil && d > 0 {
		return d
	}
	return Watchdog
}

// hangCauses is what the report says about a behaviour that hung.
// It is cut into lines the report indents under the behaviour's name.
const hangCauses = "\nA behaviour that never finishes is usually a waiter nobody wakes " +
	"(a Get or a drain waiting for a signal no Add, Done or ShutDown sends),\n" +
	"a lock held across a call or callback that needs it again, " +
	"a goroutine that never ends, or a loop that never blocks (it spins instead of waiting)."

// grader runs behaviours one at a time, each under the watchdog.
type grader struct {
	strict   bool
	watchdog time.Duration
	// hangs counts the behaviours that outlived their watchdog.
	hangs int
	// pkg is the import path of the code under grade (the caller of Lab
	// or Reference): stacks are trimmed to its goroutines.
	pkg string
	// top names the top-level test each behaviour runs under: the
	// caller's test, so that go test's -run pattern still selects it.
	top      string
	out      *capture
	progress io.Writer
	mu       sync.Mutex // guards shown
	// shown holds the goroutines ("goroutine 12") whose stacks a report
	// of an earlier hang already shows.
	shown map[string]bool
	// abandoned is set once a behaviour outlived the watchdog: its
	// goroutine still runs, so the process must end soon after the report.
	abandoned bool
}

// finish is what a behaviour's test records as it ends.
type finish struct {
	name       string
	notStarted bool
	// deadlock is synctest's panic when every goroutine of the bubble
	// was blocked, and stacks where the lab's goroutines were then.
	deadlock, stacks string
}

// one grades b. It returns false if go test's -run pattern left b out.
func (g *grader) one(b Behaviour) (Result, bool) {
	if g.progress != nil {
		fmt.Fprintf(g.progress, "%s%s\n", StartLinePrefix, b.Name)
	}
	var ran atomic.Bool
	var fin finish
	done := make(chan bool, 1)
	go func() {
		done <- testing.RunTests(matchString, []testing.InternalTest{{
			Name: g.top,
			F: func(t *testing.T) {
				t.Run(b.Name, func(t *testing.T) {
					ran.Store(true)
					fin.name = t.Name()
					g.body(t, b, &fin)
				})
			},
		}})
	}()
	limit, why := g.limit()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var passed bool
	select {
	case passed = <-done:
	case <-timer.C:
		stacks := g.stacks()
		g.abandoned = true
		g.hangs++
		g.out.take() // whatever it printed so far: the stacks say more
		return Result{Behaviour: b, Outcome: Failed, Hang: fmt.Sprintf(
			"did not finish within %v (real time%s).%s", limit, why, hangCauses), Stacks: stacks}, true
	}
	output := tidy(g.out.take())
	if !ran.Load() {
		return Result{}, false
	}
	_, startedNothing := startedNothing.LoadAndDelete(fin.name)
	switch {
	case fin.deadlock != "":
		return Result{Behaviour: b, Outcome: Failed, Hang: fmt.Sprintf(
			"deadlocked: every goroutine of its synctest bubble was blocked, and no timer could wake one (%s).%s",
			fin.deadlock, hangCauses), Stacks: fin.stacks}, true
	case !g.strict && (fin.notStarted || startedNothing && !passed):
		return Result{Behaviour: b, Outcome: NotStarted}, true
	case passed:
		return Result{Behaviour: b, Outcome: Passed}, true
	}
	return Result{Behaviour: b, Outcome: Failed, Output: capLines(output, MaxOutputLines)}, true
}

// limit returns the watchdog for the next behaviour, shorter after hangs
// (see AfterOneHang), and why it is shorter.
func (g *grader) limit() (time.Duration, string) {
	switch {
	case g.hangs >= 2:
		return min(g.watchdog, ShortWatchdog), "; the short watchdog, since two behaviours hung before"
	case g.hangs == 1:
		return min(g.watchdog, AfterOneHang), "; shorter, since a behaviour hung before"
	}
	return g.watchdog, ""
}

// body runs b's test on t and turns a panic into a failure: a
// NotImplementedError into "not started" (unless strict), synctest's
// deadlock into a hang.
func (g *grader) body(t *testing.T, b Behaviour, fin *finish) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if err, ok := r.(error); ok && IsNotImplemented(err) {
			if g.strict {
				t.Fatalf("not started: %v", err)
			}
			fin.notStarted = true
			t.Skipf("not started: %v", err)
		}
		if msg := fmt.Sprint(r); strings.HasPrefix(msg, "deadlock: ") {
			fin.deadlock, fin.stacks = msg, g.stacks()
			t.Fatal(msg)
		}
		t.Fatalf("panic: %v\n%s", r, trimPanicStack(string(debug.Stack())))
	}()
	b.Test(t)
}

// stacks returns the lab's goroutines' stacks not shown before.
func (g *grader) stacks() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return labStacks(g.pkg, g.shown)
}

// matchString is the matcher testing.RunTests wants: go test's -run
// pattern against a test's name.
func matchString(pat, str string) (bool, error) { return regexp.MatchString(pat, str) }

// callerPackage returns the import path of the package of the function
// skip frames above its caller, without a _test suffix.
func callerPackage(skip int) string {
	pc, _, _, ok := runtime.Caller(skip + 1)
	if !ok {
		return ""
	}
	name := runtime.FuncForPC(pc).Name() // path/to/pkg.Func or path/to/pkg.(*T).M
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return strings.TrimSuffix(name[:slash+1+dot], "_test")
}

const (
	// maxStackGoroutines and maxStackFrames bound the stacks a hang shows.
	maxStackGoroutines = 6
	maxStackFrames     = 8
)

// labStacks returns the stacks of the goroutines that have a frame in pkg
// (or in its external test package), other than the caller's and the
// grader's, each trimmed to the frame it is blocked in and its frames in
// pkg. It leaves out the goroutines in shown, and adds those it shows.
func labStacks(pkg string, shown map[string]bool) string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return trimStacks(string(buf), pkg, shown)
}

// trimStacks does labStacks' work on the text runtime.Stack returned.
func trimStacks(all, pkg string, seen map[string]bool) string {
	inPkg := func(fn string) bool {
		fn = strings.TrimPrefix(fn, "created by ")
		if strings.HasPrefix(fn, graderPackage+".") {
			return false // the grader's own frames, when it grades itself
		}
		return pkg != "" && (strings.HasPrefix(fn, pkg+".") || strings.HasPrefix(fn, pkg+"_test."))
	}
	var b strings.Builder
	shown, more := 0, 0
	for i, g := range strings.Split(all, "\n\n") {
		if i == 0 {
			continue // the goroutine that asked
		}
		lines := strings.Split(strings.TrimSpace(g), "\n")
		if len(lines) < 3 || strings.Contains(g, "\n"+graderPackage+".run(") {
			continue // not a stack, or the grader's own goroutine
		}
		id, _, _ := strings.Cut(lines[0], " [") // "goroutine 12"
		if seen[id] {
			continue // shown with an earlier hang
		}
		// lines[0] is the header; then a function line and a file line
		// per frame.
		var frames []string
		mine := false
		for f := 1; f+1 < len(lines); f += 2 {
			fn := lines[f]
			if inPkg(fn) {
				mine = true
			}
			if (f == 1 || inPkg(fn)) && len(frames) < 2*maxStackFrames {
				frames = append(frames, "  "+fn, "  "+lines[f+1])
			}
		}
		if !mine {
			continue
		}
		if shown == maxStackGoroutines {
			more++
			continue
		}
		shown++
		seen[id] = true
		b.WriteString(lines[0] + "\n")
		for _, l := range frames {
			b.WriteString(l + "\n")
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "… and %d more goroutines\n", more)
	}
	if shown == 0 {
		return "no other goroutine of " + pkg + " was running\n"
	}
	return b.String()
}

// trimPanicStack keeps the frames of a panicking goroutine's stack that
// are neither the grader's nor the runtime's, so the learner's own line
// is among the first shown.
func trimPanicStack(stack string) string {
	lines := strings.Split(strings.TrimSpace(stack), "\n")
	var b strings.Builder
	for f := 1; f+1 < len(lines); f += 2 {
		fn := lines[f]
		if strings.HasPrefix(fn, "runtime/debug.") || strings.HasPrefix(fn, "panic(") ||
			strings.HasPrefix(fn, "testing.") || strings.HasPrefix(fn, "created by testing.") ||
			strings.HasPrefix(fn, graderPackage+".") {
			continue
		}
		b.WriteString(fn + "\n" + lines[f+1] + "\n")
	}
	return b.String()
}

// graderPackage is this package's import path.
const graderPackage = "github.com/informerlab/informerlab/labs/grade"
