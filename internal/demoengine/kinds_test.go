package demoengine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKindIndexForgetsDeletedObjects: the deltas an object last popped are
// forgotten when it leaves the cache, so the index stays bounded however
// many objects come and go, and a recreated object starts afresh.
// Diagram: steps 3-5. client-go: none.
func TestKindIndexForgetsDeletedObjects(t *testing.T) {
	k := newKindIndex()
	for i := range 1000 {
		key := fmt.Sprintf("default/f%d", i)
		k.popped("Foo", key, []string{"Replaced"})
		k.deleted("Foo", key)
	}
	k.popped("Foo", "default/live", []string{"Replaced"})

	assert.Len(t, k.deltas, 1)
	assert.Equal(t, "the relist found it unchanged", k.unchangedBy("Foo", "default/live"))
	assert.Equal(t, "a resync", k.unchangedBy("Foo", "default/f0"))
}

// TestWriteLogDropsTheChainsOfDeletedFoos: the chains of deleted Foos,
// which no lister get ever asks about again, are dropped once there are
// more than maxOwnChains; a live Foo's chain is kept.
// Diagram: step 9. client-go: none.
func TestWriteLogDropsTheChainsOfDeletedFoos(t *testing.T) {
	l := newWriteLog()
	l.replaced("default/live", "1", "2")
	for i := range 3 * maxOwnChains {
		key := fmt.Sprintf("default/f%d", i)
		l.replaced(key, "10", "11")
		l.deletedBy(key, "11")
	}

	latest, _, ok := l.newerOwn("default/live", "1")

	assert.True(t, ok)
	assert.Equal(t, "2", latest)
	assert.LessOrEqual(t, len(l.own), maxOwnChains+1)
}
