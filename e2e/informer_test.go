package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listModes runs a test with client-go's streaming list (the default since
// v0.35) and with the classic paginated list.
var listModes = []struct {
	name      string
	watchList bool
}{
	{"streaming list", true},
	{"paginated list", false},
}

// TestClientGoInformerSyncsAndFollowsLiveChanges runs client-go's own
// SharedInformer for ConfigMaps against cmd/fakeapi: its initial list
// reaches OnAdd with isInInitialList, live create/update/delete reach
// OnAdd/OnUpdate/OnDelete in order, objects in other namespaces never
// appear, and the cache ends equal to the server. The server runs with
// --tls and --token, as a real cluster does.
// Diagram: steps 1-6. client-go: informers.SharedInformerFactory, tools/cache.SharedIndexInformer.
func TestClientGoInformerSyncsAndFollowsLiveChanges(t *testing.T) {
	for _, mode := range listModes {
		t.Run(mode.name, func(t *testing.T) {
			withWatchList(t, mode.watchList)
			p := startFakeapi(t, "--tls", "--token", "e2e-secret")
			cs := newClientset(t, p)
			createConfigMap(t, cs, "default", "a", map[string]string{"v": "1"})
			createConfigMap(t, cs, "default", "b", nil)
			informerCS := newClientset(t, p)
			rec := newRecorder()
			inf := startConfigMapInformer(t, informerCS, "default", rec)
			initial := rec.collect(t, 2)
			assert.Equal(t, []string{"add a initial=true", "add b initial=true"}, summaries(initial))

			c := createConfigMap(t, cs, "default", "c", map[string]string{"v": "new"})
			createConfigMap(t, cs, "elsewhere", "x", nil)
			a, err := cs.CoreV1().ConfigMaps("default").Get(t.Context(), "a", metav1.GetOptions{})
			require.NoError(t, err)
			a.Data["v"] = "2"
			updated, err := cs.CoreV1().ConfigMaps("default").Update(t.Context(), a, metav1.UpdateOptions{})
			require.NoError(t, err)
			require.NoError(t, cs.CoreV1().ConfigMaps("default").Delete(t.Context(), "b", metav1.DeleteOptions{}))

			add := rec.next(t)
			assert.Equal(t, handlerEvent{Type: "add", Name: "c", RV: c.ResourceVersion, Data: map[string]string{"v": "new"}}, add)
			update := rec.next(t)
			assert.Equal(t, handlerEvent{Type: "update", Name: "a", OldRV: a.ResourceVersion, RV: updated.ResourceVersion,
				Data: map[string]string{"v": "2"}}, update)
			del := rec.next(t)
			assert.Equal(t, "delete", del.Type)
			assert.Equal(t, "b", del.Name)
			assert.False(t, del.Tombstone, "a live delete carries the object, not a tombstone")
			assert.Equal(t, serverState(t, cs, "default"), cacheState(inf))
			lists, _ := informerCS.requests.configMapReads("default")
			assert.Equal(t, 1, lists, "one initial list, no relist")
		})
	}
}

// TestClientGoInformerRewatchesWithoutRelistWhenWatchesClose closes every
// open watch through fakeapi's admin endpoint: client-go's reflector opens
// a new watch from its last resourceVersion, misses nothing made meanwhile,
// and does not relist. (The watch first delivers one event: client-go
// treats a watch that ends within a second having delivered nothing as an
// error, and relists.)
// Diagram: step 1. client-go: tools/cache.Reflector.watchWithResync (clean end of stream -> re-watch).
func TestClientGoInformerRewatchesWithoutRelistWhenWatchesClose(t *testing.T) {
	for _, mode := range listModes {
		t.Run(mode.name, func(t *testing.T) {
			withWatchList(t, mode.watchList)
			p := startFakeapi(t)
			cs := newClientset(t, p)
			informerCS := newClientset(t, p)
			createConfigMap(t, cs, "default", "a", nil)
			rec := newRecorder()
			inf := startConfigMapInformer(t, informerCS, "default", rec)
			rec.collect(t, 1)
			createConfigMap(t, cs, "default", "live", nil)
			require.Equal(t, []string{"add live initial=false"}, summaries([]handlerEvent{rec.next(t)}))
			listsBefore, watchesBefore := informerCS.requests.configMapReads("default")

			p.admin(t, "close-watches")
			createConfigMap(t, cs, "default", "made-while-reconnecting", nil)

			assert.Equal(t, []string{"add made-while-reconnecting initial=false"}, summaries([]handlerEvent{rec.next(t)}))
			lists, watches := informerCS.requests.configMapReads("default")
			assert.Equal(t, listsBefore, lists, "no relist")
			assert.Equal(t, watchesBefore+1, watches, "one new watch")
			assert.Equal(t, serverState(t, cs, "default"), cacheState(inf))
		})
	}
}

