package reflectortest

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/internal/freezeproxy"
	"github.com/informerlab/informerlab/reflector"
)

// TestFrozenConnectionIsDroppedAndTheReflectorRecovers: the client reaches
// kube-apiserver through a proxy that then stops forwarding bytes on the
// connections it carries, as a NAT or load balancer that forgot the flow
// does. Over TLS the list, the watch and every re-watch share one HTTP/2
// connection, so the idle timeout's re-watch would wait on the dead
// connection forever. The client's HTTP/2 health check pings the silent
// connection, gets no answer and closes it; the Reflector's next request
// dials a new connection and the change made after the freeze arrives.
// Diagram: step 1. client-go: http2 ReadIdleTimeout and PingTimeout (util/net.SetTransportDefaults).
func TestFrozenConnectionIsDroppedAndTheReflectorRecovers(t *testing.T) {
	cp := testenv.ControlPlane(t)
	ns := testenv.Namespace(t)
	server, err := url.Parse(cp.URL)
	require.NoError(t, err)
	proxy, err := freezeproxy.Start(server.Host)
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	cfg, err := client.LoadKubeconfig(cp.KubeconfigPath)
	require.NoError(t, err)
	cfg.Server = "https://" + proxy.Addr() // the serving certificate is for 127.0.0.1
	cfg.HealthCheck = client.HealthCheck{PingAfter: time.Second, PingTimeout: time.Second}
	viaProxy, err := client.New(cfg, testenv.Scheme(t))
	require.NoError(t, err)
	direct := resource(t, configMaps, ns)

	lw := newRecordingLW(viaProxy.Resource(configMaps).Namespace(ns))
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())
	runReflector(t, lw, &corev1.ConfigMap{}, store, log, reflector.Options{
		Name:        "configmaps",
		IdleTimeout: 2 * time.Second,
		Backoff:     reflector.Backoff{Initial: 100 * time.Millisecond, Factor: 1},
	})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })
	create(t, direct, newConfigMap("before"))
	store.waitFor(t, wait, "the object created before the freeze", func() bool { return store.has(ns + "/before") })

	proxy.Freeze()
	frozeAt := time.Now()
	t.Log("the proxy froze every connection it carries: no bytes either way, no close")
	create(t, direct, newConfigMap("after"))

	store.waitFor(t, 30*time.Second, "the object created after the freeze", func() bool { return store.has(ns + "/after") })
	t.Logf("it arrived %v after the freeze (idle timeout 2s, ping after 1s, ping timeout 1s); requests: %v",
		time.Since(frozeAt).Round(100*time.Millisecond), lw.snapshot())
}
