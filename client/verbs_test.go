package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion/queryparams"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// TestListTypedFillsItemKindsFromTheList checks that a list of a kind the scheme knows
// decodes into the typed list, that its resourceVersion is the snapshot's, and that the
// items (which carry no kind on the wire) get the list's kind minus "List".
// Diagram: step 1. client-go: rest.Request.Do().Into(&v1.ConfigMapList{}).
func TestListTypedFillsItemKindsFromTheList(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("configmaps", "team-a", "alpha", map[string]any{"data": map[string]any{"k": "v"}})
	ws.seed("configmaps", "team-a", "beta", nil)
	ws.seed("configmaps", "team-b", "gamma", nil)

	got, err := c.Resource(configMaps).Namespace("team-a").List(context.Background(), metav1.ListOptions{})

	require.NoError(t, err)
	list, ok := got.(*ConfigMapList)
	require.True(t, ok, "got %T, want *ConfigMapList", got)
	assert.Equal(t, "3", list.ResourceVersion)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, "alpha", list.Items[0].Name)
	assert.Equal(t, map[string]string{"k": "v"}, list.Items[0].Data)
	for _, item := range items {
		assert.Equal(t, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, item.GetObjectKind().GroupVersionKind())
	}
	req := ws.last()
	assert.Equal(t, "/api/v1/namespaces/team-a/configmaps", req.Path)
	assert.Equal(t, "application/json", req.Accept)
}

// TestListUnknownKindIsUnstructured checks a list of a kind the scheme does not know:
// an UnstructuredList from the /apis/group/version path, items with kind and apiVersion.
// Diagram: step 1. client-go: dynamic.ResourceInterface.List.
func TestListUnknownKindIsUnstructured(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("widgets", "ns", "w1", map[string]any{"spec": map[string]any{"size": 3}})

	got, err := c.Resource(widgets).Namespace("ns").List(context.Background(), metav1.ListOptions{})

	require.NoError(t, err)
	list, ok := got.(*unstructured.UnstructuredList)
	require.True(t, ok, "got %T", got)
	assert.Equal(t, "1", list.GetResourceVersion())
	require.Len(t, list.Items, 1)
	assert.Equal(t, "Widget", list.Items[0].GetKind())
	assert.Equal(t, "example.com/v1", list.Items[0].GetAPIVersion())
	size, _, _ := unstructured.NestedInt64(list.Items[0].Object, "spec", "size")
	assert.Equal(t, int64(3), size)
	assert.Equal(t, "/apis/example.com/v1/namespaces/ns/widgets", ws.last().Path)
}

// TestListWithoutNamespaceSpansNamespacesAndClusterScope checks the paths of an
// unscoped handle: all namespaces for a namespaced resource, and a cluster-scoped one.
// Diagram: step 1. client-go: dynamic.NamespaceableResourceInterface.
func TestListWithoutNamespaceSpansNamespacesAndClusterScope(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("configmaps", "a", "one", nil)
	ws.seed("configmaps", "b", "two", nil)
	ws.seed("namespaces", "", "a", nil)

	all, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	allPath := ws.last().Path
	nss, err := c.Resource(namespaces).Namespace("").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)

	assert.Equal(t, "/api/v1/configmaps", allPath)
	assert.Len(t, all.(*ConfigMapList).Items, 2)
	assert.Equal(t, "/api/v1/namespaces", ws.last().Path)
	require.Len(t, nss.(*unstructured.UnstructuredList).Items, 1)
	assert.Equal(t, "Namespace", nss.(*unstructured.UnstructuredList).Items[0].GetKind())
}

