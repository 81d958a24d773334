package controlplane_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var (
	configMaps   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	podTemplates = schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"}
)

// TestStopAPIServerRefusesConnectionsUntilStartedOnSamePort: while
// kube-apiserver is stopped, requests are refused at the TCP level (etcd,
// and so every object, survives); StartAPIServer brings it back at the same
// URL with the same credentials, and the objects are there. Stopping twice,
// or starting twice, is an error.
func TestStopAPIServerRefusesConnectionsUntilStartedOnSamePort(t *testing.T) {
	cp := testenv.ControlPlane(t)
	ns := testenv.Namespace(t)
	cms := testenv.Client(t, testenv.Scheme(t)).Resource(configMaps).Namespace(ns)
	_, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	url := cp.URL
	t.Cleanup(func() { _ = cp.StartAPIServer(context.Background()) })

	require.NoError(t, cp.StopAPIServer())
	_, errDown := cms.Get(t.Context(), "kept", metav1.GetOptions{})
	errStopTwice := cp.StopAPIServer()
	require.NoError(t, cp.StartAPIServer(t.Context()))
	errStartTwice := cp.StartAPIServer(t.Context())
	got, errUp := cms.Get(t.Context(), "kept", metav1.GetOptions{})

	assert.True(t, utilnet.IsConnectionRefused(errDown), "refused while stopped: %v", errDown)
	assert.ErrorContains(t, errStopTwice, "not running")
	assert.ErrorContains(t, errStartTwice, "already running")
	assert.Equal(t, url, cp.URL)
	require.NoError(t, errUp)
	assert.Equal(t, "kept", got.(*corev1.ConfigMap).Name)
}

// TestCompactExpiresOldResourceVersionsOfUncachedResourceOnly: after Compact,
// a watch of PodTemplates (served from etcd) from a resourceVersion before
// the compaction ends with 410 Expired at once, and so does a paginated list
// at it; ConfigMaps, behind kube-apiserver's watch cache, still answer a
// watch from that resourceVersion out of the cache's own history.
func TestCompactExpiresOldResourceVersionsOfUncachedResourceOnly(t *testing.T) {
	cp := testenv.ControlPlane(t)
	require.Equal(t, "podtemplates", controlplane.UncachedResource)
	ns := testenv.Namespace(t)
	c := testenv.Client(t, testenv.Scheme(t))
	pts, cms := c.Resource(podTemplates).Namespace(ns), c.Resource(configMaps).Namespace(ns)
	oldRV := create(t, cms, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	create(t, pts, &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}})
	create(t, cms, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}})

	rev, err := cp.Compact(t.Context())
	require.NoError(t, err)
	ptEvents := watchFrom(t, pts, oldRV)
	_, listErr := pts.List(t.Context(), metav1.ListOptions{ResourceVersion: oldRV, Limit: 1})
	cmEvents := watchFrom(t, cms, oldRV)

	t.Logf("compacted at %d; watched from %s", rev, oldRV)
	require.NotEmpty(t, ptEvents)
	assert.Equal(t, watch.Error, ptEvents[0].Type)
	assert.True(t, apierrors.IsResourceExpired(apierrors.FromObject(ptEvents[0].Object)), "%v", ptEvents[0].Object)
	assert.True(t, apierrors.IsResourceExpired(listErr), "a paginated list at a compacted resourceVersion: %v", listErr)
	require.NotEmpty(t, cmEvents)
	assert.Equal(t, watch.Added, cmEvents[0].Type, "the watch cache still has the history")
	assert.Equal(t, "b", cmEvents[0].Object.(*corev1.ConfigMap).Name)
}

func create(t *testing.T, res *client.ResourceClient, obj runtime.Object) string {
	t.Helper()
	out, err := res.Create(t.Context(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	m, err := meta.Accessor(out)
	require.NoError(t, err)
	return m.GetResourceVersion()
}

// watchFrom watches res from rv for two seconds and returns what arrived.
func watchFrom(t *testing.T, res *client.ResourceClient, rv string) []watch.Event {
	t.Helper()
	timeout := int64(2)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	w, err := res.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, TimeoutSeconds: &timeout})
	require.NoError(t, err)
	var events []watch.Event
	for ev := range w.ResultChan() {
		events = append(events, ev)
	}
	return events
}
