package indexer_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/indexer"
)

// TestIndexerConcurrentReadersSeeWholeWrites runs writers (Add, Update,
// Delete), readers (every read method and a Lister) and an AddIndexers call
// at the same time. Run with -race. Every object a reader finds under an app
// value really has that label (a reader never sees half a write), and at the
// end the store holds exactly each writer's last write and keeps its invariants.
// Diagram: steps 5 and 9. client-go: threadSafeMap (one RWMutex over items and indices).
func TestIndexerConcurrentReadersSeeWholeWrites(t *testing.T) {
	const writers, readers, writes, keysPerWriter = 4, 3, 200, 10
	apps := []string{"web", "db", "cache"}
	idx := newTestIndexer()
	lister := indexer.NewLister(idx, schema.GroupResource{Resource: "pods"})
	want := make([]map[string]string, writers) // writer -> key -> app label, or absent
	done := make(chan struct{})
	readErrs := make(chan error, readers)

	var writersWG, readersWG sync.WaitGroup
	for w := range writers {
		writersWG.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			mine := map[string]string{}
			for range writes {
				ns, name := fmt.Sprintf("ns-%d", rng.IntN(3)), fmt.Sprintf("w%d-%d", w, rng.IntN(keysPerWriter))
				key := ns + "/" + name
				if rng.IntN(4) == 0 {
					assert.NoError(t, idx.Delete(newObj(ns, name)))
					delete(mine, key)
					continue
				}
				app := apps[rng.IntN(len(apps))]
				assert.NoError(t, idx.Update(newObj(ns, name, "app="+app, "tier=t"+app)))
				mine[key] = app
			}
			want[w] = mine
		})
	}
	for range readers {
		readersWG.Go(func() {
			readErrs <- readUntilDone(idx, lister, apps, done)
		})
	}
	require.NoError(t, idx.AddIndexers(indexer.Indexers{"byTier": indexer.LabelIndexFunc("tier")}))
	writersWG.Wait()
	close(done)
	readersWG.Wait()
	close(readErrs)

	for err := range readErrs {
		assert.NoError(t, err)
	}
	requireConsistent(t, idx)
	all := map[string]string{}
	for _, mine := range want {
		for key, app := range mine {
			all[key] = app
		}
	}
	assert.Len(t, idx.ListKeys(), len(all))
	t.Logf("%d writers made %d writes each while %d readers read every method in a loop and AddIndexers ran: no reader saw a half-done write", writers, writes, readers)
	t.Logf("   %d keys at the end, each with the app label its last write gave it", len(idx.ListKeys()))
	for key, app := range all {
		obj, exists, err := idx.GetByKey(key)
		require.NoError(t, err)
		require.True(t, exists, key)
		assert.Equal(t, app, obj.(*metav1.PartialObjectMetadata).Labels["app"], key)
	}
}

// readUntilDone calls every read method in a loop until done is closed,
// returning the first inconsistency it sees. It always makes at least one pass.
func readUntilDone(idx indexer.Indexer, lister *indexer.Lister, apps []string, done <-chan struct{}) error {
	for {
		for _, app := range apps {
			objs, err := idx.ByIndex(byApp, app)
			if err != nil {
				return err
			}
			for _, obj := range objs {
				if got := obj.(*metav1.PartialObjectMetadata).Labels["app"]; got != app {
					return fmt.Errorf("ByIndex(%q) returned an object labelled app=%q", app, got)
				}
			}
			keys, err := idx.IndexKeys(byApp, app)
			if err != nil {
				return err
			}
			for _, key := range keys {
				if _, _, err := idx.GetByKey(key); err != nil {
					return err
				}
			}
			selector := labels.SelectorFromSet(labels.Set{"app": app})
			listed, err := lister.Namespace("ns-1").List(selector)
			if err != nil {
				return err
			}
			for _, obj := range listed {
				m := obj.(*metav1.PartialObjectMetadata)
				if m.Namespace != "ns-1" || m.Labels["app"] != app {
					return fmt.Errorf("lister returned %s/%s app=%q for namespace ns-1, app=%q", m.Namespace, m.Name, m.Labels["app"], app)
				}
			}
		}
		if _, err := idx.Index(indexer.NamespaceIndex, newObj("ns-0", "probe")); err != nil {
			return err
		}
		_ = idx.ListIndexFuncValues(byApp)
		_ = idx.List()
		_ = idx.ListKeys()
		_ = idx.GetIndexers()
		select {
		case <-done:
			return nil
		default:
		}
	}
}
