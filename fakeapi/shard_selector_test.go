package fakeapi_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/url"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
)

var gizmos = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gizmos"}

// inLowHalf computes, independently of the server, whether uid's 64-bit
// FNV-1a hash is below 2^63.
func inLowHalf(uid string) bool {
	h := fnv.New64a()
	h.Write([]byte(uid))
	return h.Sum64() < 1<<63
}

// shardInfoOf is a list's metadata.shardInfo.selector, and whether it is there.
func shardInfoOf(t *testing.T, list *unstructured.UnstructuredList) (string, bool) {
	t.Helper()
	s, found, err := unstructured.NestedString(list.Object, "metadata", "shardInfo", "selector")
	require.NoError(t, err)
	return s, found
}

// splitList lists the two halves of the uid range and checks that they
// partition every object by hash.
func splitList(t *testing.T, c *fakeapi.ResourceClient, total int, wantShardInfo bool) (low, high int) {
	t.Helper()
	seen := map[string]bool{}
	for _, half := range []string{lowHalf, highHalf} {
		out, err := c.List(context.Background(), metav1.ListOptions{ShardSelector: half})
		require.NoError(t, err)
		list := out.(*unstructured.UnstructuredList)
		for _, it := range list.Items {
			assert.Equal(t, half == lowHalf, inLowHalf(string(it.GetUID())), "%s is in the wrong half", it.GetName())
			assert.False(t, seen[it.GetName()], "%s is in both halves", it.GetName())
			seen[it.GetName()] = true
		}
		if half == lowHalf {
			low = len(list.Items)
		} else {
			high = len(list.Items)
		}
		info, found := shardInfoOf(t, list)
		assert.Equal(t, wantShardInfo, found, "metadata.shardInfo")
		if wantShardInfo {
			assert.Equal(t, half, info)
		}
	}
	assert.Len(t, seen, total, "the two halves together hold every object")
	return low, high
}

// TestShardSelectorSplitsAListIntoDisjointHalvesWithShardInfo: 40
// ConfigMaps, listed as the two halves of the uid hash range, come back
// split by FNV-1a(uid), every one in exactly one half, and each list echoes
// its selector in metadata.shardInfo.
// Diagram: API. kube-apiserver: ShardedListAndWatch, ListMeta.ShardInfo.
func TestShardSelectorSplitsAListIntoDisjointHalvesWithShardInfo(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	for i := range 40 {
		mustCreate(t, cms, configMap("default", fmt.Sprintf("cm-%02d", i)))
	}

	low, high := splitList(t, cms, 40, true)

	t.Logf("40 ConfigMaps split %d + %d", low, high)
	assert.NotZero(t, low)
	assert.NotZero(t, high)
}

// TestShardSelectorFiltersCustomResourcesWithoutShardInfo: a custom
// resource's list is filtered just the same, but carries no shardInfo, as
// measured on kube-apiserver.
// Diagram: API. kube-apiserver: ShardedListAndWatch on a CRD.
func TestShardSelectorFiltersCustomResourcesWithoutShardInfo(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: gizmos, Kind: "Gizmo", Namespaced: true}))
	gs := s.Resource(gizmos).Namespace("default")
	for i := range 20 {
		mustCreate(t, gs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": fmt.Sprintf("g-%02d", i)}}})
	}

	low, high := splitList(t, gs, 20, false)
	t.Logf("20 Gizmos listed as two halves: %d and %d, with no metadata.shardInfo", low, high)
}

// TestShardSelectorPagesCarryShardInfoAndNoRemainingCount: a paginated
// sharded list serves only its half, page after page, and like any
// filtered list does not count what is left.
// Diagram: API. kube-apiserver: pagination with a shard selector.
func TestShardSelectorPagesCarryShardInfoAndNoRemainingCount(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	want := 0
	for i := range 20 {
		cm := mustCreate(t, cms, configMap("default", fmt.Sprintf("cm-%02d", i)))
		if inLowHalf(string(cm.GetUID())) {
			want++
		}
	}

	got, opts := 0, metav1.ListOptions{ShardSelector: lowHalf, Limit: 3}
	for {
		out, err := cms.List(context.Background(), opts)
		require.NoError(t, err)
		list := out.(*unstructured.UnstructuredList)
		got += len(list.Items)
		assert.Nil(t, list.GetRemainingItemCount())
		info, _ := shardInfoOf(t, list)
		assert.Equal(t, lowHalf, info)
		if list.GetContinue() == "" {
			break
		}
		opts.Continue = list.GetContinue()
	}

	assert.Equal(t, want, got)
}

