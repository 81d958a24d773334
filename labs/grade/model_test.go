package grade_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/labs/grade"
)

// counter is a tiny state machine: Inc adds one; the wrong one forgets
// the third Inc in a row without a Reset.
type counter struct {
	n, run int
	wrong  bool
}

func counterModel(wrong bool) grade.Model[*counter] {
	return grade.Model[*counter]{
		What:      "counter",
		New:       func() *counter { return &counter{wrong: wrong} },
		Reference: func() *counter { return &counter{} },
		Seed:      7,
		Gen: func(r *rand.Rand) grade.Op[*counter] {
			if r.IntN(4) == 0 {
				return grade.Op[*counter]{Call: "c.Reset()", Run: func(c *counter) string {
					c.n, c.run = 0, 0
					return "n=0"
				}}
			}
			return grade.Op[*counter]{Call: "c.Inc()", Run: func(c *counter) string {
				c.run++
				if !(c.wrong && c.run == 3) {
					c.n++
				}
				return fmt.Sprintf("n=%d", c.n)
			}}
		},
	}
}

// TestHelperModel is the child process of the model tests.
func TestHelperModel(t *testing.T) {
	switch os.Getenv("GRADE_MODEL") {
	case "wrong":
		counterModel(true).Check(t)
	case "right":
		counterModel(false).Check(t)
	default:
		t.Skip("run by the tests below in a child process")
	}
}

func runModel(t *testing.T, which string, env ...string) (string, error) {
	t.Helper()
	return runHelper(t, "TestHelperModel", append(env, "GRADE_MODEL="+which)...)
}

func TestModelShrinksADifferenceToItsShortestSequenceWithItsSeed(t *testing.T) {
	out, err := runModel(t, "right")
	require.NoError(t, err, out)

	out, err = runModel(t, "wrong")
	require.Error(t, err, out)
	assert.Contains(t, out, "your counter and informerlab's part after 3 steps", out)
	assert.Contains(t, out, "1. c.Inc()")
	assert.Contains(t, out, "3. c.Inc()\n")
	assert.NotContains(t, out, "c.Reset()", "shrinking drops the steps that do not matter")
	assert.Contains(t, out, "yours:         n=2")
	assert.Contains(t, out, "informerlab's: n=3")
	seed := out[strings.Index(out, "(seed ")+len("(seed "):]
	seed = seed[:strings.Index(seed, ",")]
	assert.Contains(t, out, "replay: "+grade.ModelSeedEnv+"="+seed+" go test ./labs/grade -run 'TestHelperModel/")

	replay, err := runModel(t, "wrong", grade.ModelSeedEnv+"="+seed)
	require.Error(t, err)
	assert.Contains(t, replay, "(seed "+seed+", shrunk)", "the seed replays the same difference")
}
