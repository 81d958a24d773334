package informer_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// mutationsSeen collects what the detector reports.
type mutationsSeen chan informer.CacheMutation

func (m mutationsSeen) report(c informer.CacheMutation) { m <- c }

func (m mutationsSeen) take() []informer.CacheMutation {
	var out []informer.CacheMutation
	for {
		select {
		case c := <-m:
			out = append(out, c)
		default:
			return out
		}
	}
}

// detectorInformer runs an informer on one ConfigMap, ns/a, with the mutation
// detector on, and returns the object its handler was given and a function
// that mutates it.
//
// The detector reads cached objects on its own goroutine, so a mutation made
// on another goroutine is a data race by nature: that is one more reason it
// is forbidden. To keep the race detector's verdict about the informer's own
// code, mutate makes a server write after the mutation and waits until the
// informer has processed it; the informer hands that change to the detector
// under the detector's lock, which orders the mutation before the detector's
// next comparison.
func detectorInformer(t *testing.T, seen mutationsSeen) (*unstructured.Unstructured, func(func(*unstructured.Unstructured))) {
	srv := newServer(t, fakeapi.Options{})
	cms := srv.Resource(cmGVR)
	create(t, cms, "ns", "a", "1")
	inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil,
		informer.WithLogger(quiet), informer.WithCacheMutationDetector(seen.report))
	got := make(chan any, 10)
	startSynced(t, inf, informer.ResourceEventHandlerFuncs{AddFunc: func(obj any) { got <- obj }})
	obj := (<-got).(*unstructured.Unstructured)
	nudges := 0
	mutate := func(change func(*unstructured.Unstructured)) {
		change(obj)
		nudges++
		create(t, cms, "ns", fmt.Sprintf("nudge-%d", nudges), "1")
		synctest.Wait()
	}
	return obj, mutate
}

// TestCacheMutationDetectorReportsTheKeyAndADiff: a handler changes the
// object it was given, the cache's own; within a second the detector
// reports which key and what changed, as a diff from the cached state.
//
// Diagram: steps 5-6. client-go: tools/cache mutation_detector.go
func TestCacheMutationDetectorReportsTheKeyAndADiff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seen := make(mutationsSeen, 10)
		_, mutate := detectorInformer(t, seen)

		mutate(func(obj *unstructured.Unstructured) { obj.SetLabels(map[string]string{"touched": "by-mistake"}) })
		time.Sleep(time.Second)
		synctest.Wait()

		found := seen.take()
		require.Len(t, found, 1)
		assert.Equal(t, "ns/a", found[0].Key)
		assert.Contains(t, found[0].Diff, "+  \"labels\": {\n+   \"touched\": \"by-mistake\"\n+  },\n")
		assert.Contains(t, found[0].String(), "informer: cached object ns/a was mutated in place")
	})
}

// TestCacheMutationDetectorIsQuietForCopiesAndReportsEachMutationOnce: a
// change made to a DeepCopy is nobody's business; a mutation is reported
// once, not every second.
//
// Diagram: steps 5-6. client-go: tools/cache mutation_detector.go
func TestCacheMutationDetectorIsQuietForCopiesAndReportsEachMutationOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seen := make(mutationsSeen, 10)
		_, mutate := detectorInformer(t, seen)

		mutate(func(obj *unstructured.Unstructured) { obj.DeepCopy().SetLabels(map[string]string{"touched": "safely"}) })
		time.Sleep(5 * time.Second)
		synctest.Wait()
		quiet := seen.take()
		mutate(func(obj *unstructured.Unstructured) { obj.SetAnnotations(map[string]string{"touched": "by-mistake"}) })
		time.Sleep(5 * time.Second)
		synctest.Wait()

		assert.Empty(t, quiet)
		assert.Len(t, seen.take(), 1)
	})
}

// TestCacheMutationDetectorWatchesObjectsForTwoToFourMinutes: memory stays
// bounded by the rate of change: an object cached more than four minutes
// ago is no longer compared.
//
// Diagram: steps 5-6. client-go: defaultCacheMutationDetector (retainDuration)
func TestCacheMutationDetectorWatchesObjectsForTwoToFourMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seen := make(mutationsSeen, 10)
		_, mutate := detectorInformer(t, seen)

		time.Sleep(4*time.Minute + time.Second)
		synctest.Wait()
		mutate(func(obj *unstructured.Unstructured) { obj.SetLabels(map[string]string{"touched": "late"}) })
		time.Sleep(5 * time.Second)
		synctest.Wait()

		assert.Empty(t, seen.take())
	})
}

// TestCacheMutationDetectorFromTheEnvironment: KUBE_CACHE_MUTATION_DETECTOR
// set to a true value turns the detector on for informers built meanwhile,
// as in client-go; anything else leaves it off.
//
// Diagram: steps 5-6. client-go: KUBE_CACHE_MUTATION_DETECTOR
func TestCacheMutationDetectorFromTheEnvironment(t *testing.T) {
	cms := newServer(t, fakeapi.Options{}).Resource(cmGVR)
	newInformer := func() informer.SharedIndexInformer {
		return informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
	}

	t.Setenv(informer.MutationDetectorEnv, "true")
	on := newInformer()
	t.Setenv(informer.MutationDetectorEnv, "no thanks")
	off := newInformer()
	t.Setenv(informer.MutationDetectorEnv, "")
	unset := newInformer()
	optedIn := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet),
		informer.WithCacheMutationDetector(nil))

	assert.True(t, informer.HasMutationDetector(on))
	assert.False(t, informer.HasMutationDetector(off))
	assert.False(t, informer.HasMutationDetector(unset))
	assert.True(t, informer.HasMutationDetector(optedIn))
}
