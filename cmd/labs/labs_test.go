package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/labs/grade"
)

const sampleJSON = `{"Action":"start","Package":"github.com/informerlab/informerlab/labs/1-indexer"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"grade: start AddThenGetByKey\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"grade: start ReplaceIsAllOrNothing\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"grade: report lab=1-indexer\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"✗ ReplaceIsAllOrNothing\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"    suite.go:301: shop/a was added\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"  ✗ ReplaceIsAllOrNothing — want: nothing changes (see docs/indexer.md#x)\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"  · SafeForConcurrentUse — not started; want: no race (see docs/indexer.md#y)\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"grade: lab=1-indexer passed=14 total=16 notstarted=1\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"1-indexer: 14 of 16 behaviours pass (1 not started)\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Test":"TestGrade","Output":"--- FAIL: TestGrade (0.01s)\n"}
{"Action":"fail","Package":"github.com/informerlab/informerlab/labs/1-indexer"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/2-workqueue","Test":"TestGrade","Output":"grade: start GetHandsOutItemsInOrder\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/2-workqueue","Test":"TestGrade","Output":"panic: runtime error: invalid memory address\n"}
{"Action":"fail","Package":"github.com/informerlab/informerlab/labs/2-workqueue"}
{"ImportPath":"github.com/informerlab/informerlab/labs/3-ratelimiters [github.com/informerlab/informerlab/labs/3-ratelimiters.test]","Action":"build-output","Output":"labs/3-ratelimiters/limiters.go:9:2: syntax error\n"}
{"Action":"fail","Package":"github.com/informerlab/informerlab/labs/3-ratelimiters"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/4-deltafifo","Test":"TestGrade","Output":"grade: start PopHandsOutDeltas\n"}
{"Action":"output","Package":"github.com/informerlab/informerlab/labs/4-deltafifo","Test":"TestGrade","Output":"panic: test timed out after 10m0s\n"}
{"Action":"fail","Package":"github.com/informerlab/informerlab/labs/4-deltafifo"}
`

func TestParseReadsScoreReportAndMissingScores(t *testing.T) {
	grades, err := parseTestJSON(strings.NewReader(sampleJSON), []string{"1-indexer", "2-workqueue", "3-ratelimiters", "4-deltafifo"})
	require.NoError(t, err)
	require.Len(t, grades, 4)
	g := grades[0]
	assert.Equal(t, [3]int{14, 16, 1}, [3]int{g.passed, g.total, g.notStarted})
	assert.Equal(t, []string{
		"✗ ReplaceIsAllOrNothing",
		"    suite.go:301: shop/a was added",
		"  ✗ ReplaceIsAllOrNothing — want: nothing changes (see docs/indexer.md#x)",
		"  · SafeForConcurrentUse — not started; want: no race (see docs/indexer.md#y)",
		"1-indexer: 14 of 16 behaviours pass (1 not started)",
	}, g.report, "the report, its score last")
	assert.Equal(t, "in progress", g.status())
	assert.Equal(t, "no score", grades[1].status(), "a lab that died while grading")
	assert.Contains(t, grades[1].problem, "the test died in behaviour GetHandsOutItemsInOrder")
	assert.Contains(t, grades[1].output, "panic: runtime error: invalid memory address")
	assert.Equal(t, "no score", grades[2].status(), "a lab that did not build")
	assert.Contains(t, grades[2].problem, "did not build")
	assert.Contains(t, grades[2].output, "labs/3-ratelimiters/limiters.go:9:2: syntax error")
	assert.Contains(t, grades[3].problem, "timed out in behaviour PopHandsOutDeltas")
}

func TestParseRejectsAMalformedScoreLine(t *testing.T) {
	in := `{"Action":"output","Package":"github.com/informerlab/informerlab/labs/1-indexer","Output":"grade: lab=1-indexer passed=x total=16 notstarted=1\n"}`
	_, err := parseTestJSON(strings.NewReader(in), []string{"1-indexer"})
	assert.ErrorContains(t, err, "malformed score line")
}

func TestTableShowsEveryLabAndTheTotal(t *testing.T) {
	var out bytes.Buffer
	writeTable(&out, []labGrade{
		{lab: "1-indexer", passed: 16, total: 16},
		{lab: "2-workqueue", passed: 10, total: 15},
		{lab: "3-ratelimiters", total: 12, notStarted: 12},
		{lab: "4-deltafifo", problem: "no score", output: []string{"./x.go:3: syntax error"}},
	})
	writeProblems(&out, []labGrade{{lab: "4-deltafifo", problem: "no score", output: []string{"./x.go:3: syntax error"}}})
	s := out.String()
	assert.Regexp(t, `1-indexer +16 +0 +0 +16 +\[##########\] +done ✓`, s)
	assert.Regexp(t, `2-workqueue +10 +5 +0 +15 +\[######\.\.\.\.\] +in progress`, s)
	assert.Regexp(t, `3-ratelimiters +0 +0 +12 +12 +\[\.{10}\] +not started`, s)
	assert.Regexp(t, `4-deltafifo +- +- +- +-`, s)
	assert.Regexp(t, `all +26 +43`, s)
	assert.Contains(t, s, "  ./x.go:3: syntax error", "a lab without a score shows why")
}

