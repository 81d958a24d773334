package fakeapitest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/samplecontroller"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
	fooPath  = "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/{ns}/foos"
)

// shardKind is one kind the comparison shards: where it lives, how to
// create one, how many, and whether its lists echo the selector.
type shardKind struct {
	name      string
	path      string
	body      func(i int) string
	count     int
	shardInfo bool
}

var shardKinds = []shardKind{
	{name: "ConfigMaps", path: cmPath, count: 40, shardInfo: true, body: func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%02d"}}`, i)
	}},
	{name: "Foos", path: fooPath, count: 20, shardInfo: false, body: func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"foo-%02d"},"spec":{"deploymentName":"d-%02d","replicas":1}}`, i, i)
	}},
}

// lowHalfOf is which objects the low half must hold: those whose uid's
// FNV-1a-64 hash is below 2^63, computed here from the uids each server
// assigned (the two servers give the same object different uids).
type halves struct{ low, high []string }

// created holds, per kind, the names in each half, by server.
func createShardObjects(t *testing.T, tg target, ns string, k shardKind) halves {
	t.Helper()
	var h halves
	for i := range k.count {
		a := answerOf(t, tg, row{method: "POST", path: k.path, contentType: "application/json", body: k.body(i)}, ns, "", "")
		require.Equal(t, http.StatusCreated, a.code, "%s: %s", tg.name, a.body)
		var obj struct{ Metadata struct{ Name, UID string } }
		require.NoError(t, json.Unmarshal(a.body, &obj))
		f := fnv.New64a()
		f.Write([]byte(obj.Metadata.UID))
		if f.Sum64() < 1<<63 {
			h.low = append(h.low, obj.Metadata.Name)
		} else {
			h.high = append(h.high, obj.Metadata.Name)
		}
	}
	sort.Strings(h.low)
	sort.Strings(h.high)
	return h
}

// shardList lists path with selector: the names, sorted, and
// metadata.shardInfo.selector ("" and false when absent).
func shardList(t *testing.T, tg target, ns, path, selector string) ([]string, string, bool) {
	t.Helper()
	a := answerOf(t, tg, row{method: "GET", path: path + "?shardSelector=" + url.QueryEscape(selector)}, ns, "", "")
	require.Equal(t, http.StatusOK, a.code, "%s: %s", tg.name, a.body)
	var list struct {
		Metadata struct {
			ShardInfo *struct{ Selector string }
		}
		Items []struct{ Metadata struct{ Name string } }
	}
	require.NoError(t, json.Unmarshal(a.body, &list))
	names := []string{}
	for _, it := range list.Items {
		names = append(names, it.Metadata.Name)
	}
	sort.Strings(names)
	if list.Metadata.ShardInfo == nil {
		return names, "", false
	}
	return names, list.Metadata.ShardInfo.Selector, true
}

// shardWatch opens a watch from "" (the current state as ADDED events) with
// selector, for one second, and returns the names it sent, sorted.
func shardWatch(t *testing.T, tg target, ns, path, selector string) []string {
	t.Helper()
	a := answerOf(t, tg, row{method: "GET", path: path + "?watch=true&timeoutSeconds=1&shardSelector=" + url.QueryEscape(selector)}, ns, "", "")
	require.Equal(t, http.StatusOK, a.code, "%s: %s", tg.name, a.body)
	names := []string{}
	for _, line := range eventsIn(a.body) {
		var ev struct {
			Type   string
			Object struct{ Metadata struct{ Name string } }
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		require.Equal(t, "ADDED", ev.Type, line)
		names = append(names, ev.Object.Metadata.Name)
	}
	sort.Strings(names)
	return names
}

// TestShardSelectorsAnswerLikeKubeAPIServer: the same objects (40
// ConfigMaps, 20 Foos) and the same shard selectors, sent to kube-apiserver
// and to fakeapi, once with the ShardedListAndWatch gate on and once with
// it off.
//
// Gate on: each server's two halves hold exactly the objects whose uid
// hashes into them, on list and on watch; ConfigMap lists echo the selector
// in metadata.shardInfo and Foo lists do not, on both; a bad selector is the
// same 500 with the same message, on list and on watch.
//
// Gate off (fakeapi with IgnoreShardSelector): both servers drop the
// parameter unread. Every selector, valid or not, is a 200 with every
// object and no shardInfo, and a watch with a selector sends every object,
// and then every event.
// Diagram: API. kube-apiserver: ShardedListAndWatch (KEP-5866), on and off.
func TestShardSelectorsAnswerLikeKubeAPIServer(t *testing.T) {
	t.Run("gate on", shardSelectorsWithTheGateOn)
	t.Run("gate off", shardSelectorsWithTheGateOff)
}

func shardSelectorsWithTheGateOn(t *testing.T) {
	cp := testenv.ControlPlane(t)
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	kube := target{name: "kube-apiserver", base: cp.URL, token: cp.Token, client: trusting(t, cp.CAPEM)}
	fake := startShardedFakeAPI(t, fakeapi.Options{NamespaceLifecycle: true})
	setup := answerOf(t, fake, row{method: "POST", path: "/api/v1/namespaces", contentType: "application/json",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`}, ns, "", "")
	require.Equal(t, http.StatusCreated, setup.code, string(setup.body))

	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %-16s %-22s %-22s\n", "kind", "server", "low half (list/watch)", "high half (list/watch)")
	for _, k := range shardKinds {
		for _, tg := range []target{kube, fake} {
			want := createShardObjects(t, tg, ns, k)

			lowList, lowInfo, lowHasInfo := shardList(t, tg, ns, k.path, lowHalf)
			highList, highInfo, highHasInfo := shardList(t, tg, ns, k.path, highHalf)
			lowWatch := shardWatch(t, tg, ns, k.path, lowHalf)
			highWatch := shardWatch(t, tg, ns, k.path, highHalf)
			fmt.Fprintf(&table, "%-12s %-16s %-22s %-22s\n", k.name, tg.name,
				fmt.Sprintf("%d/%d", len(lowList), len(lowWatch)), fmt.Sprintf("%d/%d", len(highList), len(highWatch)))

			assert.Equal(t, want.low, lowList, "%s %s: the low half's list", tg.name, k.name)
			assert.Equal(t, want.high, highList, "%s %s: the high half's list", tg.name, k.name)
			assert.Equal(t, want.low, lowWatch, "%s %s: the low half's watch", tg.name, k.name)
			assert.Equal(t, want.high, highWatch, "%s %s: the high half's watch", tg.name, k.name)
			assert.Equal(t, k.shardInfo, lowHasInfo, "%s %s: shardInfo on the low half's list", tg.name, k.name)
			assert.Equal(t, k.shardInfo, highHasInfo, "%s %s: shardInfo on the high half's list", tg.name, k.name)
			if k.shardInfo {
				assert.Equal(t, lowHalf, lowInfo, "%s %s: shardInfo echoes the selector", tg.name, k.name)
				assert.Equal(t, highHalf, highInfo, "%s %s: shardInfo echoes the selector", tg.name, k.name)
			}
		}
	}
	t.Logf("the same shard selectors, side by side:\n%s", table.String())

	for _, r := range shardErrorRows() {
		realAnswer := answerOf(t, kube, r, ns, "", "")
		fakeAnswer := answerOf(t, fake, r, ns, "", "")

		assert.Equal(t, r.code, realAnswer.code, "%s: kube-apiserver: %s", r.name, realAnswer.body)
		assert.Equal(t, realAnswer.code, fakeAnswer.code, "%s: fakeapi: %s", r.name, fakeAnswer.body)
		assert.Equal(t, realAnswer.reason, fakeAnswer.reason, "%s: reason", r.name)
		if r.sameMessage {
			assert.Equal(t, realAnswer.message, fakeAnswer.message, "%s: message", r.name)
		}
	}

	for _, tg := range []target{kube, fake} {
		h, got := watchLateConfigMaps(t, tg, ns, lowHalf)
		assert.Equal(t, h.low, got, "%s: a watch of the low half sends the events of the low half's new ConfigMaps", tg.name)
	}
}

