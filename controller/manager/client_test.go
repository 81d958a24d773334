package manager_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/fakeapi"
)

// cmList returns an empty unstructured ConfigMapList.
func cmList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion("v1")
	l.SetKind("ConfigMapList")
	return l
}

func names(l *unstructured.UnstructuredList) []string {
	var out []string
	for _, item := range l.Items {
		out = append(out, item.GetNamespace()+"/"+item.GetName())
	}
	return out
}

// TestClientReadsComeFromTheCacheNotTheAPI: once the cache has synced
// (one list, one watch), a hundred Gets and Lists, by name, namespace and
// label, are served from the informer's cache without a single request;
// the API reader, by contrast, costs one request per read.
// Diagram: step 9. client-go: controller-runtime's cache-backed client.Reader.
func TestClientReadsComeFromTheCacheNotTheAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		api := ctrltest.NewCountingAPI(srv)
		m := ctrltest.NewClientManager(t, api, manager.Options{})
		for _, cm := range []*unstructured.Unstructured{ctrltest.NewCM("a", "one"), ctrltest.NewCM("a", "two"), ctrltest.NewCM("b", "three")} {
			if cm.GetName() != "two" {
				cm.SetLabels(map[string]string{"app": "demo"})
			}
			ctrltest.Create(t, srv, cm)
		}
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()
		afterSync := api.Snapshot()

		for range 25 {
			var got unstructured.Unstructured
			got.SetGroupVersionKind(ctrltest.CMGVK)
			require.NoError(t, c.Get(t.Context(), ctrltest.Key("a", "one"), &got))
			all, inA, labelled, selected := cmList(), cmList(), cmList(), cmList()
			require.NoError(t, c.List(t.Context(), all))
			require.NoError(t, c.List(t.Context(), inA, manager.InNamespace("a")))
			require.NoError(t, c.List(t.Context(), labelled, manager.MatchingLabels{"app": "demo"}))
			require.NoError(t, c.List(t.Context(), selected, manager.MatchingLabelsSelector{Selector: labels.Nothing()}))
			assert.Equal(t, []string{"a/one", "a/two", "b/three"}, names(all))
			assert.Equal(t, []string{"a/one", "a/two"}, names(inA))
			assert.Equal(t, []string{"a/one", "b/three"}, names(labelled))
			assert.Empty(t, names(selected))
		}

		t.Logf("requests to the API once the cache synced: %v", afterSync)
		t.Logf("   after 25 rounds of Get and three Lists through the client: %v", api.Snapshot())
		assert.Equal(t, map[string]int{"list configmaps": 1, "watch configmaps": 1}, afterSync, "the cache's informer: one list, one watch")
		assert.Equal(t, afterSync, api.Snapshot(), "100 reads through the cache: no request")
		fresh := ctrltest.ExampleCM()
		require.NoError(t, m.GetAPIReader().Get(t.Context(), ctrltest.Key("a", "one"), fresh))
		all := cmList()
		require.NoError(t, m.GetAPIReader().List(t.Context(), all, manager.InNamespace("b")))
		assert.Equal(t, []string{"b/three"}, names(all))
		t.Logf("   after one Get and one List through the API reader: %v", api.Snapshot())
		assert.Equal(t, 1, api.Snapshot()["get configmaps"], "the API reader: a request per Get")
		assert.Equal(t, 2, api.Snapshot()["list configmaps"], "and per List")
	})
}

