package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// UsageError is a bad command line: a flag that does not parse, a value out
// of range, two flags that exclude each other. Its message names the
// program and points at --help.
type UsageError struct {
	Program string
	Msg     string
}

func (e *UsageError) Error() string {
	return e.Program + ": " + e.Msg + " (run " + e.Program + " --help for usage)"
}

// Usagef returns a *UsageError of program with a formatted message.
func Usagef(program, format string, a ...any) error {
	return &UsageError{Program: program, Msg: fmt.Sprintf(format, a...)}
}

// ExitStatus writes err to stderr, if there is one, and returns the exit
// status it means: 0 for nil, 2 for a *UsageError, 1 otherwise.
func ExitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, err)
	if errors.As(err, new(*UsageError)) {
		return 2
	}
	return 1
}

// Main runs run with the program's arguments and standard output and error,
// under a context that SIGINT or SIGTERM cancels, then exits with
// ExitStatus of what it returned.
func Main(run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitStatus(err, os.Stderr))
}
