package informer_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestLabelSelectedInformerRelistsWhenItsSelectorChanges: an informer
// caching the ConfigMaps labelled bucket in (0,1) is switched to
// bucket in (1,2); its watch ends, the Reflector relists with the new
// selector, and the handlers see bucket 0's objects deleted and bucket 2's
// added, while bucket 1's stay. A ConfigMap relabelled out of the selector
// while watched is deleted too.
// Diagram: steps 1-6. client-go: ListOptions.LabelSelector (fixed for an informer's life there).
func TestLabelSelectedInformerRelistsWhenItsSelectorChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		for b := range 3 {
			for i := range 2 {
				cm := newCM("ns", fmt.Sprintf("b%d-%d", b, i), "1")
				cm.SetLabels(map[string]string{"bucket": fmt.Sprint(b)})
				_, err := cms.Create(context.Background(), cm, metav1.CreateOptions{})
				require.NoError(t, err)
			}
		}
		inf := informer.NewSharedIndexInformer(srv.Resource(cmGVR), exampleCM(), 0, nil, informer.WithLogger(quiet))
		require.NoError(t, inf.SetLabelSelector("bucket in (0,1)"))
		rec := newRecorder()
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		run(t, inf)
		synctest.Wait()
		require.Equal(t, []string{"ns/b0-0", "ns/b0-1", "ns/b1-0", "ns/b1-1"}, sortedKeys(cacheView(inf)))
		rec.take()

		require.NoError(t, inf.SetLabelSelector("bucket in (1,2)"))
		synctest.Wait()

		assert.Equal(t, []string{"ns/b1-0", "ns/b1-1", "ns/b2-0", "ns/b2-1"}, sortedKeys(cacheView(inf)))
		lines := rec.take()
		assert.Equal(t, []string{"ns/b0-0", "ns/b0-1"}, linesFor(lines, "delete "), "bucket 0 left")
		assert.Equal(t, []string{"ns/b2-0", "ns/b2-1"}, linesFor(lines, "add "), "bucket 2 joined")

		obj, err := cms.Get(context.Background(), "b1-0", metav1.GetOptions{})
		require.NoError(t, err)
		moved := obj.(metav1.Object)
		moved.SetLabels(map[string]string{"bucket": "0"})
		_, err = cms.Update(context.Background(), obj, metav1.UpdateOptions{})
		require.NoError(t, err)
		synctest.Wait()

		assert.NotContains(t, cacheView(inf), "ns/b1-0", "relabelled out of the selector")
		assert.Equal(t, []string{"ns/b1-0"}, linesFor(rec.take(), "delete "))
		_, problems := rec.snapshot()
		assert.Empty(t, problems)
	})
}

// TestInformerSetLabelSelectorRefusesASelectorThatDoesNotParse: before Run and
// while running, a bad selector is an error and changes nothing.
// Diagram: step 1.
func TestInformerSetLabelSelectorRefusesASelectorThatDoesNotParse(t *testing.T) {
	srv := newServer(t, fakeapi.Options{})
	inf := informer.NewSharedIndexInformer(srv.Resource(cmGVR), exampleCM(), 0, nil, informer.WithLogger(quiet))

	err := inf.SetLabelSelector("bucket in (0")

	require.Error(t, err)
	assert.Contains(t, err.Error(), `informer: invalid label selector "bucket in (0"`)
}
