package reflector_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// shardRange writes one range of the uid hash space as the grammar wants it.
func shardRange(start, end string) string {
	return fmt.Sprintf("shardRange(object.metadata.uid, '%s', '%s')", start, end)
}

const (
	q0 = "0x0000000000000000"
	q1 = "0x4000000000000000"
	q2 = "0x8000000000000000"
	q3 = "0xc000000000000000"
	q4 = "0x10000000000000000"
)

// TestWideningIsWhatTheNewSelectionAdds: a gained-only list serves a
// change of one selector that keeps everything it selected: a shard
// selector that keeps every range, or a label selector of one "in" that
// keeps every value (or becomes ""). Its selectors are exactly the added
// part. Anything else (a range or value given up, another field or key,
// both selectors changed, no selector before) needs a full relist.
// Diagram: step 1.
func TestWideningIsWhatTheNewSelectionAdds(t *testing.T) {
	low, high := shardRange(q0, q2), shardRange(q2, q4)
	const nothing = "nothing"
	for _, tc := range []struct {
		name, from, fromLabel, to, toLabel string
		shard, label                       string
		ok                                 bool
	}{
		{name: "a quarter added after the low half", from: low, to: shardRange(q0, q3), shard: shardRange(q2, q3), ok: true},
		{name: "everything after the low half", from: low, to: "", shard: high, ok: true},
		{name: "a hole filled", from: shardRange(q0, q1) + " || " + shardRange(q2, q4), to: "", shard: shardRange(q1, q2), ok: true},
		{name: "two ranges added around one", from: shardRange(q1, q2), to: shardRange(q0, q3), shard: shardRange(q0, q1) + " || " + shardRange(q2, q3), ok: true},
		{name: "the same objects written as two adjacent ranges", from: low, to: shardRange(q0, q1) + " || " + shardRange(q1, q2), shard: nothing, label: nothing, ok: true},
		{name: "the label selector kept", from: low, fromLabel: "tier=web", to: "", toLabel: "tier=web", shard: high, label: "tier=web", ok: true},
		{name: "a narrowing", from: low, to: shardRange(q0, q1)},
		{name: "a move to the other half", from: low, to: high},
		{name: "a mixed change", from: low, to: shardRange(q1, q3)},
		{name: "everything before", from: "", to: low},
		{name: "another field", from: low, to: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')"},

		{name: "label values added", from: low, fromLabel: "b in (1,3)", to: low, toLabel: "b in (1,2,3,4)", shard: low, label: "b in (2,4)", ok: true},
		{name: "a label value added to an equality", fromLabel: "b=1", toLabel: "b in (1,2)", label: "b in (2)", ok: true},
		{name: "every label after some", fromLabel: "b in (1,2)", toLabel: "", label: "b notin (1,2)", ok: true},
		{name: "the same label values reordered", fromLabel: "b in (1,2)", toLabel: "b in (2,1)", shard: nothing, label: nothing, ok: true},
		{name: "a label value given up", fromLabel: "b in (1,2)", toLabel: "b in (2,3)"},
		{name: "another label key", fromLabel: "b in (1)", toLabel: "c in (1,2)"},
		{name: "a label selector of two requirements", fromLabel: "b in (1),tier=web", toLabel: "b in (1,2),tier=web"},
		{name: "a label selector that is not an in", fromLabel: "b notin (1)", toLabel: ""},
		{name: "a label selector added", fromLabel: "", toLabel: "b in (1)"},
		{name: "both selectors changed", from: low, fromLabel: "b in (1)", to: "", toLabel: "b in (1,2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shard, label, ok := reflector.Widening(tc.from, tc.fromLabel, tc.to, tc.toLabel)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.shard, shard, "the gained part's shard selector")
			assert.Equal(t, tc.label, label, "the gained part's label selector")
		})
	}
}

// optsLW passes every call to a real ListerWatcher and records the options
// of every list; before a list of what a widening gained
// (resourceVersionMatch=NotOlderThan) it runs beforeGained once.
type optsLW struct {
	inner reflector.ListerWatcher

	mu           sync.Mutex
	lists        []metav1.ListOptions
	beforeGained func()
}

