package pipelinetrace

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKindIndexForgetsLongDeletedKeysOnly: a deleted key keeps its kind
// for the next maxGoneKeys deletions, then is forgotten; a key seen again
// after its deletion is kept; so the index stays bounded however many
// objects come and go.
// Diagram: steps 1-5. client-go: none.
func TestKindIndexForgetsLongDeletedKeysOnly(t *testing.T) {
	k := newKindIndex()
	k.saw("Foo", "default/back")
	k.deleted("Foo", "default/back")
	k.saw("Foo", "default/back") // recreated
	k.saw("Foo", "default/twin")
	k.saw("Deployment", "default/twin")

	for i := range 3 * maxGoneKeys {
		key := fmt.Sprintf("default/f%d", i)
		k.saw("Foo", key)
		k.deleted("Foo", key)
	}
	recent, old := k.of(fmt.Sprintf("default/f%d", 3*maxGoneKeys-1)), k.of("default/f0")
	k.deleted("Deployment", "default/twin")
	for i := range maxGoneKeys {
		k.deleted("Foo", fmt.Sprintf("default/g%d", i))
	}

	assert.Equal(t, "Foo", recent, "a recent deletion keeps its kind")
	assert.Empty(t, old, "a deletion maxGoneKeys deletions ago is forgotten")
	assert.Equal(t, "Foo", k.of("default/back"), "a key seen again after its deletion is kept")
	assert.Equal(t, "Foo", k.of("default/twin"), "a forgotten Deployment leaves the Foo of the same name")
	assert.LessOrEqual(t, len(k.kinds), maxGoneKeys+3)
	assert.LessOrEqual(t, len(k.goneAt), maxGoneKeys)
}

// TestKindIndexMatchesAReplaceToItsList: a Replace of n objects at rv is
// the oldest LIST of that size and resourceVersion, once.
// Diagram: steps 1-2. client-go: none.
func TestKindIndexMatchesAReplaceToItsList(t *testing.T) {
	k := newKindIndex()
	k.listed("Foo", []string{"default/a"}, "5")
	k.listed("Deployment", []string{"default/a-nginx"}, "5")

	first, ok1 := k.replaced(1, "5")
	second, ok2 := k.replaced(1, "5")
	_, ok3 := k.replaced(1, "5")

	assert.True(t, ok1)
	assert.Equal(t, "Foo", first.kind)
	assert.True(t, ok2)
	assert.Equal(t, []string{"default/a-nginx"}, second.keys)
	assert.False(t, ok3)
}