// shardErrorRows are selectors both servers refuse, or accept in a form
// other than the canonical one.
func shardErrorRows() []row {
	q := func(path, sel, extra string) string { return path + "?shardSelector=" + url.QueryEscape(sel) + extra }
	rows := []row{
		{name: "parenthesised, double-quoted", path: q(cmPath, `(shardRange(object.metadata.uid,"0x0000000000000000","0x8000000000000000"))`, ""), code: 200},
		{name: "namespace field, up to 2^64", path: q(fooPath, "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')", ""), code: 200},
		{name: "empty selector: none", path: cmPath + "?shardSelector=", code: 200},
	}
	bad := map[string]string{
		"malformed (unclosed call)":      "shardRange(object.metadata.uid, '0x0000000000000000'",
		"unsupported field":              "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
		"short hex bound":                "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
		"start not below end":            "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
		"&& instead of ||":               lowHalf + " && " + highHalf,
		"two fields":                     lowHalf + " || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
		"an integer bound":               "shardRange(object.metadata.uid, 0, 8)",
		"an identifier bound":            "shardRange(object.metadata.uid, x, '0x8000000000000000')",
		"a comparison":                   "object.metadata.uid > '0x0'",
		"blank":                          "  ",
		"hex with capitals":              "shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')",
		"four arguments":                 "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000', '0x1')",
		"a field path that is a literal": "shardRange('uid', '0x0000000000000000', '0x8000000000000000')",
		"17 digits other than 2^64":      "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
		"not a call at all":              "object.metadata.uid",
		"another function":               "hash(object.metadata.uid)",
		"a receiver call":                "object.metadata.uid.shardRange('0x0000000000000000', '0x8000000000000000')",
		"a field path of 251 selections": "shardRange(object" + strings.Repeat(".m", 251) + ", '0x0000000000000000', '0x8000000000000000')",
		"over 100,000 characters":        "shardRange(object" + strings.Repeat(".m", 60_000) + ", '0x0000000000000000', '0x8000000000000000')",
	}
	names := make([]string, 0, len(bad))
	for n := range bad {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rows = append(rows,
			row{name: "list, " + n, path: q(cmPath, bad[n], ""), code: 500, sameMessage: true},
			row{name: "watch, " + n, path: q(fooPath, bad[n], "&watch=true&timeoutSeconds=1"), code: 500, sameMessage: true},
		)
	}
	return rows
}

