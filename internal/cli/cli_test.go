package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/internal/cli"
)

// TestAWrappedUsageErrorStillExitsTwo: a command may wrap the usage error
// of a helper; the status follows the error, not its outermost type.
// Diagram: none (the commands around it). client-go: none.
func TestAWrappedUsageErrorStillExitsTwo(t *testing.T) {
	var out strings.Builder
	err := fmt.Errorf("while reading flags: %w", cli.Usagef("samplecontroller", "unexpected argument %q", "x"))
	assert.Equal(t, 2, cli.ExitStatus(err, &out))
	assert.Equal(t, "while reading flags: samplecontroller: unexpected argument \"x\" (run samplecontroller --help for usage)\n", out.String())
}