// TestListOptionsAreSentAsTheServerReadsThem checks every ListOptions field against
// apimachinery's own query-parameter encoder, and that List never asks for a watch.
// Diagram: step 1. client-go: rest.Request.VersionedParams.
func TestListOptionsAreSentAsTheServerReadsThem(t *testing.T) {
	ws, c := newWireServer(t)
	timeout, initial := int64(339), true
	opts := metav1.ListOptions{
		LabelSelector: "app=web,tier!=db", FieldSelector: "metadata.name=x", AllowWatchBookmarks: true,
		ResourceVersion: "12", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		TimeoutSeconds: &timeout, Limit: 500, Continue: "tok", SendInitialEvents: &initial,
	}
	want, err := queryparams.Convert(&opts)
	require.NoError(t, err)

	_, err = c.Resource(configMaps).Namespace("ns").List(context.Background(), opts)
	require.NoError(t, err)
	listQuery := ws.last().Query
	opts.Watch = true // List must drop it
	_, err = c.Resource(configMaps).Namespace("ns").List(context.Background(), opts)
	require.NoError(t, err)

	assert.Equal(t, want, listQuery)
	assert.Equal(t, want, ws.last().Query)
	assert.Equal(t, "app=web,tier!=db", listQuery.Get("labelSelector"))
	assert.Equal(t, "true", listQuery.Get("sendInitialEvents"))
}

// TestGetReturnsTypedObjectAndNotFoundError checks Get on a known kind and on a missing name.
// Diagram: step 9 (the API side of a lookup). client-go: dynamic.ResourceInterface.Get.
func TestGetReturnsTypedObjectAndNotFoundError(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("configmaps", "ns", "present", map[string]any{"data": map[string]any{"a": "b"}})
	cms := c.Resource(configMaps).Namespace("ns")

	got, err := cms.Get(context.Background(), "present", metav1.GetOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	getQuery := ws.last().Query
	_, missingErr := cms.Get(context.Background(), "absent", metav1.GetOptions{})

	cm, ok := got.(*ConfigMap)
	require.True(t, ok, "got %T", got)
	assert.Equal(t, "present", cm.Name)
	assert.Equal(t, "b", cm.Data["a"])
	assert.Equal(t, "ConfigMap", cm.Kind)
	assert.Equal(t, "0", getQuery.Get("resourceVersion"))
	assert.True(t, apierrors.IsNotFound(missingErr), "got %v", missingErr)
	var se *apierrors.StatusError
	require.ErrorAs(t, missingErr, &se)
	assert.Equal(t, "absent", se.ErrStatus.Details.Name)
}

// TestCreateSendsKindAndReturnsStoredObject checks that a typed object without TypeMeta
// is sent with its kind, lands in the handle's namespace (or its own when the handle has
// none), comes back as stored, and that a second create is AlreadyExists.
// Diagram: step 1 (writes that the watch will report). client-go: dynamic.ResourceInterface.Create.
func TestCreateSendsKindAndReturnsStoredObject(t *testing.T) {
	ws, c := newWireServer(t)
	cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}, Data: map[string]string{"x": "1"}}

	got, err := c.Resource(configMaps).Namespace("ns").Create(context.Background(), cm, metav1.CreateOptions{FieldManager: "test"})
	require.NoError(t, err)
	createReq := ws.last()
	_, dupErr := c.Resource(configMaps).Namespace("ns").Create(context.Background(), cm, metav1.CreateOptions{})
	own := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "own", Namespace: "other"}}
	_, ownErr := c.Resource(configMaps).Create(context.Background(), own, metav1.CreateOptions{})
	ownPath := ws.last().Path

	stored := got.(*ConfigMap)
	assert.Equal(t, "1", stored.ResourceVersion)
	assert.Equal(t, "ns", stored.Namespace)
	assert.NotEmpty(t, stored.UID)
	assert.Equal(t, "POST", createReq.Method)
	assert.Equal(t, "/api/v1/namespaces/ns/configmaps", createReq.Path)
	assert.Equal(t, "application/json", createReq.ContentType)
	assert.Equal(t, "test", createReq.Query.Get("fieldManager"))
	assert.Contains(t, createReq.Body, `"kind":"ConfigMap"`)
	assert.Empty(t, cm.Kind, "the caller's object is not modified")
	assert.True(t, apierrors.IsAlreadyExists(dupErr), "got %v", dupErr)
	assert.NoError(t, ownErr)
	assert.Equal(t, "/api/v1/namespaces/other/configmaps", ownPath)
}

