package informer_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestShutDownEventHandlerWaitsForTheCallInProgress removes a handler that
// is inside OnAdd: ShutDownEventHandler returns only after that call has
// returned, and the handler is never called again.
//
// Diagram: step 6. client-go: ShutDownEventHandler
// (TestRemoveEventHandler_SynchronousShutdown).
func TestShutDownEventHandlerWaitsForTheCallInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		var calls atomic.Int32
		inCall, release := make(chan struct{}), make(chan struct{})
		reg, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{AddFunc: func(any) {
			if calls.Add(1) == 1 {
				close(inCall)
				<-release
			}
		}})
		require.NoError(t, err)
		go inf.Run(t.Context())
		create(t, cms, "ns", "a", "1")
		<-inCall

		var returned atomic.Bool
		shutDown := make(chan error)
		go func() {
			err := informer.ShutDownEventHandler(inf, reg)
			returned.Store(true)
			shutDown <- err
		}()
		synctest.Wait()
		assert.False(t, returned.Load(), "returned while the handler was still in OnAdd")
		close(release)
		require.NoError(t, <-shutDown)
		create(t, cms, "ns", "b", "1")
		synctest.Wait()

		assert.Equal(t, int32(1), calls.Load(), "called after it was shut down")
		assert.NoError(t, informer.ShutDownEventHandler(inf, reg), "a second call does nothing")
	})
}

// TestShutDownEventHandlerBeforeRunAndForeignRegistrations: a handler
// never started is shut down at once; another informer's registration is
// refused, not waited for.
//
// Diagram: step 6. client-go: ShutDownEventHandler.
func TestShutDownEventHandlerBeforeRunAndForeignRegistrations(t *testing.T) {
	srv := newServer(t, fakeapi.Options{})
	inf := informer.NewSharedIndexInformer(srv.Resource(cmGVR), exampleCM(), 0, nil, informer.WithLogger(quiet))
	other := informer.NewSharedIndexInformer(srv.Resource(cmGVR), exampleCM(), 0, nil, informer.WithLogger(quiet))
	reg, err := inf.AddEventHandler(newRecorder())
	require.NoError(t, err)

	foreignErr := informer.ShutDownEventHandler(other, reg)
	err = informer.ShutDownEventHandler(inf, reg)

	assert.ErrorContains(t, foreignErr, "belongs to another informer")
	assert.NoError(t, err)
}
