package indexer_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/indexer"
)

// modelObject is what the reference model remembers of one stored object.
type modelObject struct{ namespace, app string }

// FuzzIndexerMatchesModel drives an Indexer with random Add, Update, Delete
// and Replace calls, some of which carry an object its IndexFunc rejects, and
// after every step compares it with a plain map and checks the invariants.
// Run it longer with: go test ./indexer -run '^$' -fuzz FuzzIndexerMatchesModel -fuzztime 20s
// Diagram: step 5. client-go: threadSafeMap, storeIndex.
func FuzzIndexerMatchesModel(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 2, 2, 1, 1, 4, 3, 0, 3, 4, 2})
	f.Add([]byte{0, 0, 0, 1, 0, 4, 2, 0, 0, 3, 1, 2, 3, 9, 9, 9})
	f.Add([]byte{3, 0, 1, 2, 3, 4, 5, 0, 5, 1, 1, 5, 4})
	f.Fuzz(func(t *testing.T, program []byte) {
		cause := errors.New("rejected")
		idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
			indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
			byApp:                  failOn(cause),
		})
		model := map[string]modelObject{}
		namespaces := []string{"a", "b", ""}
		names := []string{"x", "y", "z"}
		apps := []string{"web", "db", "", "fail"} // "" = no label; "fail" = IndexFunc error

		next := func() int {
			if len(program) == 0 {
				return 0
			}
			b := program[0]
			program = program[1:]
			return int(b)
		}
		object := func() (any, string, modelObject, bool) {
			ns, name, app := namespaces[next()%3], names[next()%3], apps[next()%4]
			labels := []string{}
			switch app {
			case "fail":
				labels = append(labels, "fail=true")
			case "":
			default:
				labels = append(labels, "app="+app)
			}
			key := indexer.NewObjectName(ns, name).String()
			return newObj(ns, name, labels...), key, modelObject{ns, app}, app == "fail"
		}

		for step := 0; len(program) > 0; step++ {
			switch op := next() % 4; op {
			case 0, 1: // Add or Update: upserts
				obj, key, m, bad := object()
				var err error
				if op == 0 {
					err = idx.Add(obj)
				} else {
					err = idx.Update(obj)
				}
				if bad {
					require.ErrorIs(t, err, cause, "step %d", step)
				} else {
					require.NoError(t, err, "step %d", step)
					model[key] = m
				}
			case 2:
				obj, key, _, _ := object()
				require.NoError(t, idx.Delete(obj), "step %d", step)
				delete(model, key)
			case 3:
				list := []any{}
				replaced := map[string]modelObject{}
				for range next() % 4 {
					obj, key, m, _ := object()
					list = append(list, obj)
					replaced[key] = m // a later object with the same key wins
				}
				anyBad := false
				for _, m := range replaced {
					anyBad = anyBad || m.app == "fail"
				}
				err := idx.Replace(list, "1")
				if anyBad {
					require.ErrorIs(t, err, cause, "step %d", step)
				} else {
					require.NoError(t, err, "step %d", step)
					model = replaced
				}
			}

			requireConsistent(t, idx)
			assert.ElementsMatch(t, slices.Collect(maps.Keys(model)), idx.ListKeys(), "step %d", step)
			for _, app := range []string{"web", "db"} {
				want := []string{}
				for key, m := range model {
					if m.app == app {
						want = append(want, key)
					}
				}
				slices.Sort(want)
				got, err := idx.IndexKeys(byApp, app)
				require.NoError(t, err)
				assert.Equal(t, want, got, "step %d, app %q", step, app)
			}
			for _, ns := range namespaces {
				want := 0
				for _, m := range model {
					if m.namespace == ns {
						want++
					}
				}
				got, err := idx.ByIndex(indexer.NamespaceIndex, ns)
				require.NoError(t, err)
				assert.Len(t, got, want, "step %d, namespace %q", step, ns)
			}
		}
	})
}
