package main

import (
	"bytes"
	"flag"
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
)

// suite is one client-go package whose tests run against a shim package.
type suite struct {
	Name   string   // client-go's package path under k8s.io/client-go
	Shim   string   // the shim package's directory, relative to this module
	Queues []string // the informer queues to run it on (nil: once)
}

var suites = []suite{
	{Name: "tools/cache", Shim: "cache", Queues: []string{"deltafifo", "realfifo", "atomic"}},
	{Name: "util/workqueue", Shim: "workqueue"},
}

// queueEnv is the environment variable the cache shim reads to choose the
// informers' queue.
const queueEnv = "INFORMERLAB_CLIENTGO_QUEUE"

func main() {
	explain := flag.Bool("explain", false, "compile only, and print each declaration that does not compile with its first errors")
	only := flag.String("suite", "", "run only this suite (tools/cache or util/workqueue)")
	queues := flag.String("queues", "", "comma-separated informer queues for tools/cache (default: deltafifo,realfifo,atomic)")
	verbose := flag.Bool("v", false, "print go test's output of every failed test, expected or not")
	flag.Parse()
	if err := run(os.Stdout, *explain, *only, *queues, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer, explain bool, only, queues string, verbose bool) error {
	start := time.Now()
	moduleDir, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(moduleDir, "expectations.go")); err != nil {
		return fmt.Errorf("clientgotests: run me from e2e/clientgotests (go run .)")
	}
	clientgoDir, version, err := clientgoSource()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client-go %s's own tests against informerlab, from %s\n", version, clientgoDir)

	var problems []string
	for _, s := range suites {
		if only != "" && only != s.Name {
			continue
		}
		tmp, err := os.MkdirTemp("", "clientgotests-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		shimDir := filepath.Join(moduleDir, s.Shim)
		rewrite := map[string]string{"k8s.io/client-go/" + s.Name: "github.com/informerlab/informerlab/e2e/clientgotests/" + s.Shim}
		files, err := prepareSuite(filepath.Join(clientgoDir, s.Name), list.drops(s.Name), rewrite)
		if err != nil {
			return err
		}
		declNames := map[string]bool{}
		for _, f := range files {
			testsOf[s.Name+"/"+f.Name] = f.Tests
			for _, d := range f.Decls {
				declNames[f.Name+":"+d] = true
			}
		}
		problems = append(problems, list.check(s.Name, files, declNames)...)
		overlay, err := writeOverlay(tmp, shimDir, files)
		if err != nil {
			return err
		}
		if explain {
			explainBuild(w, s, overlay, tmp, files)
			continue
		}
		qs := s.Queues
		if queues != "" && qs != nil {
			qs = strings.Split(queues, ",")
		}
		if qs == nil {
			qs = []string{""}
		}
		var first []fileRow
		for i, q := range qs {
			t0 := time.Now()
			res, err := goTest(s, overlay, q, "")
			if err != nil {
				return err
			}
			notes, err := list.retryWallClock(s.Name, &res, func(test string) (runResult, error) {
				return goTest(s, overlay, q, "^"+test+"$")
			})
			if err != nil {
				return err
			}
			rows, probs := verdict(s.Name, files, res, list, q)
			problems = append(problems, probs...)
			title := fmt.Sprintf("k8s.io/client-go/%s (%s)", s.Name, time.Since(t0).Round(time.Second))
			if q != "" {
				title = fmt.Sprintf("k8s.io/client-go/%s, informer queue %s (%s)", s.Name, q, time.Since(t0).Round(time.Second))
			}
			if i == 0 {
				first = rows
				printTable(w, title, rows)
			} else if same(first, rows) {
				fmt.Fprintf(w, "\n%s: the same table\n", title)
			} else {
				printTable(w, title, rows)
			}
			for _, n := range notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
			if verbose {
				printFailures(w, res)
			}
		}
	}
	printExclusions(w, only)
	fmt.Fprintf(w, "\ntook %s\n", time.Since(start).Round(time.Second))
	if len(problems) > 0 {
		fmt.Fprintf(w, "\n%d problem(s):\n", len(problems))
		for _, p := range problems {
			fmt.Fprintf(w, "- %s\n", p)
		}
		return fmt.Errorf("clientgotests: FAIL")
	}
	fmt.Fprintln(w, "\nok: every failure is in the list")
	return nil
}

func same(a, b []fileRow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// goTest runs the shim package's tests, client-go's files laid over it,
// with the race detector: those run selects, or all when it is "".
func goTest(s suite, overlay, queue, run string) (runResult, error) {
	args := []string{"test", "-race", "-count=1", "-json", "-timeout=5m", "-overlay", overlay}
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := exec.Command("go", append(args, "./"+s.Shim)...)
	cmd.Env = append(os.Environ(), queueEnv+"="+queue)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res, perr := parseEvents(&stdout)
	if perr != nil {
		return res, perr
	}
	if err != nil && stderr.Len() > 0 {
		res.PackageFail = true
		res.PackageOut = append(res.PackageOut, strings.Split(strings.TrimSpace(stderr.String()), "\n")...)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return res, err
	}
	return res, nil
}

func printFailures(w io.Writer, res runResult) {
	var names []string
	for t, o := range res.Outcome {
		if o == "fail" {
			names = append(names, t)
		}
	}
	sort.Strings(names)
	for _, t := range names {
		fmt.Fprintf(w, "\n--- %s\n%s\n", t, indent(res.Output[t]))
	}
}

// printExclusions counts the list by kind.
func printExclusions(w io.Writer, only string) {
	counts := map[string]map[kind]int{}
	for _, x := range list {
		if only != "" && x.Suite != only {
			continue
		}
		if counts[x.Suite] == nil {
			counts[x.Suite] = map[kind]int{}
		}
		n := 1
		if x.Name == "" {
			n = len(testsOf[x.Suite+"/"+x.File])
		} else if !isRun(x.Name) {
			n = 0
		}
		counts[x.Suite][x.Kind] += n
	}
	fmt.Fprintf(w, "\nthe list (expectations.go), tests by reason:\n")
	for _, s := range suites {
		if counts[s.Name] == nil {
			continue
		}
		fmt.Fprintf(w, "  %s:", s.Name)
		for k := private; k <= wallClock; k++ {
			fmt.Fprintf(w, " %s %d;", k, counts[s.Name][k])
		}
		fmt.Fprintln(w)
	}
}

var compileError = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: (.*)$`)

// explainBuild compiles the test binary and prints, per declaration, the
// compile errors inside it: what to list (or to add to the shim).
func explainBuild(w io.Writer, s suite, overlay, tmp string, files []testFile) {
	cmd := exec.Command("go", "test", "-count=1", "-run", "^$", "-gcflags=-e", "-overlay", overlay, "./"+s.Shim)
	out, _ := cmd.CombinedOutput()
	byDecl := map[string][]string{}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		m := compileError.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key := m[1]
		n, _ := strconv.Atoi(m[2])
		if filepath.Dir(m[1]) == tmp {
			base := filepath.Base(m[1])
			key = base + ": ?"
			for _, f := range files {
				if f.Name != base {
					continue
				}
				for _, d := range f.DeclLine {
					if n >= d.First && n <= d.Last {
						key = base + ": " + d.Name
					}
				}
			}
		}
		if _, ok := byDecl[key]; !ok {
			order = append(order, key)
		}
		byDecl[key] = append(byDecl[key], m[3])
	}
	fmt.Fprintf(w, "\n%s: %d declaration(s) do not compile\n", s.Name, len(order))
	for _, k := range order {
		msgs := byDecl[k]
		if len(msgs) > 3 {
			msgs = append(msgs[:3:3], fmt.Sprintf("(+%d)", len(byDecl[k])-3))
		}
		fmt.Fprintf(w, "  %s\n      %s\n", k, strings.Join(msgs, "\n      "))
	}
	if len(order) == 0 && cmd.ProcessState != nil && !cmd.ProcessState.Success() {
		fmt.Fprintf(w, "%s\n", out)
	}
}

// clientgoSource returns client-go's directory in the module cache and its
// version, downloading it first if the cache does not hold it yet.
func clientgoSource() (dir, version string, err error) {
	for range 2 {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "k8s.io/client-go").Output()
		if err != nil {
			return "", "", fmt.Errorf("clientgotests: locating client-go in the module cache: %w", err)
		}
		dir, version, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
		if dir != "" {
			return dir, version, nil
		}
		if err := exec.Command("go", "mod", "download", "k8s.io/client-go").Run(); err != nil {
			return "", "", fmt.Errorf("clientgotests: downloading client-go: %w", err)
		}
	}
	return "", "", fmt.Errorf("clientgotests: client-go is not in the module cache after go mod download")
}
