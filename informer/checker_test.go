package informer_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// TestHasSyncedCheckerIsTheThingItselfWithAName checks that the informer,
// a registration and a Controller each return themselves from
// HasSyncedChecker, that their names say what they are (the names WaitFor
// logs), and that WaitFor waits for all three.
//
// Diagram: step 6. client-go: SharedInformer.HasSyncedChecker,
// ResourceEventHandlerRegistration.HasSyncedChecker, Controller.HasSyncedChecker.
func TestHasSyncedCheckerIsTheThingItselfWithAName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithName("configmaps"), informer.WithLogger(quiet))
		reg, err := inf.AddEventHandler(newRecorder())
		require.NoError(t, err)
		_, c := informer.NewInformerWithOptions(informer.InformerOptions{
			ListerWatcher: cms, Handler: newRecorder(), Logger: quiet,
			Reflector: reflector.Options{Name: "standalone configmaps"},
		})
		run(t, inf)
		runController(t, c)

		ok := informer.WaitFor(t.Context(), "", inf.HasSyncedChecker(), reg.HasSyncedChecker(), c.HasSyncedChecker())

		assert.True(t, ok)
		assert.Same(t, inf, inf.HasSyncedChecker())
		assert.Same(t, reg, reg.HasSyncedChecker())
		assert.Same(t, c, c.HasSyncedChecker())
		assert.Equal(t, "SharedIndexInformer configmaps", inf.Name())
		assert.Equal(t, "handler github.com/informerlab/informerlab/informer_test.recorder", reg.Name())
		assert.Equal(t, "Controller standalone configmaps", c.Name())
	})
}