func (l *optsLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l.mu.Lock()
	l.lists = append(l.lists, opts)
	hook := l.beforeGained
	if opts.ResourceVersionMatch == metav1.ResourceVersionMatchNotOlderThan {
		l.beforeGained = nil
	} else {
		hook = nil
	}
	l.mu.Unlock()
	if hook != nil {
		hook()
	}
	return l.inner.List(ctx, opts)
}

func (l *optsLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.inner.Watch(ctx, opts)
}

func (l *optsLW) takeLists() []metav1.ListOptions {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lists
	l.lists = nil
	return out
}

// shardEnv is a sharded Reflector on 40 ConfigMaps of a fakeapi server,
// with the keys of each half of the uid hash range computed here.
type shardEnv struct {
	srv       *fakeapi.Server
	cms       *fakeapi.ResourceClient
	lw        *optsLW
	store     *recordingStore
	r         *reflector.Reflector
	low, high []string // names, sorted
}

func startSharded(t *testing.T, srvOpts fakeapi.Options, shard string) *shardEnv {
	t.Helper()
	srv := fakeapi.New(srvOpts)
	t.Cleanup(srv.Close)
	e := &shardEnv{srv: srv, cms: srv.Resource(configMapsGVR).Namespace("ns"), store: &recordingStore{}}
	for i := range 40 {
		name := fmt.Sprintf("cm-%02d", i)
		cm, err := e.cms.Create(t.Context(), configMap("ns", name), metav1.CreateOptions{})
		require.NoError(t, err)
		m, _ := meta.Accessor(cm)
		h := fnv.New64a()
		h.Write([]byte(m.GetUID()))
		if h.Sum64() < 1<<63 {
			e.low = append(e.low, name)
		} else {
			e.high = append(e.high, name)
		}
	}
	e.lw = &optsLW{inner: e.cms}
	e.r = reflector.New(e.lw, expectedConfigMap(), e.store, reflector.Options{ShardSelector: shard, Logger: discard()})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.r.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	waitBubble()
	return e
}

// update writes a new value into ConfigMap ns/name.
func (e *shardEnv) update(t *testing.T, name, value string) {
	t.Helper()
	cm, err := e.cms.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	u := cm.(interface{ SetAnnotations(map[string]string) })
	u.SetAnnotations(map[string]string{"v": value})
	_, err = e.cms.Update(context.Background(), cm, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// view applies the recorded Store calls to a map: name → resourceVersion.
func view(ops []string, into map[string]string) {
	for _, op := range ops {
		verb, rest, _ := strings.Cut(op, " ")
		if strings.HasPrefix(verb, "replace@") {
			clear(into)
			for _, it := range strings.Fields(strings.Trim(rest, "[]")) {
				name, rv, _ := strings.Cut(strings.TrimPrefix(it, "ns/"), "@")
				into[name] = rv
			}
			continue
		}
		name, rv, _ := strings.Cut(strings.TrimPrefix(rest, "ns/"), "@")
		switch verb {
		case "add", "update":
			into[name] = rv
		case "delete":
			delete(into, name)
		}
	}
}

// serverView is what the server holds: name → resourceVersion.
func (e *shardEnv) serverView(t *testing.T) map[string]string {
	t.Helper()
	return listView(t, e.cms, metav1.ListOptions{})
}

// listView is what a list with opts returns: name → resourceVersion.
func listView(t *testing.T, cms *fakeapi.ResourceClient, opts metav1.ListOptions) map[string]string {
	t.Helper()
	list, err := cms.List(context.Background(), opts)
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	out := map[string]string{}
	for _, it := range items {
		m, _ := meta.Accessor(it)
		out[m.GetName()] = m.GetResourceVersion()
	}
	return out
}

// TestShardSelectorThatWidensListsOnlyWhatItGained: a Reflector caching
// the low half is widened to every object. It lists only the high half, at
// the resourceVersion its Store is at or newer, adds those objects one by
// one (no Replace: the low half is not listed again), and watches on from
// the Store's resourceVersion. Writes made between the end of the old watch
// and the gained list, to either half, arrive: the high half's in the list,
// and their replay by the watch is skipped (no object goes back to an older
// version); the low half's as watch events. The Store ends as the server is.
// Diagram: steps 1-2. client-go: none (it relists on any change of selector).
func TestShardSelectorThatWidensListsOnlyWhatItGained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startSharded(t, fakeapi.Options{}, shardRange(q0, q2))
		first := e.lw.takeLists()
		require.Len(t, first, 1)
		ops := e.store.take()
		require.Len(t, ops, 1)
		got := map[string]string{}
		view(ops, got)
		assert.Equal(t, e.low, slices.Sorted(maps.Keys(got)), "the first list is the low half")
		e.update(t, e.low[0], "before") // an event the Store is at
		waitBubble()
		storeRV := fmt.Sprint(e.srv.CurrentResourceVersion())
		view(e.store.take(), got)

		e.lw.beforeGained = func() {
			e.update(t, e.low[1], "during")
			e.update(t, e.high[0], "during")
			e.update(t, e.high[0], "during, again")
		}
		require.NoError(t, e.r.SetShardSelector(""))
		waitBubble()

		lists := e.lw.takeLists()
		require.Len(t, lists, 1, "one list for the widening")
		assert.Equal(t, metav1.ListOptions{ResourceVersion: storeRV, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			ShardSelector: shardRange(q2, q4)}, lists[0], "the high half alone, at the Store's resourceVersion or newer")
		ops = e.store.take()
		var adds []string
		for _, op := range ops {
			require.False(t, strings.HasPrefix(op, "replace"), "no Replace: %v", ops)
			if name, ok := strings.CutPrefix(op, "add ns/"); ok {
				adds = append(adds, name[:strings.IndexByte(name, '@')])
			}
		}
		slices.Sort(adds)
		assert.Equal(t, e.high, adds, "each gained object added once")
		assert.Empty(t, backInTime(ops), "the watch's replay of what the list already brought is skipped")
		view(ops, got)
		assert.Equal(t, e.serverView(t), got, "the Store holds every object at the server's version, the writes made during the widening included")

		e.update(t, e.high[1], "after")
		waitBubble()
		view(e.store.take(), got)
		assert.Equal(t, e.serverView(t), got, "the watch carries the new selector")
		require.NoError(t, e.r.CheckInvariants())
	})
}

