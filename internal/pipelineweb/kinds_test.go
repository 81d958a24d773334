package pipelineweb

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
	k := kindIndex{kinds: map[string][]string{}, last: map[string]string{}}
	k.saw("Foo", "default/back")
	k.deleted("Foo", "default/back")
	k.saw("Foo", "default/back") // recreated

	for i := range 3 * maxGoneKeys {
		key := fmt.Sprintf("default/f%d", i)
		k.saw("Foo", key)
		k.deleted("Foo", key)
	}

	assert.Equal(t, "Foo", k.of(fmt.Sprintf("default/f%d", 3*maxGoneKeys-1)), "a recent deletion keeps its kind")
	assert.Empty(t, k.of("default/f0"), "a deletion maxGoneKeys deletions ago is forgotten")
	assert.Equal(t, "Foo", k.of("default/back"), "a key seen again after its deletion is kept")
	assert.LessOrEqual(t, len(k.kinds), maxGoneKeys+1)
	assert.LessOrEqual(t, len(k.goneAt), maxGoneKeys)
}
