package informer_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// lockedSpy is a typedSpy safe for the handler goroutine and the test.
type lockedSpy struct {
	mu  sync.Mutex
	spy typedSpy
}

func (s *lockedSpy) OnAdd(obj typedCM, initial bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spy.OnAdd(obj, initial)
}

func (s *lockedSpy) OnUpdate(oldObj, newObj typedCM) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spy.OnUpdate(oldObj, newObj)
}

func (s *lockedSpy) OnDelete(obj deltafifo.DeletedObject[typedCM]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spy.OnDelete(obj)
}

func (s *lockedSpy) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := s.spy.lines
	s.spy.lines = nil
	return lines
}

// TestTypedInformerDeliversTypedObjectsAndRelistTombstones runs a typed
// view of a real informer: its typed handler hears the initial list, a
// watched update and delete, and the tombstone of an object deleted while
// the watch was down, all typed; its typed index files the cached objects.
//
// Diagram: steps 1-6. client-go: tools/cache TypedSharedIndexInformer
func TestTypedInformerDeliversTypedObjectsAndRelistTombstones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		create(t, cms, "ns", "b", "1")
		create(t, cms, "ns", "c", "1")
		inf := informer.NewTypedSharedIndexInformer[typedCM](
			informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet)))
		require.NoError(t, inf.AddTypedIndexers(indexer.TypedIndexers[typedCM]{
			"byValue": func(obj typedCM) ([]string, error) {
				return []string{obj.Object["data"].(map[string]any)["value"].(string)}, nil
			},
		}))
		spy := &lockedSpy{}
		reg, err := inf.AddTypedEventHandler(spy)
		require.NoError(t, err)
		run(t, inf)
		require.True(t, informer.WaitForCacheSync(t.Context(), inf, reg))
		synctest.Wait()
		initial := spy.take()

		update(t, cms, "ns", "a", "2")
		remove(t, cms, "ns", "b")
		synctest.Wait()
		watched := spy.take()
		err = srv.SilentResource(cmGVR).Namespace("ns").Delete(context.Background(), "c", metav1.DeleteOptions{})
		require.NoError(t, err)
		srv.Compact()
		time.Sleep(5 * time.Second)
		srv.CloseWatches()
		settle()
		relisted := spy.take()
		byValue, err := inf.GetTypedIndexer().ByTypedIndex("byValue", "2")
		require.NoError(t, err)

		assert.ElementsMatch(t, []string{"add a initial", "add b initial", "add c initial"}, initial)
		assert.Equal(t, []string{"update a->a", "delete ns/b"}, watched)
		assert.Equal(t, []string{"update a->a", "delete ns/c (tombstone)"}, relisted)
		require.Len(t, byValue, 1)
		assert.Equal(t, "a", byValue[0].GetName())
	})
}

// TestAddTypedEventHandlerTakesAtMostOneOptionsAndNoNilHandler: two
// HandlerOptions, or a nil handler, are refused and register nothing; one
// HandlerOptions is used as AddEventHandlerWithOptions uses it.
//
// Diagram: step 6. client-go: tools/cache typedSharedIndexInformer.AddTypedEventHandler
func TestAddTypedEventHandlerTakesAtMostOneOptionsAndNoNilHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := newServer(t, fakeapi.Options{}).Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		inf := informer.NewTypedSharedIndexInformer[typedCM](
			informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet)))
		period := time.Minute

		_, errTwo := inf.AddTypedEventHandler(&lockedSpy{}, informer.HandlerOptions{}, informer.HandlerOptions{})
		_, errNil := inf.AddTypedEventHandler(nil)
		spy := &lockedSpy{}
		reg, errOne := inf.AddTypedEventHandler(spy, informer.HandlerOptions{ResyncPeriod: &period})
		require.NoError(t, errOne)
		run(t, inf)
		require.True(t, informer.WaitForCacheSync(t.Context(), reg))
		synctest.Wait()

		assert.EqualError(t, errTwo, "informer: at most one HandlerOptions may be passed, got 2")
		assert.EqualError(t, errNil, "informer: nil event handler")
		assert.Equal(t, []string{"add a initial"}, spy.take(), "only the one handler registered")
	})
}

// TestTypedHandlerOfTheWrongTypePanicsAndIsCountedNotFatal: a typed handler
// on an informer of another type panics on its first notification; the
// informer recovers, counts it on the registration and goes on.
//
// Diagram: step 6. client-go: none (its adapter's type assertion panics, and HandleCrash ends the process)
func TestTypedHandlerOfTheWrongTypePanicsAndIsCountedNotFatal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := newServer(t, fakeapi.Options{}).Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		wrong := informer.NewTypedSharedIndexInformer[*metav1.PartialObjectMetadata](inf)
		reg, err := wrong.AddTypedEventHandler(informer.TypedResourceEventHandlerFuncs[*metav1.PartialObjectMetadata]{})
		require.NoError(t, err)
		rec := newRecorder()

		startSynced(t, inf, rec)

		assert.Equal(t, int64(1), reg.Panics())
		assert.Equal(t, []string{"add ns/a@" + rvOf(mustGet(t, inf, "ns/a")) + " initial"}, rec.take(), "the other handler is unaffected")
	})
}

// TestTypedHandlerMetricsAreNamedAfterTheTypedFunctions: a typed handler's
// metrics carry the name of the functions it was built from, as an untyped
// ResourceEventHandlerFuncs' do, not the adapter's type.
//
// Diagram: step 6. client-go: tools/cache nameForHandler (which names the adapter)
func TestTypedHandlerMetricsAreNamedAfterTheTypedFunctions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := newServer(t, fakeapi.Options{}).Resource(cmGVR)
		m := &fakeMetrics{values: map[string]float64{}}
		inf := informer.NewTypedSharedIndexInformer[typedCM](informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil,
			informer.WithLogger(quiet), informer.WithName("cms"), informer.WithMetricsProvider(m)))

		_, err := inf.AddTypedEventHandler(informer.TypedResourceEventHandlerFuncs[typedCM]{AddFunc: func(typedCM) {}})
		require.NoError(t, err)
		_, err = inf.AddTypedEventHandler(&lockedSpy{})
		require.NoError(t, err)

		assert.Contains(t, m.snapshot(), "handler_events/cms/github.com/informerlab/informerlab/informer_test.TestTypedHandlerMetricsAreNamedAfterTheTypedFunctions.func1")
		assert.Contains(t, m.snapshot(), "handler_events/cms/github.com/informerlab/informerlab/informer_test.lockedSpy")
	})
}
