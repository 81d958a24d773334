package grade

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// capture collects what the behaviours print, so the grader can show each
// failed behaviour's first lines in its report instead of letting the
// testing package print every line of every failure after the score.
//
// Each behaviour runs as a top-level test of its own (testing.RunTests),
// and the testing package writes a top-level test's output to os.Stdout as
// it was when the run began. So, while grading, os.Stdout is the write end
// of a pipe; one goroutine reads the pipe, and the grader cuts what it read
// into one chunk per behaviour by writing a sentinel line after each.
type capture struct {
	// stdout is the real standard output, where the report goes.
	stdout *os.File
	// w is the pipe's write end: os.Stdout while grading.
	w *os.File
	// chunks receives the lines read up to each sentinel.
	chunks chan []string
}

// sentinel ends a behaviour's chunk. It starts with a NUL, which nothing
// a test prints does.
const sentinel = "\x00grade: end of behaviour\n"

func startCapture() (*capture, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &capture{stdout: os.Stdout, w: w, chunks: make(chan []string)}
	os.Stdout = w
	go c.read(r)
	return c, nil
}

// read runs until the write end is closed.
func (c *capture) read(r *os.File) {
	defer r.Close()
	br := bufio.NewReader(r)
	var lines []string
	for {
		line, err := br.ReadString('\n')
		if before, ok := strings.CutSuffix(line, sentinel); ok {
			if before != "" {
				lines = append(lines, before)
			}
			c.chunks <- lines
			lines = nil
			continue
		}
		if line != "" {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
		if err != nil {
			return
		}
	}
}

// take returns what was printed since the last take.
func (c *capture) take() []string {
	_, _ = c.w.WriteString(sentinel)
	return <-c.chunks
}

// stop puts the real standard output back. Call it only when no behaviour
// is still running: an abandoned one may print at any time.
func (c *capture) stop() {
	os.Stdout = c.stdout
	c.w.Close()
}

// framing matches the lines the testing package adds around a test's own
// output: === RUN, --- FAIL and the like, with test2json's marker byte
// when go test runs with -json.
var framing = regexp.MustCompile(`^\x16?\s*(=== (RUN|NAME|CONT|PAUSE)\b|--- (PASS|FAIL|SKIP): )`)

// tidy keeps the lines a behaviour's test logged, without the testing
// package's framing, and dedented.
func tidy(lines []string) []string {
	var kept []string
	for _, l := range lines {
		l = strings.TrimPrefix(l, "\x16")
		if framing.MatchString(l) || strings.TrimSpace(l) == "" {
			continue
		}
		kept = append(kept, l)
	}
	indent := -1
	for _, l := range kept {
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range kept {
		kept[i] = l[indent:]
	}
	return kept
}

// MaxOutputLines is how many lines of a failed behaviour's output the
// report shows; the rest is counted, not shown.
const MaxOutputLines = 12

// MaxLineLength is how many characters of one line of a failed
// behaviour's output the report shows; the rest is counted, not shown (an
// assertion that prints a whole cache can write a line of thousands).
const MaxLineLength = 300

// capLines keeps the first max lines, each cut to MaxLineLength
// characters, and says how much more there was.
func capLines(lines []string, max int) []string {
	out := make([]string, 0, min(len(lines), max)+1)
	for _, l := range lines[:min(len(lines), max)] {
		out = append(out, CapLine(l))
	}
	if len(lines) > max {
		out = append(out, "… and "+strconv.Itoa(len(lines)-max)+" more lines")
	}
	return out
}

// CapLine keeps the first MaxLineLength characters of l and says how many
// more there were.
func CapLine(l string) string {
	r := []rune(l)
	if len(r) <= MaxLineLength {
		return l
	}
	return string(r[:MaxLineLength]) + " … " + strconv.Itoa(len(r)-MaxLineLength) + " more characters"
}