// TestClientGoInformerRelistsAfterForcedGone makes changes that emit no
// watch event (fakeapi's silent writes: a delete, a create and an update),
// then compacts the history and closes every watch. client-go's reflector
// re-watches from its last resourceVersion, now older than the history,
// gets 410 Expired, relists, and its informer catches up: the object
// deleted while it was blind reaches OnDelete as a
// cache.DeletedFinalStateUnknown, the new one OnAdd, the changed one
// OnUpdate, survivors an OnUpdate with an unchanged resourceVersion, and
// the cache equals the server again. That the relist finds all three
// changes shows the silent writes emitted nothing.
// Diagram: steps 1-6. client-go: tools/cache.Reflector (410 -> relist), RealFIFO/DeltaFIFO.Replace (tombstones).
func TestClientGoInformerRelistsAfterForcedGone(t *testing.T) {
	for _, mode := range listModes {
		t.Run(mode.name, func(t *testing.T) {
			withWatchList(t, mode.watchList)
			p := startFakeapi(t)
			cs := newClientset(t, p)
			informerCS := newClientset(t, p)
			changed := createConfigMap(t, cs, "default", "changed", map[string]string{"v": "1"})
			gone := createConfigMap(t, cs, "default", "gone", map[string]string{"v": "1"})
			kept := createConfigMap(t, cs, "default", "kept", map[string]string{"v": "1"})
			rec := newRecorder()
			inf := startConfigMapInformer(t, informerCS, "default", rec)
			rec.collect(t, 3)
			live := createConfigMap(t, cs, "default", "live", nil)
			require.Equal(t, handlerEvent{Type: "add", Name: "live", RV: live.ResourceVersion}, rec.next(t))
			listsBefore, _ := informerCS.requests.configMapReads("default")

			silent := "/admin/silent/api/v1/namespaces/default/configmaps"
			code, body := p.do(t, http.MethodDelete, silent+"/gone", "", "")
			require.Equal(t, http.StatusOK, code, body)
			code, body = p.do(t, http.MethodPost, silent, "application/json",
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"born"},"data":{"v":"1"}}`)
			require.Equal(t, http.StatusCreated, code, body)
			code, body = p.do(t, http.MethodPatch, silent+"/changed", "application/merge-patch+json", `{"data":{"v":"2"}}`)
			require.Equal(t, http.StatusOK, code, body)
			p.admin(t, "compact")
			p.admin(t, "close-watches")

			relisted := rec.collect(t, 5)
			assert.Equal(t, []string{
				"add born initial=false",
				"update changed data=map[v:2]",
				"delete gone tombstone=true",
				"update kept data=map[v:1]",
				"update live data=map[]",
			}, summaries(relisted))
			assert.Equal(t, changed.ResourceVersion, relisted[1].OldRV, "the update starts from the state the informer knew")
			assert.Equal(t, gone.ResourceVersion, relisted[2].RV, "the tombstone holds the last state the informer knew")
			assert.Equal(t, kept.ResourceVersion, relisted[3].OldRV)
			assert.Equal(t, kept.ResourceVersion, relisted[3].RV, "a survivor's update has an unchanged resourceVersion")
			assert.Equal(t, serverState(t, cs, "default"), cacheState(inf))
			lists, _ := informerCS.requests.configMapReads("default")
			assert.Equal(t, listsBefore+1, lists, "exactly one relist")
			createConfigMap(t, cs, "default", "after", nil)
			assert.Equal(t, []string{"add after initial=false"}, summaries([]handlerEvent{rec.next(t)}), "watching again after the relist")
		})
	}
}

// TestClientGoInformerRetriesFailedInitialListsUntilSynced makes the
// first reads of a starting informer fail with 503 (fakeapi's fail-next
// fault). With the paginated list, client-go's reflector backs off and
// lists again until a list succeeds; with the streaming list, a failed
// streaming request makes it fall back to a paginated list at once. Either
// way the informer syncs with every object.
// Diagram: step 1. client-go: tools/cache.Reflector.ListAndWatchWithContext (backoff, watch-list fallback).
func TestClientGoInformerRetriesFailedInitialListsUntilSynced(t *testing.T) {
	tests := []struct {
		name      string
		watchList bool
		fault     string
		wantFirst []string // the informer's first reads, in order
	}{
		{"paginated list", false, "fail-next?verb=list&count=2&code=503", []string{"list", "list", "list"}},
		{"streaming list", true, "fail-next?verb=watch&count=1&code=503", []string{"stream", "list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withWatchList(t, tt.watchList)
			p := startFakeapi(t)
			cs := newClientset(t, p)
			informerCS := newClientset(t, p)
			createConfigMap(t, cs, "default", "a", nil)
			createConfigMap(t, cs, "default", "b", nil)

			p.admin(t, tt.fault)
			rec := newRecorder()
			inf := startConfigMapInformer(t, informerCS, "default", rec)

			assert.Equal(t, []string{"add a initial=true", "add b initial=true"}, summaries(rec.collect(t, 2)))
			reads := informerCS.requests.configMapReadKinds("default")
			require.GreaterOrEqual(t, len(reads), len(tt.wantFirst), "reads: %v", reads)
			assert.Equal(t, tt.wantFirst, reads[:len(tt.wantFirst)])
			code, body := p.do(t, http.MethodGet, "/admin/faults", "", "")
			require.Equal(t, http.StatusOK, code)
			var faults struct{ FailedRequests int }
			require.NoError(t, json.Unmarshal([]byte(body), &faults), body)
			assert.Equal(t, len(tt.wantFirst)-1, faults.FailedRequests)
			assert.Equal(t, serverState(t, cs, "default"), cacheState(inf))
		})
	}
}

// summaries describes handler calls without resourceVersions, which tests
// check separately where they matter.
func summaries(evs []handlerEvent) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		switch e.Type {
		case "add":
			out = append(out, fmt.Sprintf("add %s initial=%v", e.Name, e.IsInInitialList))
		case "update":
			out = append(out, fmt.Sprintf("update %s data=%v", e.Name, e.Data))
		case "delete":
			out = append(out, fmt.Sprintf("delete %s tombstone=%v", e.Name, e.Tombstone))
		}
	}
	return out
}