// TestShardSelectorWideningFallsBackToAFullRelist: when the list of what
// was gained fails, the Reflector relists the whole new shard, and Replace
// brings the Store to the server's state, as it would without the
// gained-only path.
// Diagram: steps 1-2.
func TestShardSelectorWideningFallsBackToAFullRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startSharded(t, fakeapi.Options{}, shardRange(q0, q2))
		e.lw.takeLists()
		got := map[string]string{}
		view(e.store.take(), got)
		e.lw.beforeGained = func() {
			e.update(t, e.high[0], "during")
			require.NoError(t, e.srv.FailNext("list", 1, 500))
		}

		require.NoError(t, e.r.SetShardSelector(""))
		waitBubble()

		lists := e.lw.takeLists()
		require.Len(t, lists, 2, "the failed list of what was gained, then a full one")
		assert.Equal(t, shardRange(q2, q4), lists[0].ShardSelector)
		assert.Empty(t, lists[1].ShardSelector, "the full relist is of the whole new shard")
		ops := e.store.take()
		require.NotEmpty(t, ops)
		assert.True(t, strings.HasPrefix(ops[0], "replace@"), "the relist replaced the Store: %v", ops)
		view(ops, got)
		assert.Equal(t, e.serverView(t), got)
		require.NoError(t, e.r.CheckInvariants())
	})
}

// backInTime returns the Store calls that gave an object an older
// resourceVersion than a call before it had.
func backInTime(ops []string) []string {
	seen := map[string]int{}
	var bad []string
	for _, op := range ops {
		_, rest, _ := strings.Cut(op, " ")
		if strings.HasPrefix(op, "replace@") {
			continue
		}
		name, rv, _ := strings.Cut(rest, "@")
		n, err := strconv.Atoi(rv)
		if err != nil {
			continue
		}
		if n < seen[name] {
			bad = append(bad, op)
		}
		seen[name] = n
	}
	return bad
}