// TestClientStartsAnInformerOnFirstReadOfAKind: reading a kind the cache
// has no informer for (known from the RESTMapper) creates one, starts it,
// waits for it to sync, and serves the read; later reads reuse it. Before
// the Manager starts, a read is an error, not a wait.
// Diagram: steps 1-5, 9. client-go: controller-runtime informer cache's Get (starts informers lazily).
func TestClientStartsAnInformerOnFirstReadOfAKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		api := ctrltest.NewCountingAPI(srv)
		mapper := meta.NewDefaultRESTMapper(nil)
		mapper.Add(ctrltest.LeaseGVK, meta.RESTScopeNamespace)
		m := ctrltest.NewClientManager(t, api, manager.Options{RESTMapper: mapper})
		lease := ctrltest.Example("coordination.k8s.io/v1", "Lease")
		lease.SetNamespace("kube-system")
		lease.SetName("demo")
		_, err := srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system").Create(t.Context(), lease, metav1.CreateOptions{})
		require.NoError(t, err)
		c := m.GetClient()

		idle := ctrltest.NewClientManager(t, api, manager.Options{RESTMapper: mapper})
		errEarly := idle.GetClient().Get(t.Context(), ctrltest.Key("kube-system", "demo"), ctrltest.Example("coordination.k8s.io/v1", "Lease"))
		ctrltest.RunManager(t, m)
		synctest.Wait()
		before := api.Snapshot()
		got := ctrltest.Example("coordination.k8s.io/v1", "Lease")
		require.NoError(t, c.Get(t.Context(), ctrltest.Key("kube-system", "demo"), got))
		again := ctrltest.Example("coordination.k8s.io/v1", "Lease")
		require.NoError(t, c.Get(t.Context(), ctrltest.Key("kube-system", "demo"), again))

		assert.ErrorContains(t, errEarly, "the Manager's cache has not started")
		t.Logf("a Get before the Manager runs: %v", errEarly)
		t.Logf("   lists of leases before the first Get: %d; after two Gets: %d (the first started an informer); gets sent to the API: %d", before["list leases"], api.Snapshot()["list leases"], api.Snapshot()["get leases"])
		assert.Zero(t, before["list leases"], "no informer for leases yet")
		assert.Equal(t, "demo", got.GetName())
		assert.Equal(t, "demo", again.GetName())
		assert.Equal(t, 1, api.Snapshot()["list leases"], "one informer, one list")
		assert.Zero(t, api.Snapshot()["get leases"])
	})
}

// TestClientReportsUnknownKinds: a kind no informer and no RESTMapper
// knows, an object whose kind cannot be told, a list that is no list, and
// a read outside a namespace-limited cache are clear errors, not hangs.
// Diagram: step 9. client-go: controller-runtime's NoKindMatchError from the RESTMapper.
func TestClientReportsUnknownKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{Namespace: "a"})
		ctrltest.RunManager(t, m)
		c := m.GetClient()

		unknown := ctrltest.Example("example.com/v1", "Gadget")
		errUnknown := c.Get(t.Context(), ctrltest.Key("a", "g"), unknown)
		errNoKind := c.Get(t.Context(), ctrltest.Key("a", "w"), &ctrltest.Widget{})
		errNoKindList := c.List(t.Context(), &ctrltest.WidgetList{})
		errWrite := c.Create(t.Context(), ctrltest.Example("example.com/v1", "Gadget"))
		errOtherNamespace := c.Get(t.Context(), ctrltest.Key("b", "x"), ctrltest.ExampleCM())

		assert.True(t, meta.IsNoMatchError(errUnknown), "%v", errUnknown)
		t.Logf("Get of an unknown kind: %v", errUnknown)
		t.Logf("Get of a Go type the scheme does not know: %v", errNoKind)
		t.Logf("Get in a namespace the Manager does not watch: %v", errOtherNamespace)
		assert.ErrorContains(t, errUnknown, "controller: client: no resource known for kind example.com/v1, Kind=Gadget")
		assert.ErrorContains(t, errNoKind, "cannot tell the kind of *ctrltest.Widget")
		assert.ErrorContains(t, errNoKindList, "cannot tell the kind of the items of *ctrltest.WidgetList")
		assert.True(t, meta.IsNoMatchError(errWrite), "writes resolve kinds the same way: %v", errWrite)
		assert.ErrorContains(t, errOtherNamespace, `watches namespace "a" only, not "b"`)
	})
}

// TestClientReadsReturnCopies: mutating what Get and List returned leaves
// the cache as it was; the shared reads return the cache's own objects,
// the same pointer every time.
// Diagram: step 9. client-go: controller-runtime cache reader's DeepCopy (and UnsafeDisableDeepCopy).
func TestClientReadsReturnCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{})
		ctrltest.Create(t, srv, ctrltest.CMWith("a", "one", map[string]any{"k": "v"}))
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()

		got := ctrltest.ExampleCM()
		require.NoError(t, c.Get(t.Context(), ctrltest.Key("a", "one"), got))
		got.Object["data"].(map[string]any)["k"] = "mutated"
		got.SetLabels(map[string]string{"mutated": "yes"})
		list := cmList()
		require.NoError(t, c.List(t.Context(), list))
		list.Items[0].Object["data"].(map[string]any)["k"] = "mutated too"
		shared1, err := c.GetShared(t.Context(), ctrltest.Key("a", "one"), ctrltest.ExampleCM())
		require.NoError(t, err)
		shared2, err := c.ListShared(t.Context(), ctrltest.ExampleCM(), manager.InNamespace("a"))
		require.NoError(t, err)

		again := ctrltest.ExampleCM()
		require.NoError(t, c.Get(t.Context(), ctrltest.Key("a", "one"), again))
		assert.Equal(t, map[string]string{"k": "v"}, ctrltest.Data(t, again), "the cache is untouched")
		t.Logf("the object from Get and from List were changed; a second Get returns data %v, labels %v: reads are copies", ctrltest.Data(t, again), again.GetLabels())
		t.Logf("   GetShared and ListShared return the cache's own object: the same pointer: %v", len(shared2) == 1 && shared1 == shared2[0])
		assert.Empty(t, again.GetLabels())
		assert.Equal(t, map[string]string{"k": "v"}, ctrltest.Data(t, shared1.(*unstructured.Unstructured)))
		require.Len(t, shared2, 1)
		assert.Same(t, shared1, shared2[0], "shared reads: the cache's object itself")
	})
}