// shardSelectorsWithTheGateOff sends the gate-on side's objects and
// selectors to kube-apiserver with the gate off and to fakeapi with
// IgnoreShardSelector: each must answer every one, list or watch, with
// every object and no shardInfo.
func shardSelectorsWithTheGateOff(t *testing.T) {
	cp := testenv.GateOff(t)
	testenv.InstallFooCRDOn(t, cp)
	ns := testenv.NamespaceOn(t, cp)
	kube := target{name: "kube-apiserver", base: cp.URL, token: cp.Token, client: trusting(t, cp.CAPEM)}
	fake := startShardedFakeAPI(t, fakeapi.Options{NamespaceLifecycle: true, IgnoreShardSelector: true})
	setup := answerOf(t, fake, row{method: "POST", path: "/api/v1/namespaces", contentType: "application/json",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`}, ns, "", "")
	require.Equal(t, http.StatusCreated, setup.code, string(setup.body))

	every := map[string]map[string][]string{} // server -> path -> every name, sorted
	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %-16s %-22s %-22s\n", "kind", "server", "low half (list/watch)", "high half (list/watch)")
	for _, k := range shardKinds {
		for _, tg := range []target{kube, fake} {
			h := createShardObjects(t, tg, ns, k)
			all := append(append([]string{}, h.low...), h.high...)
			sort.Strings(all)
			if every[tg.name] == nil {
				every[tg.name] = map[string][]string{}
			}
			every[tg.name][k.path] = all

			lowList, _, lowHasInfo := shardList(t, tg, ns, k.path, lowHalf)
			highList, _, highHasInfo := shardList(t, tg, ns, k.path, highHalf)
			lowWatch := shardWatch(t, tg, ns, k.path, lowHalf)
			highWatch := shardWatch(t, tg, ns, k.path, highHalf)
			fmt.Fprintf(&table, "%-12s %-16s %-22s %-22s\n", k.name, tg.name,
				fmt.Sprintf("%d/%d", len(lowList), len(lowWatch)), fmt.Sprintf("%d/%d", len(highList), len(highWatch)))

			assert.Equal(t, all, lowList, "%s %s: the low half's list is every object", tg.name, k.name)
			assert.Equal(t, all, highList, "%s %s: the high half's list is every object", tg.name, k.name)
			assert.Equal(t, all, lowWatch, "%s %s: the low half's watch is every object", tg.name, k.name)
			assert.Equal(t, all, highWatch, "%s %s: the high half's watch is every object", tg.name, k.name)
			assert.False(t, lowHasInfo, "%s %s: no shardInfo on the low half's list", tg.name, k.name)
			assert.False(t, highHasInfo, "%s %s: no shardInfo on the high half's list", tg.name, k.name)
		}
	}
	t.Logf("the same shard selectors, gate off, side by side:\n%s", table.String())

	// The selectors the gate-on side refuses or rewrites: here each is a 200
	// with every object, on list and on watch.
	for _, r := range shardErrorRows() {
		for _, tg := range []target{kube, fake} {
			a := answerOf(t, tg, r, ns, "", "")
			if !assert.Equal(t, http.StatusOK, a.code, "%s: %s: %s", r.name, tg.name, a.body) {
				continue
			}
			path, _, _ := strings.Cut(r.path, "?")
			var names []string
			hasInfo := false
			if strings.Contains(r.path, "watch=true") {
				names = watchedNames(t, a.body)
			} else {
				names, hasInfo = listedNames(t, a.body)
			}
			assert.Equal(t, every[tg.name][path], names, "%s: %s: every object", r.name, tg.name)
			assert.False(t, hasInfo, "%s: %s: no shardInfo", r.name, tg.name)
		}
	}

	for _, tg := range []target{kube, fake} {
		h, got := watchLateConfigMaps(t, tg, ns, lowHalf)
		all := append(append([]string{}, h.low...), h.high...)
		sort.Strings(all)
		assert.Equal(t, all, got, "%s: a watch of the low half sends the events of every new ConfigMap", tg.name)
	}
}

// watchLateConfigMaps creates 8 ConfigMaps (late-0 to late-7) in ns after
// the current resourceVersion, then watches from that version with
// selector: it returns the halves the new ConfigMaps' uids fall in, and the
// names of the ADDED events the watch sent, sorted. These are events of
// changes, where the watches of shardWatch only replay the current state.
func watchLateConfigMaps(t *testing.T, tg target, ns, selector string) (halves, []string) {
	t.Helper()
	rv := currentRV(t, tg, ns)
	late := shardKind{name: "late ConfigMaps", path: cmPath, count: 8, body: func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late-%d"}}`, i)
	}}
	h := createShardObjects(t, tg, ns, late)
	a := answerOf(t, tg, row{method: "GET", path: cmPath + "?watch=true&timeoutSeconds=1&resourceVersion=" + rv +
		"&shardSelector=" + url.QueryEscape(selector)}, ns, "", "")
	require.Equal(t, http.StatusOK, a.code, "%s: %s", tg.name, a.body)
	return h, watchedNames(t, a.body)
}