// TestUpdateWithStaleResourceVersionIsConflict checks optimistic concurrency over HTTP:
// an update at the current resourceVersion succeeds and bumps it; a replay of the same
// (now stale) object is a 409 Conflict.
// Diagram: step 1. client-go: dynamic.ResourceInterface.Update.
func TestUpdateWithStaleResourceVersionIsConflict(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("configmaps", "ns", "cm", nil)
	cms := c.Resource(configMaps).Namespace("ns")
	obj, err := cms.Get(context.Background(), "cm", metav1.GetOptions{})
	require.NoError(t, err)
	cm := obj.(*ConfigMap)
	cm.Data = map[string]string{"v": "2"}

	updated, err := cms.Update(context.Background(), cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	updateReq := ws.last()
	_, staleErr := cms.Update(context.Background(), cm, metav1.UpdateOptions{})

	assert.Equal(t, "PUT", updateReq.Method)
	assert.Equal(t, "/api/v1/namespaces/ns/configmaps/cm", updateReq.Path)
	assert.Equal(t, "2", updated.(*ConfigMap).ResourceVersion)
	assert.Equal(t, "2", updated.(*ConfigMap).Data["v"])
	assert.True(t, apierrors.IsConflict(staleErr), "got %v", staleErr)
	assert.Contains(t, staleErr.Error(), "the object has been modified")
}

// TestUpdateStatusWritesTheStatusSubresource checks that UpdateStatus PUTs to /status and
// that only the status changes, on an unstructured object.
// Diagram: step 1. client-go: dynamic.ResourceInterface.UpdateStatus.
func TestUpdateStatusWritesTheStatusSubresource(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("widgets", "ns", "w", map[string]any{"spec": map[string]any{"size": 1}})
	ws2 := c.Resource(widgets).Namespace("ns")
	obj, err := ws2.Get(context.Background(), "w", metav1.GetOptions{})
	require.NoError(t, err)
	u := obj.(*unstructured.Unstructured)
	require.NoError(t, unstructured.SetNestedField(u.Object, "Ready", "status", "phase"))
	require.NoError(t, unstructured.SetNestedField(u.Object, int64(99), "spec", "size"))

	got, err := ws2.UpdateStatus(context.Background(), u, metav1.UpdateOptions{})

	require.NoError(t, err)
	assert.Equal(t, "/apis/example.com/v1/namespaces/ns/widgets/w/status", ws.last().Path)
	out := got.(*unstructured.Unstructured)
	phase, _, _ := unstructured.NestedString(out.Object, "status", "phase")
	size, _, _ := unstructured.NestedInt64(out.Object, "spec", "size")
	assert.Equal(t, "Ready", phase)
	assert.Equal(t, int64(1), size, "a status update leaves spec alone")
}

// TestMergePatchSendsItsMediaType checks that Patch sends the body with the patch type
// as Content-Type and returns the patched object.
// Diagram: step 1. client-go: dynamic.ResourceInterface.Patch.
func TestMergePatchSendsItsMediaType(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("configmaps", "ns", "cm", map[string]any{"data": map[string]any{"keep": "1", "drop": "2"}})

	got, err := c.Resource(configMaps).Namespace("ns").Patch(context.Background(), "cm", types.MergePatchType,
		[]byte(`{"data":{"drop":null,"add":"3"}}`), metav1.PatchOptions{FieldManager: "m"})

	require.NoError(t, err)
	req := ws.last()
	assert.Equal(t, "PATCH", req.Method)
	assert.Equal(t, "application/merge-patch+json", req.ContentType)
	assert.Equal(t, "m", req.Query.Get("fieldManager"))
	assert.Equal(t, map[string]string{"keep": "1", "add": "3"}, got.(*ConfigMap).Data)
}

// TestDeleteRemovesTheObject checks that Delete sends DeleteOptions as a JSON body, that
// the object is gone afterwards, and that deleting it again is NotFound.
// Diagram: step 1. client-go: dynamic.ResourceInterface.Delete.
func TestDeleteRemovesTheObject(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("configmaps", "ns", "cm", nil)
	cms := c.Resource(configMaps).Namespace("ns")
	grace := int64(0)

	err := cms.Delete(context.Background(), "cm", metav1.DeleteOptions{GracePeriodSeconds: &grace})
	require.NoError(t, err)
	delReq := ws.last()
	_, getErr := cms.Get(context.Background(), "cm", metav1.GetOptions{})
	againErr := cms.Delete(context.Background(), "cm", metav1.DeleteOptions{})

	assert.Equal(t, "DELETE", delReq.Method)
	assert.Equal(t, "/api/v1/namespaces/ns/configmaps/cm", delReq.Path)
	assert.JSONEq(t, `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}`, delReq.Body)
	assert.True(t, apierrors.IsNotFound(getErr), "got %v", getErr)
	assert.True(t, apierrors.IsNotFound(againErr), "got %v", againErr)
}

// TestBadArgumentsAreRejectedBeforeSending checks that names that cannot be a path
// segment, objects without a name and an empty patch type fail with a clear error and
// no request.
// Diagram: step 1. client-go: rest.Request.Name (path segment validation).
func TestBadArgumentsAreRejectedBeforeSending(t *testing.T) {
	ws, c := newWireServer(t)
	cms := c.Resource(configMaps).Namespace("ns")
	ctx := context.Background()

	errs := map[string]error{}
	_, errs["get empty"] = cms.Get(ctx, "", metav1.GetOptions{})
	_, errs["get slash"] = cms.Get(ctx, "a/b", metav1.GetOptions{})
	_, errs["get dotdot"] = cms.Get(ctx, "..", metav1.GetOptions{})
	errs["delete percent"] = cms.Delete(ctx, "a%2F", metav1.DeleteOptions{})
	_, errs["update no name"] = cms.Update(ctx, &ConfigMap{}, metav1.UpdateOptions{})
	_, errs["create nil"] = cms.Create(ctx, nil, metav1.CreateOptions{})
	_, errs["patch no type"] = cms.Patch(ctx, "x", "", []byte(`{}`), metav1.PatchOptions{})
	_, errs["no version"] = c.Resource(schema.GroupVersionResource{Resource: "configmaps"}).List(ctx, metav1.ListOptions{})
	_, errs["no resource"] = c.Resource(schema.GroupVersionResource{Version: "v1"}).Watch(ctx, metav1.ListOptions{})
	_, errs["namespace with slash"] = c.Resource(configMaps).Namespace("a/b").List(ctx, metav1.ListOptions{})

	for name, err := range errs {
		assert.ErrorContains(t, err, "client: ", name)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	assert.Empty(t, ws.requests, "nothing reached the server")
}

// TestNamesAreSentAsOnePathSegment checks names that real clusters use with characters
// outside [a-z0-9.-] (RBAC's "system:..." names) reach the server unchanged.
// Diagram: step 1. client-go: rest.Request.Name.
func TestNamesAreSentAsOnePathSegment(t *testing.T) {
	ws, c := newWireServer(t)
	ws.seed("namespaces", "", "system:node proxier", nil)

	got, err := c.Resource(namespaces).Get(context.Background(), "system:node proxier", metav1.GetOptions{})

	require.NoError(t, err)
	assert.Equal(t, "system:node proxier", got.(*unstructured.Unstructured).GetName())
	assert.Equal(t, "/api/v1/namespaces/system:node proxier", ws.last().Path)
}
