package shardselector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chain is shardRange(object.m.m.m..., ...) with n selections after object:
// the field path of an attacker who wants the parser to do the most work per
// byte.
func chain(n int) string {
	return "shardRange(object" + strings.Repeat(".m", n) + ", '0x0000000000000000', '0x8000000000000000')"
}

// TestParseWorkIsBoundedOnHugeFieldPaths: a field path of tens of thousands
// of selections costs the parser a bounded number of allocations, not one
// string per selection (nor their quadratic copying), and is refused in the
// server's words. The count of allocations is the measure: before the limits,
// a 99 KB chain cost over 100,000 of them and a 400 KB one 13 s of CPU.
// kube-apiserver: cel-go's parser, at most 250 nested selections and
// 100,000 code points.
func TestParseWorkIsBoundedOnHugeFieldPaths(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		msg       string
		maxAllocs float64
	}{
		{"250 selections: read, then refused as a field", chain(250), `unsupported field path "object` + strings.Repeat(".m", 250) + `"; supported: object.metadata.uid, object.metadata.namespace`, 1000},
		{"251 selections", chain(251), "CEL parse error: max recursion depth exceeded", 1000},
		{"99 KB of selections", chain(49_000), "CEL parse error: max recursion depth exceeded", 1000},
		{"400 KB of selections", chain(200_000), fmt.Sprintf("CEL parse error: expression code point size exceeds limit: size: %d, limit 100000", len(chain(200_000))), 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(1, func() { _, err = Parse(tc.in) })

			require.Error(t, err)
			assert.True(t, err.Error() == tc.msg, "got %.300s", err)
			assert.LessOrEqual(t, allocs, tc.maxAllocs, "allocations for %d bytes", len(tc.in))
		})
	}
}

// TestParseCountsCodePointsNotBytes: the size limit is 100,000 characters of
// the trimmed expression, however many bytes they take, as in CEL.
// kube-apiserver: cel-go's parser, expressionSizeCodePointLimit.
func TestParseCountsCodePointsNotBytes(t *testing.T) {
	comment := func(n int) string { // lowHalf, then a comment that brings it to n code points
		return "  " + lowHalf + " //" + strings.Repeat("é", n-len(lowHalf)-3) + "\n "
	}

	_, atLimit := Parse(comment(100_000))
	_, overLimit := Parse(comment(100_001))

	assert.NoError(t, atLimit, "100,000 code points (about 200 KB) are allowed")
	require.Error(t, overLimit)
	assert.Equal(t, "CEL parse error: expression code point size exceeds limit: size: 100001, limit 100000", overLimit.Error())
}
