package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrepareTakesOutListedAndUnreachableDeclarations checks the runner's
// rule: listed tests and files go, then whatever no remaining test reaches
// (benchmarks always), then unused imports; the rest is left as written.
func TestPrepareTakesOutListedAndUnreachableDeclarations(t *testing.T) {
	drop := map[string]bool{"TestListed": true, "b_test.go": true, "private": true}

	files, err := prepareSuite("testdata/suite", drop, nil)

	require.NoError(t, err)
	require.Len(t, files, 2)
	a, b := files[0], files[1]
	assert.Equal(t, []string{"TestKept", "TestListed", "ExampleKept"}, a.Tests)
	assert.ElementsMatch(t, []string{"unused", "_", "private", "private.name", "TestListed", "BenchmarkAlwaysDropped"}, a.Dropped)
	src := string(a.Source)
	assert.Contains(t, src, `return strings.ToUpper("kept")`)
	assert.Contains(t, src, "var _ interface{ name() string } = helper{}")
	assert.Contains(t, src, "// Output:")
	assert.NotContains(t, src, "private")
	_, err = parser.ParseFile(token.NewFileSet(), a.Name, a.Source, 0)
	assert.NoError(t, err)
	assert.Nil(t, b.Source)
	assert.Equal(t, []string{"TestInListedFile"}, b.Dropped)
}

// TestPrepareRemovesImportsNoLongerUsed checks that a test taken out takes
// its imports with it, so that the file still compiles.
func TestPrepareRemovesImportsNoLongerUsed(t *testing.T) {
	drop := map[string]bool{"TestKept": true, "ExampleKept": true, "TestListed": true}

	files, err := prepareSuite("testdata/suite", drop, nil)

	require.NoError(t, err)
	src := string(files[0].Source)
	assert.False(t, strings.Contains(src, `"strings"`), "strings is used only by helper, which no test reaches:\n%s", src)
	assert.True(t, strings.Contains(src, "package suite"))
}

// TestVerdictReportsEveryUnlistedOutcome checks what fails the run: an
// unlisted failure, an expected failure that passed, a skip.
func TestVerdictReportsEveryUnlistedOutcome(t *testing.T) {
	files := []testFile{{Name: "x_test.go", Tests: []string{"TestA", "TestB", "TestC", "TestD", "TestE"}, Dropped: []string{"TestE"}}}
	exp := groups(
		group("s", "x_test.go", differs, "expected to fail", "TestB"),
		group("s", "x_test.go", private, "private", "TestE"),
	)
	testsOf["s/x_test.go"] = files[0].Tests
	res := runResult{Outcome: map[string]string{"TestA": "fail", "TestB": "pass", "TestC": "skip", "TestD": "pass"}, Output: map[string][]string{}}

	rows, problems := verdict("s", files, res, exp, "")

	assert.Equal(t, []fileRow{{File: "x_test.go", Tests: 5, Run: 4, Pass: 2, Fail: 1, Excluded: 1}}, rows)
	require.Len(t, problems, 3)
	assert.Contains(t, problems[0], "TestA: FAILED (not in the list)")
	assert.Contains(t, problems[1], "TestB: passed, but the list expects it to fail")
	assert.Contains(t, problems[2], "TestC: skipped itself")
}