// TestShardSelectorWideningOnAServerThatIgnoresSelectors: with the
// server's ShardedListAndWatch gate off, the gained-only list returns every
// object. The Reflector adds only the gained ones: the objects the Store
// already holds are not added a second time.
// Diagram: steps 1-2. kube-apiserver: ShardedListAndWatch off.
func TestShardSelectorWideningOnAServerThatIgnoresSelectors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startSharded(t, fakeapi.Options{IgnoreShardSelector: true}, shardRange(q0, q2))
		got := map[string]string{}
		view(e.store.take(), got)
		require.Equal(t, e.low, slices.Sorted(maps.Keys(got)), "the client-side check keeps the low half")

		require.NoError(t, e.r.SetShardSelector(""))
		waitBubble()

		ops := e.store.take()
		var adds []string
		for _, op := range ops {
			name, ok := strings.CutPrefix(op, "add ns/")
			require.True(t, ok, "only adds: %v", ops)
			adds = append(adds, name[:strings.IndexByte(name, '@')])
		}
		slices.Sort(adds)
		assert.Equal(t, e.high, adds, "each gained object added once, no held one again")
		view(ops, got)
		assert.Equal(t, e.serverView(t), got)
	})
}

// relabel sets label b of ConfigMap ns/name.
func relabel(t *testing.T, cms *fakeapi.ResourceClient, name, b string) {
	t.Helper()
	obj, err := cms.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	m, _ := meta.Accessor(obj)
	m.SetLabels(map[string]string{"b": b})
	_, err = cms.Update(context.Background(), obj, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// TestLabelSelectorThatWidensListsOnlyWhatItGained: a Reflector caching
// the objects labelled b in (1) is widened to b in (1,2). It lists only
// b in (2), at its Store's resourceVersion or newer, with no Replace. Labels
// change, unlike uids: objects relabelled between the old watch's end and
// that list (2 to 3, 3 to 2, 1 to 3) reach the Store through the new watch,
// and it ends as the server's b in (1,2).
// Diagram: steps 1-2. client-go: none (it relists on any change of selector).
func TestLabelSelectorThatWidensListsOnlyWhatItGained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{})
		t.Cleanup(srv.Close)
		cms := srv.Resource(configMapsGVR).Namespace("ns")
		for i := range 12 {
			cm := configMap("ns", fmt.Sprintf("cm-%02d", i))
			cm.SetLabels(map[string]string{"b": fmt.Sprint(1 + i%3)})
			_, err := cms.Create(t.Context(), cm, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		lw := &optsLW{inner: cms}
		store := &recordingStore{}
		r := reflector.New(lw, expectedConfigMap(), store, reflector.Options{LabelSelector: "b in (1)", Logger: discard()})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); r.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		waitBubble()
		got := map[string]string{}
		view(store.take(), got)
		require.Equal(t, []string{"cm-00", "cm-03", "cm-06", "cm-09"}, slices.Sorted(maps.Keys(got)))
		lw.takeLists()
		storeRV := fmt.Sprint(srv.CurrentResourceVersion())
		lw.beforeGained = func() {
			relabel(t, cms, "cm-01", "3")          // gained at the Store's version, gone since
			relabel(t, cms, "cm-02", "2")          // not gained then, gained since
			relabel(t, cms, "cm-03", "3")          // held, gone since
			for _, v := range []string{"x", "y"} { // gained (b=2), and changed twice
				obj, err := cms.Get(context.Background(), "cm-04", metav1.GetOptions{})
				require.NoError(t, err)
				m, _ := meta.Accessor(obj)
				m.SetAnnotations(map[string]string{"v": v})
				_, err = cms.Update(context.Background(), obj, metav1.UpdateOptions{})
				require.NoError(t, err)
			}
		}

		require.NoError(t, r.SetLabelSelector("b in (1,2)"))
		waitBubble()

		lists := lw.takeLists()
		require.Len(t, lists, 1)
		assert.Equal(t, metav1.ListOptions{ResourceVersion: storeRV, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			LabelSelector: "b in (2)"}, lists[0], "b in (2) alone, at the Store's resourceVersion or newer")
		ops := store.take()
		for _, op := range ops {
			require.False(t, strings.HasPrefix(op, "replace"), "no Replace: %v", ops)
		}
		assert.Empty(t, backInTime(ops), "the watch's replay of what the list already brought is skipped")
		view(ops, got)
		assert.Equal(t, listView(t, cms, metav1.ListOptions{LabelSelector: "b in (1,2)"}), got,
			"the Store is the server's b in (1,2), relabelled objects included")
		require.NoError(t, r.CheckInvariants())
	})
}
