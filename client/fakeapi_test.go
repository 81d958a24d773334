package client_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/reflector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// A client ResourceClient is a reflector.ListerWatcher as it stands.
var _ reflector.ListerWatcher = (*client.ResourceClient)(nil)

// newFakeAPI serves a fresh fakeapi.Server over HTTP and returns it with a Client.
func newFakeAPI(t *testing.T, scheme *runtime.Scheme) (*fakeapi.Server, *client.Client) {
	t.Helper()
	api := fakeapi.New(fakeapi.Options{})
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(api.Close) // runs first: ends open watches so srv.Close does not wait on them
	c, err := client.New(&client.Config{Server: srv.URL}, scheme)
	require.NoError(t, err)
	return api, c
}

// nextEvent returns the next non-bookmark event, failing after waitLimit.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "watch closed early")
			if ev.Type != watch.Bookmark {
				return ev
			}
		case <-deadline:
			t.Fatal("no event within the limit")
		}
	}
}

// TestClientAgainstFakeAPIOverHTTP runs every verb against fakeapi's HTTP handler with
// typed objects and checks that the watch reports each write, in order.
// Diagram: step 1. client-go: dynamic client against kube-apiserver.
func TestClientAgainstFakeAPIOverHTTP(t *testing.T) {
	_, c := newFakeAPI(t, newScheme())
	cms := c.Resource(configMaps).Namespace("demo")
	ctx := context.Background()
	created, err := cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	list, err := cms.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	cmList, ok := list.(*ConfigMapList)
	require.True(t, ok, "got %T", list)
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cmList.ResourceVersion, AllowWatchBookmarks: true})
	require.NoError(t, err)
	defer w.Stop()

	a := created.(*ConfigMap)
	a.Data["v"] = "2"
	updated, err := cms.Update(ctx, a, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, staleErr := cms.Update(ctx, a, metav1.UpdateOptions{})
	_, err = cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, dupErr := cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	patched, err := cms.Patch(ctx, "b", types.MergePatchType, []byte(`{"data":{"p":"x"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "a", metav1.DeleteOptions{}))
	_, getErr := cms.Get(ctx, "a", metav1.GetOptions{})
	got, err := cms.Get(ctx, "b", metav1.GetOptions{})
	require.NoError(t, err)

	require.Len(t, cmList.Items, 1)
	assert.Equal(t, "ConfigMap", cmList.Items[0].Kind)
	assert.Equal(t, "2", updated.(*ConfigMap).Data["v"])
	assert.True(t, apierrors.IsConflict(staleErr), "got %v", staleErr)
	assert.True(t, apierrors.IsAlreadyExists(dupErr), "got %v", dupErr)
	assert.Equal(t, "x", patched.(*ConfigMap).Data["p"])
	assert.True(t, apierrors.IsNotFound(getErr), "got %v", getErr)
	assert.Equal(t, patched.(*ConfigMap).ResourceVersion, got.(*ConfigMap).ResourceVersion)
	want := []struct {
		typ  watch.EventType
		name string
	}{{watch.Modified, "a"}, {watch.Added, "b"}, {watch.Modified, "b"}, {watch.Deleted, "a"}}
	for _, wnt := range want {
		ev := nextEvent(t, w)
		cm, ok := ev.Object.(*ConfigMap)
		require.True(t, ok, "got %s %T", ev.Type, ev.Object)
		assert.Equal(t, wnt.typ, ev.Type)
		assert.Equal(t, wnt.name, cm.Name)
	}
	w.Stop()
	drain(t, w)
}

// TestUnstructuredListAndWatchFromZeroAgainstFakeAPI checks the unstructured path and
// the synthetic ADDED events a watch from resourceVersion "0" starts with.
// Diagram: step 1. client-go: dynamic.ResourceInterface.Watch.
func TestUnstructuredListAndWatchFromZeroAgainstFakeAPI(t *testing.T) {
	_, c := newFakeAPI(t, nil)
	cms := c.Resource(configMaps).Namespace("demo")
	ctx := context.Background()
	for _, name := range []string{"x", "y"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetName(name)
		_, err := cms.Create(ctx, u, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	list, err := c.Resource(configMaps).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	first, second := nextEvent(t, w), nextEvent(t, w)
	w.Stop()
	drain(t, w)

	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	assert.Len(t, items, 2)
	names := []string{}
	for _, ev := range []watch.Event{first, second} {
		assert.Equal(t, watch.Added, ev.Type)
		names = append(names, ev.Object.(*unstructured.Unstructured).GetName())
	}
	assert.ElementsMatch(t, []string{"x", "y"}, names)
}

// TestTooOldWatchAgainstFakeAPIIsExpired checks that after fakeapi compacts its history,
// a watch from an old resourceVersion gets what a real server sends: HTTP 200, one
// ERROR event with the 410 Expired Status, then the end of the stream.
// Diagram: step 1. client-go: reflector.watch (410 -> relist).
func TestTooOldWatchAgainstFakeAPIIsExpired(t *testing.T) {
	api, c := newFakeAPI(t, newScheme())
	cms := c.Resource(configMaps).Namespace("demo")
	ctx := context.Background()
	first, err := cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	api.Compact()

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: first.(*ConfigMap).ResourceVersion})
	require.NoError(t, err, "fakeapi answers HTTP 200, then the ERROR event")
	events := drain(t, w)
	require.Len(t, events, 1)
	require.Equal(t, watch.Error, events[0].Type)
	assert.True(t, apierrors.IsResourceExpired(apierrors.FromObject(events[0].Object)), "got %v", events[0].Object)
}

// TestReflectorOverHTTPFillsAStore runs the project's Reflector with a client
// ResourceClient as its ListerWatcher against fakeapi over HTTP, and checks that the
// store follows creates and deletes.
// Diagram: steps 1, 2. client-go: cache.NewReflector with a ListWatch from a clientset.
func TestReflectorOverHTTPFillsAStore(t *testing.T) {
	_, c := newFakeAPI(t, newScheme())
	cms := c.Resource(configMaps).Namespace("demo")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	r := reflector.New(cms, &ConfigMap{}, store, reflector.Options{})
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	waitForKeys(t, store, []string{"demo/before"})
	_, err = cms.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "before", metav1.DeleteOptions{}))

	waitForKeys(t, store, []string{"demo/after"})
	obj, ok, err := store.GetByKey("demo/after")
	require.NoError(t, err)
	require.True(t, ok)
	assert.IsType(t, &ConfigMap{}, obj)
}

// waitForKeys polls the store until it holds exactly keys, failing after waitLimit.
func waitForKeys(t *testing.T, store indexer.Store, keys []string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	for {
		if assert.ObjectsAreEqual(keys, sortedKeys(store)) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("store has %v, want %v", sortedKeys(store), keys)
		}
	}
}

func sortedKeys(store indexer.Store) []string {
	keys := store.ListKeys()
	slices.Sort(keys)
	return keys
}

// TestBearerTokenAgainstFakeAPI checks that Config.BearerToken authenticates to a
// fakeapi that demands a token, and that a missing one is Unauthorized.
// Diagram: step 1. client-go: rest.Config.BearerToken.
func TestBearerTokenAgainstFakeAPI(t *testing.T) {
	api := fakeapi.New(fakeapi.Options{Token: "s3cret"})
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(api.Close)
	withToken, err := client.New(&client.Config{Server: srv.URL, BearerToken: "s3cret"}, nil)
	require.NoError(t, err)
	without, err := client.New(&client.Config{Server: srv.URL}, nil)
	require.NoError(t, err)

	_, okErr := withToken.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	_, noTokenErr := without.Resource(configMaps).List(context.Background(), metav1.ListOptions{})

	assert.NoError(t, okErr)
	assert.True(t, apierrors.IsUnauthorized(noTokenErr), "got %v", noTokenErr)
}
