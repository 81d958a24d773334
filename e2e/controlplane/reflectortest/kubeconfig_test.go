package reflectortest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// TestKubeconfigWithCADataAndTokenListsAndWatches: the control plane's
// kubeconfig carries the serving certificate as certificate-authority-data and
// a bearer token, nothing else; client.LoadKubeconfig reads both, TLS is
// verified against that CA, and a Reflector built on it lists, then sees a
// create, an update and a delete through its watch.
// Diagram: steps 1 and 2. client-go: tools/clientcmd + rest.Config against kube-apiserver.
func TestKubeconfigWithCADataAndTokenListsAndWatches(t *testing.T) {
	cp := testenv.ControlPlane(t)
	cfg, err := client.LoadKubeconfig(cp.KubeconfigPath)
	require.NoError(t, err)
	ns := testenv.Namespace(t)
	cms := resource(t, configMaps, ns)
	create(t, cms, newConfigMap("before"))
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())

	runReflector(t, cms, &corev1.ConfigMap{}, store, log, reflector.Options{Name: "configmaps"})
	store.waitFor(t, wait, "the initial list", func() bool { return store.has(ns + "/before") })
	create(t, cms, newConfigMap("after"))
	store.waitFor(t, wait, "the created ConfigMap", func() bool { return store.has(ns + "/after") })
	updated := newConfigMap("after")
	updated.Data["changed"] = "yes"
	got, err := cms.Get(t.Context(), "after", metav1.GetOptions{})
	require.NoError(t, err)
	updated.ResourceVersion = got.(*corev1.ConfigMap).ResourceVersion
	_, err = cms.Update(t.Context(), updated, metav1.UpdateOptions{})
	require.NoError(t, err)
	store.waitFor(t, wait, "the update", func() bool { return store.countPrefix("update "+ns+"/after") == 1 })
	require.NoError(t, cms.Delete(t.Context(), "before", metav1.DeleteOptions{}))
	store.waitFor(t, wait, "the deletion", func() bool { return !store.has(ns + "/before") })

	assert.Equal(t, cp.URL, cfg.Server)
	assert.Equal(t, cp.Token, cfg.BearerToken)
	assert.Equal(t, cp.CAPEM, cfg.TLS.CAData)
	assert.False(t, cfg.TLS.Insecure, "the server is verified, never skipped")
	assert.Equal(t, 1, store.countPrefix("replace@"), "one list, then only watch events")
}
