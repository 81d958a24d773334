package shardselector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/sharding"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
)

// TestParseAcceptsWhatTheServerAccepts: the ranges come out in the order
// written, and String is the canonical form the server echoes back.
// kube-apiserver: k8s.io/apiserver/pkg/sharding.Parse.
func TestParseAcceptsWhatTheServerAccepts(t *testing.T) {
	for _, tc := range []struct {
		in, canonical string
		reqs          []sharding.ShardRangeRequirement
	}{
		{in: lowHalf, canonical: lowHalf, reqs: []sharding.ShardRangeRequirement{{Key: "object.metadata.uid", Start: "0x0000000000000000", End: "0x8000000000000000"}}},
		{in: lowHalf + " || " + highHalf, canonical: lowHalf + " || " + highHalf, reqs: []sharding.ShardRangeRequirement{
			{Key: "object.metadata.uid", Start: "0x0000000000000000", End: "0x8000000000000000"},
			{Key: "object.metadata.uid", Start: "0x8000000000000000", End: "0x10000000000000000"}}},
		{in: "  ( shardRange( object.metadata.uid ,\"0x0000000000000000\",r'0x8000000000000000' ) ) // a comment", canonical: lowHalf},
		{in: "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')",
			canonical: "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')"},
		{in: "shardRange(object.metadata.uid, '\\x30x0000000000000000', '0x8000000000000000')", canonical: lowHalf},
	} {
		t.Run(tc.in, func(t *testing.T) {
			sel, err := Parse(tc.in)

			require.NoError(t, err)
			assert.Equal(t, tc.canonical, sel.String())
			if tc.reqs != nil {
				assert.Equal(t, tc.reqs, sel.Requirements())
			}
		})
	}
}

// TestParseRefusesInTheServersWords: each refusal the real server makes, with
// its message (measured on kube-apiserver v1.37.2 with ShardedListAndWatch on).
// kube-apiserver: k8s.io/apiserver/pkg/sharding.Parse.
func TestParseRefusesInTheServersWords(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"  ", "empty shard selector is not allowed; omit the parameter for unfiltered lists"},
		{"shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", `hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`},
		{"shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", `unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace`},
		{"shardRange(object.metadata.uid, '0x0000000000000000'", `CEL parse error: Syntax error: missing ')' at '<EOF>'`},
		{lowHalf + " && true", `unsupported function "_&&_"; only shardRange() and || are allowed`},
		{"shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')", "shard range start 0x8000000000000000 must be less than end 0x0000000000000000"},
		{lowHalf + " || shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')", `all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"`},
		{"foo(1)", `unsupported function "foo"; only shardRange() and || are allowed`},
		{"shardRange(object.metadata.uid, 0, 8)", "hexStart must be a string literal, got int64"},
		{"shardRange(object.metadata.uid, '0x0000000000000000')", "shardRange() requires exactly 3 arguments, got 2"},
		{"shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')", `hexStart must have '0x' prefix, got "0000000000000000"`},
		{"shardRange(object.metadata.uid, '0x', '0x8000000000000000')", "hexStart: hex value is required after '0x'"},
		{"shardRange(object.metadata.uid, '0x0000000000000000', '0x800000000000000000')", `hexEnd: hex value too long (18 chars, max 17): "800000000000000000"`},
		{"shardRange(object.metadata.uid, '0x000000000000000G', '0x8000000000000000')", `hexStart: invalid hex character "G" in "0x000000000000000G"`},
		{"shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')", `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x20000000000000000"`},
		{"object.metadata.uid > '0x0'", `unsupported function "_>_"; only shardRange() and || are allowed`},
		{"object.metadata.uid", "unexpected expression kind 7; expected shardRange() call or || operator"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)

			require.Error(t, err)
			assert.Equal(t, tc.msg, err.Error())
		})
	}
}

// FuzzParse: no input panics or hangs, and whatever is accepted prints to a
// form that parses back to the same ranges.
func FuzzParse(f *testing.F) {
	for _, s := range []string{lowHalf, lowHalf + " || " + highHalf, "((", "!!!x", "'\\u00e9'", "shardRange(a.b, [1,2], x[0])", "1.5e3u"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(sel.String())
		require.NoError(t, err)
		assert.Equal(t, sel.Requirements(), again.Requirements())
	})
}
