package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPackageTailKeepsReportsAndDropsInformationalLogs: after the tests, a
// goleak report or a panic is a problem; go test's summary and an INFO line
// of an informer that stopped after its test returned are not.
func TestPackageTailKeepsReportsAndDropsInformationalLogs(t *testing.T) {
	lines := []string{
		"2026/11/27 15:55:06 INFO reflector: stopped resource=configmaps",
		"time=2026-11-27T15:55:06.611Z level=INFO msg=\"reflector: stopped\"",
		"I1127 15:55:06.611477    7402 reflector.go:227] stopped",
		"goleak: Errors on successful test run: found unexpected goroutines:",
		"2026/11/27 15:55:06 WARN reflector: watch ended",
		"FAIL",
		"FAIL\tk8s.io/client-go/tools/cache\t28.1s",
	}

	tail := packageTail(lines)

	assert.Equal(t, []string{
		"goleak: Errors on successful test run: found unexpected goroutines:",
		"2026/11/27 15:55:06 WARN reflector: watch ended",
	}, tail)
}

// TestRetryWallClockRunsAFailedWallClockTestOnceMoreAlone: a wall-clock
// test that failed is run again alone, once; its second outcome replaces
// the first (a pass clears it, a second failure stays a failure and keeps
// both outputs); a test of another kind, or one that passed, is not rerun.
func TestRetryWallClockRunsAFailedWallClockTestOnceMoreAlone(t *testing.T) {
	exp := expectations{
		{Suite: tc, File: "a_test.go", Name: "TestFlaky", Kind: wallClock, Reason: "bounds real time"},
		{Suite: tc, File: "a_test.go", Name: "TestSlow", Kind: wallClock, Reason: "bounds real time"},
		{Suite: tc, File: "a_test.go", Name: "TestFine", Kind: wallClock, Reason: "bounds real time"},
		{Suite: tc, File: "a_test.go", Name: "TestDiffers", Kind: differs, Reason: "on purpose"},
	}
	res := runResult{
		Outcome: map[string]string{"TestFlaky": "fail", "TestSlow": "fail", "TestFine": "pass", "TestDiffers": "fail"},
		Output:  map[string][]string{"TestSlow": {"first"}},
	}
	var reran []string
	notes, err := exp.retryWallClock(tc, &res, func(test string) (runResult, error) {
		reran = append(reran, test)
		out := map[string]string{"TestFlaky": "pass", "TestSlow": "fail"}
		return runResult{Outcome: map[string]string{test: out[test]}, Output: map[string][]string{test: {"second"}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"TestFlaky", "TestSlow"}; !slices.Equal(reran, want) {
		t.Errorf("reran %v, want %v", reran, want)
	}
	if res.Outcome["TestFlaky"] != "pass" || res.Outcome["TestSlow"] != "fail" || res.Outcome["TestDiffers"] != "fail" {
		t.Errorf("outcomes after the retry: %v", res.Outcome)
	}
	if !slices.Equal(res.Output["TestSlow"], []string{"first", "second"}) {
		t.Errorf("a second failure keeps both outputs: %v", res.Output["TestSlow"])
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "TestFlaky failed, then passed when run again alone") {
		t.Errorf("notes: %q", notes)
	}
	if exp.excluded(tc, "TestFlaky") != nil || exp.drops(tc)["TestFlaky"] {
		t.Error("a wall-clock test is run, not taken out")
	}
}
