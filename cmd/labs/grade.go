package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/informerlab/informerlab/labs/grade"
)

// labGrade is what grading one lab found.
type labGrade struct {
	lab                       string
	passed, total, notStarted int
	// report is the grader's report, as the lab's TestGrade printed it.
	report []string
	// problem, if set, is why there is no score: the lab did not build,
	// or its test binary died before printing one.
	problem string
	// output is the lab's raw test output, shown with a problem.
	output []string
	// running is the behaviour that started last: the one that was
	// running if the test binary died.
	running string
}

// labDir matches a lab's directory name: its number, a dash, its name.
var labDir = regexp.MustCompile(`^([0-9]+)-[a-z0-9-]+$`)

// findLabs returns the labs under root/labs, in number order.
func findLabs(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "labs"))
	if err != nil {
		return nil, fmt.Errorf("labs: %w", err)
	}
	var labs []string
	for _, e := range entries {
		if e.IsDir() && labDir.MatchString(e.Name()) {
			labs = append(labs, e.Name())
		}
	}
	sort.Slice(labs, func(i, j int) bool { return labNumber(labs[i]) < labNumber(labs[j]) })
	if len(labs) == 0 {
		return nil, errors.New("labs: no labs found in " + filepath.Join(root, "labs"))
	}
	return labs, nil
}

func labNumber(lab string) int {
	n, _ := strconv.Atoi(labDir.FindStringSubmatch(lab)[1])
	return n
}

// selectLabs picks the labs named on the command line, by full name or
// number; none named means all.
func selectLabs(all, names []string) ([]string, error) {
	if len(names) == 0 {
		return all, nil
	}
	var picked []string
	for _, name := range names {
		found := ""
		for _, lab := range all {
			if lab == name || strings.SplitN(lab, "-", 2)[0] == name {
				found = lab
			}
		}
		if found == "" {
			return nil, &usageError{msg: fmt.Sprintf("no lab %q; the labs are %s", name, strings.Join(all, ", "))}
		}
		picked = append(picked, found)
	}
	return picked, nil
}

// testTimeout bounds one lab's test binary. The grader's watchdog fails a
// behaviour that hangs long before, so only a binary that dies some other
// way, or a lab with many hanging behaviours, reaches it.
const testTimeout = 10 * time.Minute

// gradeLabs runs every lab's grader in one go test invocation.
func gradeLabs(ctx context.Context, root string, labs []string, o options) ([]labGrade, error) {
	args := []string{"test", "-count=1", "-json", "-timeout=" + testTimeout.String()}
	if o.reference {
		args = append(args, "-tags", "labs_reference")
	}
	if o.race {
		args = append(args, "-race")
	}
	for _, lab := range labs {
		args = append(args, "./labs/"+lab+"/")
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	// Ask the grader to name each behaviour as it starts, so a test
	// binary that dies can be said to have died in one.
	cmd.Env = append(os.Environ(), "INFORMERLAB_GRADE_PROGRESS=1")
	if o.log {
		cmd.Env = append(cmd.Env, "INFORMERLAB_GRADE_LOG=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("labs: go test: %w", err)
	}
	grades, perr := parseTestJSON(bytes.NewReader(out), labs)
	if perr != nil {
		return nil, perr
	}
	// A lab that does not compile shows up on stderr, not in the JSON.
	build := strings.TrimSpace(stderr.String())
	for i := range grades {
		if grades[i].problem != "" && build != "" {
			grades[i].output = append(grades[i].output, strings.Split(build, "\n")...)
		}
	}
	return grades, nil
}

// testEvent is the part of a go test -json event the tool reads.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
	// ImportPath names the package of a build-output event (a compile
	// error), e.g. "example.com/x [example.com/x.test]".
	ImportPath string
}

// parseTestJSON reads go test -json output and returns one grade per lab,
// in the order of labs.
func parseTestJSON(r io.Reader, labs []string) ([]labGrade, error) {
	byPkg := map[string]*labGrade{}
	grades := make([]labGrade, len(labs))
	for i, lab := range labs {
		grades[i] = labGrade{lab: lab}
		byPkg["github.com/informerlab/informerlab/labs/"+lab] = &grades[i]
	}
	inReport := map[*labGrade]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev testEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue // a line that is not an event: build output
		}
		if ev.Action == "build-output" {
			pkg, _, _ := strings.Cut(ev.ImportPath, " ")
			if g := byPkg[pkg]; g != nil {
				g.output = append(g.output, strings.TrimRight(ev.Output, "\n"))
			}
			continue
		}
		g := byPkg[ev.Package]
		if g == nil || ev.Action != "output" {
			continue
		}
		line := strings.TrimRight(ev.Output, "\n")
		g.output = append(g.output, line)
		switch {
		case strings.HasPrefix(line, grade.StartLinePrefix):
			g.running = strings.TrimPrefix(line, grade.StartLinePrefix)
		case strings.HasPrefix(line, grade.ReportLinePrefix):
			inReport[g] = true
		case strings.HasPrefix(line, grade.ScoreLinePrefix+"lab="):
			if err := parseScoreLine(line, g); err != nil {
				return nil, err
			}
		case inReport[g]:
			g.report = append(g.report, line)
			if strings.HasPrefix(line, g.lab+":") {
				inReport[g] = false // the score in words ends the report
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("labs: reading go test output: %w", err)
	}
	for i := range grades {
		g := &grades[i]
		if g.total > 0 || g.problem != "" {
			continue
		}
		switch {
		case g.running != "" && timedOut(g.output):
			g.problem = fmt.Sprintf("no score: the test timed out in behaviour %s (see below)", g.running)
		case g.running != "":
			g.problem = fmt.Sprintf("no score: the test died in behaviour %s (see below)", g.running)
		default:
			g.problem = "no score: the lab did not build, or its test died before grading (see below)"
		}
	}
	return grades, nil
}

// timedOut reports whether output shows go test's -timeout ending the
// test binary.
func timedOut(output []string) bool {
	for _, line := range output {
		if strings.HasPrefix(line, "panic: test timed out after ") {
			return true
		}
	}
	return false
}

// parseScoreLine reads "grade: lab=X passed=N total=M notstarted=K".
func parseScoreLine(line string, g *labGrade) error {
	fields := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(line, grade.ScoreLinePrefix)) {
		k, v, ok := strings.Cut(f, "=")
		if ok {
			fields[k] = v
		}
	}
	var err error
	num := func(k string) int {
		n, e := strconv.Atoi(fields[k])
		if e != nil && err == nil {
			err = fmt.Errorf("labs: malformed score line %q", line)
		}
		return n
	}
	g.passed, g.total, g.notStarted = num("passed"), num("total"), num("notstarted")
	return err
}
