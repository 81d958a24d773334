package cli_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/informerlab/informerlab/internal/cli"
)

// A command's run returns nil, a *UsageError for a bad command line, or an
// ordinary error; ExitStatus prints the error and says the status.
func ExampleExitStatus() {
	for _, err := range []error{
		nil,
		cli.Usagef("fakeapi", "--history must be at least 1, got %d", 0),
		errors.New("fakeapi: listen tcp 127.0.0.1:8080: bind: address already in use"),
	} {
		fmt.Println("exit", cli.ExitStatus(err, os.Stdout))
	}
	// Output:
	// exit 0
	// fakeapi: --history must be at least 1, got 0 (run fakeapi --help for usage)
	// exit 2
	// fakeapi: listen tcp 127.0.0.1:8080: bind: address already in use
	// exit 1
}