// TestShardSelectorFiltersWatchEvents: a watch of one half receives the
// events of that half's objects only, for their whole life.
// Diagram: API. kube-apiserver: ShardedListAndWatch on watch.
func TestShardSelectorFiltersWatchEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(context.Background(), metav1.ListOptions{ShardSelector: lowHalf, ResourceVersion: fmt.Sprint(s.CurrentResourceVersion())})
		require.NoError(t, err)
		defer w.Stop()

		var want []string
		for i := range 20 {
			cm := mustCreate(t, cms, configMap("default", fmt.Sprintf("cm-%02d", i)))
			cm.SetLabels(map[string]string{"touched": "yes"})
			_, err := cms.Update(context.Background(), cm, metav1.UpdateOptions{})
			require.NoError(t, err)
			require.NoError(t, cms.Delete(context.Background(), cm.GetName(), metav1.DeleteOptions{}))
			if inLowHalf(string(cm.GetUID())) {
				want = append(want, "ADDED "+cm.GetName(), "MODIFIED "+cm.GetName(), "DELETED "+cm.GetName())
			}
		}

		var got []string
		for range want {
			ev := next(t, w)
			u := ev.Object.(*unstructured.Unstructured)
			got = append(got, string(ev.Type)+" "+u.GetName())
		}
		assert.Equal(t, want, got)
		expectQuiet(t, w)
	})
}

// TestIgnoreShardSelectorServesEverythingWithoutShardInfo: a server without
// the gate drops the parameter: every object, no shardInfo, even for a bad
// expression.
// Diagram: API. kube-apiserver: ShardedListAndWatch off (the default).
func TestIgnoreShardSelectorServesEverythingWithoutShardInfo(t *testing.T) {
	s := newServer(t, fakeapi.Options{IgnoreShardSelector: true})
	cms := s.Resource(configMaps).Namespace("default")
	for i := range 10 {
		mustCreate(t, cms, configMap("default", fmt.Sprintf("cm-%02d", i)))
	}

	for _, sel := range []string{lowHalf, "not a selector ("} {
		out, err := cms.List(context.Background(), metav1.ListOptions{ShardSelector: sel})
		require.NoError(t, err)
		list := out.(*unstructured.UnstructuredList)
		assert.Len(t, list.Items, 10)
		_, found := shardInfoOf(t, list)
		assert.False(t, found)
		w, err := cms.Watch(context.Background(), metav1.ListOptions{ShardSelector: sel})
		require.NoError(t, err)
		w.Stop()
	}
}

// TestShardSelectorOverHTTP: the wire form of a sharded list, and the
// real server's bare 500 for a bad selector, on list and on watch, before
// any other check of the request.
// Diagram: API. kube-apiserver: shard selector decoding.
func TestShardSelectorOverHTTP(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	for i := range 6 {
		mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", fmt.Sprintf("cm-%d", i)))
	}
	path := "/api/v1/namespaces/default/configmaps?shardSelector="

	resp, data := do(t, ts, "GET", path+url.QueryEscape(`(shardRange(object.metadata.uid,"0x0000000000000000","0x8000000000000000"))`), "")
	require.Equal(t, 200, resp.StatusCode, string(data))
	md := asMap(t, data)["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"selector": lowHalf}, md["shardInfo"], "the canonical form is echoed")

	for _, suffix := range []string{"", "&watch=true", "&resourceVersionMatch=Bogus"} {
		resp, data = do(t, ts, "GET", path+url.QueryEscape("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')")+suffix, "")
		st := requireStatus(t, resp, data, 500, "")
		assert.Equal(t, `invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`, st.Message)
	}
	resp, data = do(t, ts, "GET", path+"&watch=true&timeoutSeconds=1", "")
	assert.Equal(t, 200, resp.StatusCode, "an empty shardSelector is no selector: %s", data)
}
