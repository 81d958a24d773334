package demoengine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKindIndexForgetsLongDeletedKeysOnly: a deleted key keeps its kind
// and last deltas for the next maxGoneKeys deletions, then is forgotten; a
// key seen again after its deletion is kept; so the index stays bounded
// however many objects come and go.
// Diagram: steps 1-5. client-go: none.
func TestKindIndexForgetsLongDeletedKeysOnly(t *testing.T) {
	k := newKindIndex()
	k.saw("Foo", "default/back")
	k.deleted("Foo", "default/back")
	k.saw("Foo", "default/back") // recreated

	for i := range 3 * maxGoneKeys {
		key := fmt.Sprintf("default/f%d", i)
		k.saw("Foo", key)
		k.popped("Foo", key, []string{"Deleted"})
		k.deleted("Foo", key)
	}

	assert.Equal(t, "Foo", k.of(fmt.Sprintf("default/f%d", 3*maxGoneKeys-1)), "a recent deletion keeps its kind")
	assert.Equal(t, "?", k.of("default/f0"), "a deletion maxGoneKeys deletions ago is forgotten")
	assert.Equal(t, "Foo", k.of("default/back"), "a key seen again after its deletion is kept")
	assert.LessOrEqual(t, len(k.kinds), maxGoneKeys+1)
	assert.LessOrEqual(t, len(k.deltas), maxGoneKeys)
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
