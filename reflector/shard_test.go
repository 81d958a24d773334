package reflector_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
)

// TestSetShardSelectorRefusesAnExpressionThatDoesNotParse: a bad selector
// is an error at once, in the parser's words, and the Reflector keeps the
// one it had.
// Diagram: step 1. kube-apiserver: the shard selector grammar.
func TestSetShardSelectorRefusesAnExpressionThatDoesNotParse(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	r := reflector.New(srv.Resource(configMapsGVR), nil, &recordingStore{}, reflector.Options{ShardSelector: lowHalf, Logger: discard()})

	err := r.SetShardSelector("shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')")

	require.Error(t, err)
	assert.Contains(t, err.Error(), `reflector: invalid shard selector`)
	assert.Contains(t, err.Error(), `unsupported field path "object.metadata.name"`)
	assert.Equal(t, lowHalf, r.ShardSelector())
}

// TestBadShardSelectorInOptionsFailsEveryList: a Reflector built with a
// selector that does not parse never lists; ListAndWatch says why.
// Diagram: step 1.
func TestBadShardSelectorInOptionsFailsEveryList(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	store := &recordingStore{}
	r := reflector.New(srv.Resource(configMapsGVR), nil, store, reflector.Options{ShardSelector: "shardRange(", Logger: discard()})

	err := r.ListAndWatch(context.Background())

	require.Error(t, err)
	assert.Contains(t, err.Error(), "reflector: invalid shard selector")
	assert.Empty(t, store.take(), "nothing reached the Store")
}
