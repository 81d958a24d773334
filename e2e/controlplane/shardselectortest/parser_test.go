package shardselectortest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiserversharding "k8s.io/apiserver/pkg/sharding"

	"github.com/informerlab/informerlab/internal/shardselector"
)

// expressions are valid and invalid shard selectors: the ones the
// documentation shows, the forms CEL allows around them, and every way
// kube-apiserver refuses one.
var expressions = []string{
	// accepted
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
	"shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')",
	"(shardRange(object.metadata.uid, \"0x0000000000000000\", '0x8000000000000000'))",
	"shardRange(object.metadata.uid,'0x0000000000000000',r'0x8000000000000000') // comment",
	"  shardRange( object.metadata.uid ,  '0x0000000000000000' ,  '0x8000000000000000' )  ",
	"(shardRange(object.metadata.uid, '0x0000000000000000', '0x1000000000000000') || shardRange(object.metadata.uid, '0x1000000000000000', '0x2000000000000000')) || shardRange(object.metadata.uid, '0x3000000000000000', '0x4000000000000000')",
	"shardRange(object.metadata.uid, '\\x30x0000000000000000', '0x8000000000000000')",
	// refused after parsing
	"",
	"   ",
	"shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0xff')",
	"shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.labels, '0x00', '0x80')",
	"shardRange(uid, '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x000000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x000000000000000G', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
	"shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0xffffffffffffffff', '0x0000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
	"shardRange(object.metadata.uid, 0, 8)",
	"shardRange(object.metadata.uid, 0u, 8.5)",
	"shardRange(object.metadata.uid, true, null)",
	"shardRange(object.metadata.uid, b'0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, x, '0x8000000000000000')",
	"shardRange(object.metadata.uid, hex(0), '0x8000000000000000')",
	"shardRange('uid', '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000', '0x1')",
	"object.metadata.uid > '0x0'",
	"object.metadata.uid",
	"'0x0000000000000000'",
	"!shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
	"foo(1)",
	"object.metadata.uid.shardRange('0x0000000000000000', '0x8000000000000000')",
	"[shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')]",
	"true ? shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') : false",
	// refused by the parser
	"shardRange(object.metadata.uid, '0x0000000000000000'",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'))",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000",
	"shardRange(object.metadata.uid,, '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') ||",
	"|| shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid; '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
	"((((",
	"shardRange(object..metadata.uid, '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object.metadata.uid, '0x0000000000000000', '\\q')",
	// refused by the parser's limits: one operand's chain of selections and
	// indexes, and the expression's length in code points
	"shardRange(object" + strings.Repeat(".m", 250) + ", '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object" + strings.Repeat(".m", 251) + ", '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object" + strings.Repeat(".m", 125) + strings.Repeat("[0]", 126) + ", '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object" + strings.Repeat(".m", 249) + ".f(), '0x0000000000000000', '0x8000000000000000')",
	"shardRange(object" + strings.Repeat(".m", 250) + ".f(), '0x0000000000000000', '0x8000000000000000')",
	"  shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') //" + strings.Repeat("é", 100_000-78) + "  ",
	"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') //" + strings.Repeat("é", 100_000-77),
	"shardRange(object" + strings.Repeat(".m", 200_000) + ", '0x0000000000000000', '0x8000000000000000')",
}

// TestParserAgreesWithKubeAPIServers: informerlab's hand-written parser
// (used by fakeapi and the sharded Reflector) and k8s.io/apiserver's
// CEL-based one accept the same expressions, with the same ranges, and
// refuse the same ones; outside syntax errors, in the same words.
// kube-apiserver: k8s.io/apiserver/pkg/sharding.Parse v0.37.2.
func TestParserAgreesWithKubeAPIServers(t *testing.T) {
	accepted, refused := 0, 0
	for _, expr := range expressions {
		name := expr
		if len(name) > 120 {
			name = fmt.Sprintf("%.100s... (%d bytes)", name, len(name))
		}
		t.Run(name, func(t *testing.T) {
			theirs, theirErr := apiserversharding.Parse(expr)
			ours, ourErr := shardselector.Parse(expr)

			if theirErr != nil {
				refused++
				require.Error(t, ourErr, "k8s.io/apiserver refuses it: %v", theirErr)
				t.Logf("refused: %v", theirErr)
				if !isSyntaxError(theirErr.Error()) {
					assert.Equal(t, theirErr.Error(), ourErr.Error())
				} else {
					assert.True(t, isSyntaxError(ourErr.Error()), "ours: %v", ourErr)
				}
				return
			}
			accepted++
			require.NoError(t, ourErr)
			assert.Equal(t, theirs.Requirements(), ours.Requirements())
			assert.Equal(t, theirs.String(), ours.String())
		})
	}
	t.Logf("%d expressions: %d accepted by both, %d refused by both", len(expressions), accepted, refused)
}

// isSyntaxError: the parser's own words. Its limits (recursion, size) are
// worded as cel-go words them, and compared.
func isSyntaxError(msg string) bool {
	return strings.HasPrefix(msg, "CEL parse error: Syntax error: ")
}