func TestLabsAreNamedByNameOrNumber(t *testing.T) {
	all := []string{"1-indexer", "2-workqueue", "10-extra"}
	got, err := selectLabs(all, []string{"2", "1-indexer", "10"})
	require.NoError(t, err)
	assert.Equal(t, []string{"2-workqueue", "1-indexer", "10-extra"}, got)
	_, err = selectLabs(all, []string{"7"})
	var usage *usageError
	require.ErrorAs(t, err, &usage)
	assert.Contains(t, err.Error(), `no lab "7"; the labs are 1-indexer, 2-workqueue, 10-extra`)
}

func TestFlagsThatContradictAreRefused(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"--reference", "--check-skeletons"}, &bytes.Buffer{}, &stderr)
	var usage *usageError
	require.ErrorAs(t, err, &usage)
	err = run(context.Background(), []string{"--help"}, &bytes.Buffer{}, &stderr)
	assert.True(t, errors.Is(err, flag.ErrHelp))
	assert.Contains(t, stderr.String(), "-check-skeletons")
	assert.Contains(t, stderr.String(), "Grades the labs in labs/")
}

// TestGradesTheRealLab runs the command on lab 1, as a learner would:
// the untouched skeleton scores zero, informerlab's indexer scores full.
func TestGradesTheRealLab(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a lab")
	}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--check-skeletons", "1"}, &out, &bytes.Buffer{}))
	assert.Regexp(t, `1-indexer +0 +0 +(\d+) +(\d+) +\[\.{10}\] +not started`, out.String())
	out.Reset()
	require.NoError(t, run(context.Background(), []string{"--reference", "1"}, &out, &bytes.Buffer{}))
	assert.Regexp(t, `1-indexer +(\d+) +0 +0 +\d+ +\[#{10}\] +done ✓`, out.String())
	err := run(context.Background(), []string{"--reference", "1"}, &out, &bytes.Buffer{})
	require.NoError(t, err)
	err = run(context.Background(), []string{"--check-skeletons", "--race", "1"}, &out, &bytes.Buffer{})
	require.NoError(t, err)
}

func TestNextPointsAtTheFirstLabNotDone(t *testing.T) {
	var out bytes.Buffer
	writeNext(&out, []labGrade{{lab: "1-indexer", passed: 16, total: 16}, {lab: "2-workqueue", passed: 3, total: 15}}, true)
	assert.Contains(t, out.String(), "Next: labs/2-workqueue (README.md there). Details: go run ./cmd/labs 2-workqueue")
	out.Reset()
	writeNext(&out, []labGrade{{lab: "1-indexer", passed: 16, total: 16}}, false)
	assert.Contains(t, out.String(), "Done.", "one lab done is not every lab done")
	assert.NotContains(t, out.String(), "Every lab passes")
	out.Reset()
	writeNext(&out, []labGrade{{lab: "1-indexer", passed: 16, total: 16}}, true)
	assert.Contains(t, out.String(), "Every lab passes")
}

func TestHintsOpenOneAtATime(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"2", "--hint", "1"}, &out, &bytes.Buffer{}))
	s := out.String()
	assert.True(t, strings.HasPrefix(s, "2-workqueue, hint 1 of "), s)
	assert.Contains(t, s, "three collections")
	assert.Contains(t, s, "go run ./cmd/labs 2-workqueue --hint 2")
	assert.NotContains(t, s, "Hint 2", "the next hint stays folded")
	assert.NotContains(t, s, "<details>")

	err := run(context.Background(), []string{"--hint", "1"}, &bytes.Buffer{}, &bytes.Buffer{})
	var usage *usageError
	require.ErrorAs(t, err, &usage, "a hint needs one lab")
	err = run(context.Background(), []string{"2", "--hint", "99"}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorAs(t, err, &usage)
	assert.Contains(t, err.Error(), "lab 2-workqueue has hints 1 to")
}

func TestEveryLabHasHintsAndNoREADMEShowsThem(t *testing.T) {
	root, err := grade.RepoRoot()
	require.NoError(t, err)
	labs, err := findLabs(root)
	require.NoError(t, err)
	for _, lab := range labs {
		hints, err := readHints(root, lab)
		require.NoError(t, err)
		assert.NotEmpty(t, hints, "%s: no hints/1.md", lab)
		for i, h := range hints {
			assert.NotEmpty(t, h.title, "%s hint %d", lab, i+1)
			assert.NotEmpty(t, h.text, "%s hint %d", lab, i+1)
		}
		readme, err := os.ReadFile(filepath.Join(root, "labs", lab, "README.md"))
		require.NoError(t, err)
		assert.NotContains(t, string(readme), "<details>", "%s: a hint left in the README is read before it is wanted", lab)
		assert.Contains(t, string(readme), "--hint 1", "%s: the README says how to open a hint", lab)
	}
}