// TestClientHandlesTypedAndUnstructuredObjects: with a Scheme, typed
// Widgets are created, read, listed, status-updated, patched and deleted;
// the cache holds them typed and serves them as unstructured too, and
// unstructured writes work on typed kinds.
// Diagram: steps 1, 9. client-go: controller-runtime client with a Scheme (typed) and unstructured.Unstructured.
func TestClientHandlesTypedAndUnstructuredObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scheme := ctrltest.WidgetScheme()
		srv := fakeapi.New(fakeapi.Options{Scheme: scheme})
		t.Cleanup(srv.Close)
		require.NoError(t, srv.Register(fakeapi.ResourceInfo{GVR: ctrltest.WidgetsGVR, Kind: "Widget", Namespaced: true, HasStatus: true}))
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{Scheme: scheme, RESTMapper: ctrltest.WidgetMapper()})
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()
		ctx := t.Context()

		w := &ctrltest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "w1"}, Spec: ctrltest.WidgetSpec{Size: 1}}
		require.NoError(t, c.Create(ctx, w))
		require.NoError(t, c.WaitForResourceVersion(ctx, w))
		var typed ctrltest.Widget
		require.NoError(t, c.Get(ctx, ctrltest.Key("a", "w1"), &typed))
		asUnstructured := ctrltest.Example("demo.informerlab.io/v1", "Widget")
		require.NoError(t, c.Get(ctx, ctrltest.Key("a", "w1"), asUnstructured))
		w.Status.Ready = true
		require.NoError(t, c.UpdateStatus(ctx, w))
		original := w.DeepCopy()
		w.Spec.Color = "blue"
		require.NoError(t, c.Patch(ctx, w, manager.MergeFrom(original)))
		u := ctrltest.Example("demo.informerlab.io/v1", "Widget")
		u.SetNamespace("a")
		u.SetName("w2")
		require.NoError(t, unstructured.SetNestedField(u.Object, int64(2), "spec", "size"))
		require.NoError(t, c.Create(ctx, u))
		require.NoError(t, c.WaitForResourceVersion(ctx, u))
		require.NoError(t, c.WaitForResourceVersion(ctx, w))
		var list ctrltest.WidgetList
		require.NoError(t, c.List(ctx, &list, manager.InNamespace("a")))
		require.NoError(t, c.Delete(ctx, u))
		require.NoError(t, c.WaitForDeletion(ctx, u))
		var afterDelete ctrltest.WidgetList
		require.NoError(t, c.List(ctx, &afterDelete))

		assert.Equal(t, "w1", typed.Name)
		t.Logf("a Widget created typed, read typed (size %d) and as unstructured (uid equal: %v); after UpdateStatus and a merge patch: color %q, ready %v", typed.Spec.Size, typed.UID == asUnstructured.GetUID(), w.Spec.Color, w.Status.Ready)
		t.Logf("   a second created unstructured is listed typed: %d Widgets; after deleting it: %d", len(list.Items), len(afterDelete.Items))
		assert.Equal(t, 1, typed.Spec.Size)
		assert.NotEmpty(t, typed.UID)
		size, _, _ := unstructured.NestedInt64(asUnstructured.Object, "spec", "size")
		assert.Equal(t, int64(1), size, "a typed cache read as unstructured")
		assert.Equal(t, typed.UID, asUnstructured.GetUID())
		assert.Equal(t, "blue", w.Spec.Color, "the patch's result fills w")
		assert.True(t, w.Status.Ready, "the merge patch left status alone")
		require.Len(t, list.Items, 2)
		assert.Equal(t, "blue", list.Items[0].Spec.Color)
		assert.True(t, list.Items[0].Status.Ready)
		assert.Equal(t, 2, list.Items[1].Spec.Size, "created unstructured, cached typed")
		require.Len(t, afterDelete.Items, 1)
		assert.Equal(t, "w1", afterDelete.Items[0].Name)
	})
}

