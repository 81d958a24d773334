package main

import (
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
