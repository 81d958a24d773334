package main

import (
	"fmt"
	"slices"
	"strings"
)

// kind says why a test is in the list.
type kind int

const (
	// private: the test reads or sets client-go's unexported fields, calls
	// its unexported functions, or injects through them; it cannot compile
	// against another implementation. It is taken out.
	private kind = iota
	// fakeClock: the test drives time with a fake clock handed to the
	// queue or the informer. informerlab takes no clock; its own tests
	// run in testing/synctest bubbles. It is taken out.
	fakeClock
	// leftOut: the test needs public client-go API informerlab leaves out
	// on purpose (docs/mapping.md says why). It is taken out.
	leftOut
	// logOutput: the test compares klog's text output, down to file and
	// line; informerlab logs through log/slog, so it cannot pass, and
	// failing takes it minutes of timeouts. It is taken out. (A test of
	// log output that fails quickly is run as differs instead.)
	logOutput
	// differs: the test runs and fails, on a deliberate difference that
	// the docs explain. A pass is a problem too: the list is stale.
	differs
	// wallClock: the test runs, and bounds real elapsed time tightly, so
	// a loaded machine can fail it. A failure is run again once, alone;
	// a second failure is a problem like any other.
	wallClock
)

func (k kind) String() string {
	return [...]string{"private internals", "fake clock", "API left out on purpose", "klog output", "deliberate difference", "wall-clock bound"}[k]
}

// entry is one line of the list: a test (or an example, a helper, a whole
// file when Name is empty) of one suite, and why.
type entry struct {
	Suite  string // "tools/cache" or "util/workqueue"
	File   string
	Name   string
	Kind   kind
	Reason string
	// Queues, for a differs entry of tools/cache, are the informer queues
	// it fails on; empty means all three (so far every expected failure
	// fails on all three).
	Queues []string
}

type expectations []entry

// drops returns what is taken out of a suite before compiling: whole files
// (by file name) and declarations (by name).
func (e expectations) drops(suite string) map[string]bool {
	m := map[string]bool{}
	for _, x := range e {
		if x.Suite != suite || x.Kind == differs || x.Kind == wallClock {
			continue
		}
		if x.Name == "" {
			m[x.File] = true
		} else {
			m[x.Name] = true
		}
	}
	return m
}

// excluded returns the entry that takes test name out, by name or by file.
func (e expectations) excluded(suite, name string) *entry {
	for i, x := range e {
		if x.Suite == suite && x.Kind != differs && x.Kind != wallClock && x.Name == name {
			return &e[i]
		}
	}
	for i, x := range e {
		if x.Suite == suite && x.Kind != differs && x.Kind != wallClock && x.Name == "" && slices.Contains(testsOf[suite+"/"+x.File], name) {
			return &e[i]
		}
	}
	return nil
}

// expectedFailure returns the entry that expects test name to fail on queue.
func (e expectations) expectedFailure(suite, name, queue string) *entry {
	for i, x := range e {
		if x.Suite == suite && x.Kind == differs && x.Name == name && (len(x.Queues) == 0 || slices.Contains(x.Queues, queue)) {
			return &e[i]
		}
	}
	return nil
}

// retryWallClock runs each wallClock test of suite that failed in res once
// more, alone, through rerun, and records the second outcome in res. It
// returns a line for each test retried.
func (e expectations) retryWallClock(suite string, res *runResult, rerun func(test string) (runResult, error)) ([]string, error) {
	var notes []string
	for _, x := range e {
		if x.Suite != suite || x.Kind != wallClock || res.Outcome[x.Name] != "fail" {
			continue
		}
		again, err := rerun(x.Name)
		if err != nil {
			return notes, err
		}
		outcome := again.Outcome[x.Name]
		if outcome == "" {
			outcome = "fail"
		}
		res.Outcome[x.Name] = outcome
		if outcome != "pass" {
			res.Output[x.Name] = append(res.Output[x.Name], again.Output[x.Name]...)
		}
		notes = append(notes, fmt.Sprintf("%s %s failed, then %s when run again alone (%s)", suite, x.Name, map[string]string{"pass": "passed", "fail": "failed", "skip": "skipped"}[outcome], x.Reason))
	}
	return notes, nil
}

// testsOf is filled from the prepared files: suite/file -> its tests.
var testsOf = map[string][]string{}

// check reports entries that name nothing in client-go's files: the list
// must follow client-go's version.
func (e expectations) check(suite string, files []testFile, declNames map[string]bool) []string {
	var problems []string
	byFile := map[string]bool{}
	for _, f := range files {
		byFile[f.Name] = true
	}
	for _, x := range e {
		if x.Suite != suite {
			continue
		}
		if strings.TrimSpace(x.Reason) == "" {
			problems = append(problems, fmt.Sprintf("%s %s %s: no reason given", suite, x.File, x.Name))
		}
		if !byFile[x.File] {
			problems = append(problems, fmt.Sprintf("%s: the list names %s, which client-go no longer has", suite, x.File))
		} else if x.Name != "" && !declNames[x.File+":"+x.Name] {
			problems = append(problems, fmt.Sprintf("%s: the list names %s in %s, which client-go no longer declares there", suite, x.Name, x.File))
		}
	}
	return problems
}

// The suites' names, for the list.
const (
	tc = "tools/cache"
	wq = "util/workqueue"
)
