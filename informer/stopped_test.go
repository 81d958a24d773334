package informer_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// TestAddingToAStoppedInformerFailsInClientGosWords checks that a handler or
// an index added after Run returned is refused with client-go's words,
// "... because it has stopped already", which programs ported from
// client-go match on.
//
// Diagram: step 6. client-go: sharedIndexInformer.AddEventHandlerWithOptions,
// AddIndexers (shared_informer.go).
func TestAddingToAStoppedInformerFailsInClientGosWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		inf := informer.NewSharedIndexInformer(srv.Resource(cmGVR), exampleCM(), 0, nil, informer.WithLogger(quiet))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		inf.Run(ctx)
		require.True(t, inf.IsStopped())

		_, err := inf.AddEventHandler(newRecorder())
		indexErr := inf.AddIndexers(indexer.Indexers{"value": valueIndex})

		require.Error(t, err)
		assert.Regexp(t, `^informer: handler .* was not added to shared informer because it has stopped already$`, err.Error())
		assert.EqualError(t, indexErr, "informer: indexer was not added because it has stopped already")
	})
}
