package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/informerlab/informerlab/labs/grade"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var usage *usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, err)
		fmt.Fprintln(os.Stderr, "run 'go run ./cmd/labs --help' for usage")
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return "labs: " + e.msg }

const usageText = `Usage: go run ./cmd/labs [flags] [lab ...]

Grades the labs in labs/ and shows the progress over all of them as a
table: how many behaviours of each lab pass, how many fail, and how many
are not started (still panicking with "not implemented"). Name one or more
labs (e.g. 2-workqueue, or just 2) to see, for each behaviour that does not
pass, what is expected and which section of docs/ explains it. Stuck?
'--hint K' with one lab shows its K-th hint, one at a time.

Run it from anywhere inside the informerlab repository. It runs
'go test -json' on the labs, so the first run compiles them.

Flags:
`

// options are the parsed flags.
type options struct {
	reference      bool
	checkSkeletons bool
	race           bool
	log            bool
	hint           int
	labs           []string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("labs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.reference, "reference", false,
		"grade informerlab's own implementation instead of yours (build tag labs_reference);\nfails unless every lab scores 100%")
	fs.BoolVar(&o.checkSkeletons, "check-skeletons", false,
		"check that every lab, untouched, compiles and scores 0 with every behaviour not started;\nfails otherwise (CI runs this on the skeletons)")
	fs.BoolVar(&o.race, "race", false, "grade with the race detector on (slower; the concurrency behaviours need it to be proven)")
	fs.BoolVar(&o.log, "log", false, "show the components' INFO log lines while grading (hidden otherwise)")
	fs.IntVar(&o.hint, "hint", 0, "show hint `k` of the one lab named, instead of grading (the lab's hints/ holds them as files)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	// Flags may come after the labs too: go run ./cmd/labs 2 --hint 1.
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return o, err
			}
			return o, &usageError{msg: err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		o.labs = append(o.labs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if o.reference && o.checkSkeletons {
		return o, &usageError{msg: "--reference and --check-skeletons grade different code; pass one"}
	}
	if o.hint != 0 && len(o.labs) != 1 {
		return o, &usageError{msg: "--hint shows a hint of one lab: name it, e.g. go run ./cmd/labs 2 --hint 1"}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	root, err := grade.RepoRoot()
	if err != nil {
		return fmt.Errorf("labs: %w", err)
	}
	all, err := findLabs(root)
	if err != nil {
		return err
	}
	labs, err := selectLabs(all, o.labs)
	if err != nil {
		return err
	}
	if o.hint != 0 {
		return writeHint(stdout, root, labs[0], o.hint)
	}
	grades, err := gradeLabs(ctx, root, labs, o)
	if err != nil {
		return err
	}
	// The table, the score, comes last: details and problems scroll away
	// above it.
	if len(o.labs) > 0 {
		for _, g := range grades {
			writeDetails(stdout, g)
		}
	}
	writeProblems(stdout, grades)
	switch {
	case o.reference:
		writeTable(stdout, grades)
		return requireAll(grades, "informerlab's implementation", func(g labGrade) bool {
			return g.problem == "" && g.total > 0 && g.passed == g.total
		})
	case o.checkSkeletons:
		writeTable(stdout, grades)
		return requireAll(grades, "untouched skeleton", func(g labGrade) bool {
			return g.problem == "" && g.total > 0 && g.passed == 0 && g.notStarted == g.total
		})
	}
	writeNext(stdout, grades, len(o.labs) == 0)
	writeTable(stdout, grades)
	return nil
}

// requireAll fails, naming the labs, if ok is false for any grade.
func requireAll(grades []labGrade, what string, ok func(labGrade) bool) error {
	var bad []string
	for _, g := range grades {
		if !ok(g) {
			bad = append(bad, g.lab)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("labs: %s: unexpected score in %v", what, bad)
	}
	return nil
}