// listedNames returns the names of a list's items, sorted, and whether the
// list carries metadata.shardInfo.
func listedNames(t *testing.T, body []byte) ([]string, bool) {
	t.Helper()
	var list struct {
		Metadata struct{ ShardInfo *struct{ Selector string } }
		Items    []struct{ Metadata struct{ Name string } }
	}
	require.NoError(t, json.Unmarshal(body, &list))
	names := []string{}
	for _, it := range list.Items {
		names = append(names, it.Metadata.Name)
	}
	sort.Strings(names)
	return names, list.Metadata.ShardInfo != nil
}

// watchedNames returns the names of a watch stream's ADDED events, sorted.
func watchedNames(t *testing.T, body []byte) []string {
	t.Helper()
	names := []string{}
	for _, line := range eventsIn(body) {
		var ev struct {
			Type   string
			Object struct{ Metadata struct{ Name string } }
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		require.Equal(t, "ADDED", ev.Type, line)
		names = append(names, ev.Object.Metadata.Name)
	}
	sort.Strings(names)
	return names
}

// startShardedFakeAPI is startFakeAPI with opts and Foos registered, as the
// Foo CRD makes kube-apiserver serve them.
func startShardedFakeAPI(t *testing.T, opts fakeapi.Options) target {
	srv := fakeapi.New(opts)
	require.NoError(t, samplecontroller.Register(srv))
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return target{name: "fakeapi", base: ts.URL, client: ts.Client()}
}