// TestClientWritesGoToTheAPI: Create, Update, Patch and Delete are requests
// to the API server, fill the object with the server's answer, and surface
// the server's errors (a stale resourceVersion is a Conflict). A merge
// patch changes only its fields, so a field someone else set survives.
// Diagram: API. client-go: controller-runtime client.Writer over the API server.
func TestClientWritesGoToTheAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		api := ctrltest.NewCountingAPI(srv)
		m := ctrltest.NewClientManager(t, api, manager.Options{})
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()
		ctx := t.Context()
		server := srv.Resource(ctrltest.CMGVR).Namespace("a")

		cm := ctrltest.CMWith("a", "one", map[string]any{"k1": "v1"})
		require.NoError(t, c.Create(ctx, cm))
		created := cm.DeepCopy()
		cm.Object["data"] = map[string]any{"k1": "v2"}
		require.NoError(t, c.Update(ctx, cm))
		errStale := c.Update(ctx, created)
		theirs := cm.DeepCopy()
		theirs.Object["data"].(map[string]any)["k2"] = "theirs"
		_, err := server.Update(ctx, theirs, metav1.UpdateOptions{})
		require.NoError(t, err)
		original := cm.DeepCopy()
		cm.Object["data"].(map[string]any)["k1"] = "v3"
		require.NoError(t, c.Patch(ctx, cm, manager.MergeFrom(original)))
		patched := cm.DeepCopy()
		require.NoError(t, c.Delete(ctx, cm))
		_, errGone := server.Get(ctx, "one", metav1.GetOptions{})
		require.NoError(t, c.WaitForDeletion(ctx, cm))
		errNotCached := c.Get(ctx, ctrltest.Key("a", "one"), ctrltest.ExampleCM())

		assert.NotEmpty(t, created.GetUID(), "Create fills in what the server set")
		assert.NotEqual(t, created.GetResourceVersion(), patched.GetResourceVersion())
		assert.True(t, apierrors.IsConflict(errStale), "an update from a stale read: %v", errStale)
		assert.Equal(t, map[string]string{"k1": "v3", "k2": "theirs"}, ctrltest.Data(t, patched), "the patch kept their k2")
		assert.True(t, apierrors.IsNotFound(errGone))
		assert.True(t, apierrors.IsNotFound(errNotCached), "NotFound from the cache, too: %v", errNotCached)
		calls := api.Snapshot()
		t.Logf("Create, Update, an Update from a stale copy (%v), a merge patch after someone else's write (data now %v), Delete", errStale, ctrltest.Data(t, patched))
		t.Logf("   requests to the API: %v", calls)
		assert.Equal(t, 1, calls["create configmaps"])
		assert.Equal(t, 2, calls["update configmaps"])
		assert.Equal(t, 1, calls["patch configmaps"])
		assert.Equal(t, 1, calls["delete configmaps"])
	})
}

// TestClientWithoutAPIClientSaysSo: a Manager built with only a
// ListerWatcher reads from its cache, its writes and API reads fail with
// an error naming the missing option, and its Events are discarded.
// Diagram: none. client-go: none (controller-runtime always has a REST config).
func TestClientWithoutAPIClientSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		ctrltest.Create(t, srv, ctrltest.NewCM("a", "one"))
		m := ctrltest.NewManager(t, srv, manager.Options{})
		_, err := m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
		require.NoError(t, err)
		ctrltest.RunManager(t, m)
		synctest.Wait()

		errRead := m.GetClient().Get(t.Context(), ctrltest.Key("a", "one"), ctrltest.ExampleCM())
		errWrite := m.GetClient().Create(t.Context(), ctrltest.NewCM("a", "two"))
		errAPIRead := m.GetAPIReader().Get(t.Context(), ctrltest.Key("a", "one"), ctrltest.ExampleCM())
		m.GetEventRecorderFor("demo").Event(ctrltest.NewCM("a", "one"), recorder.EventTypeNormal, "Discarded", "nowhere to write it")

		assert.NoError(t, errRead)
		assert.ErrorContains(t, errWrite, "set ManagerOptions.NewClient")
		assert.ErrorContains(t, errAPIRead, "set ManagerOptions.NewClient")
	})
}
