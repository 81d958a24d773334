package reflectortest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// TestConnectionRefusedBacksOffAndRecovers: while kube-apiserver is stopped,
// every request the Reflector makes is refused at the TCP level, and each
// refusal sends it to a backoff state (to re-watch after a refused watch, to
// relist after a refused list: which one depends on when the shutdown caught
// it; a re-watch that reaches the server while it is shutting down is answered
// 503, and the Reflector relists after that). The attempts are spaced by the
// backoff, never closer than its first step, and the delay grows. Once
// kube-apiserver is back on the same port the Reflector catches up: the Store
// ends equal to the server's list, including an object created after the
// restart.
// Diagram: step 1. client-go: Reflector.watch and Run's backoff (utilnet.IsConnectionRefused).
func TestConnectionRefusedBacksOffAndRecovers(t *testing.T) {
	cp := testenv.ControlPlane(t)
	ns := testenv.Namespace(t)
	cms := resource(t, configMaps, ns)
	create(t, cms, newConfigMap("before"))
	lw := newRecordingLW(cms)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())
	runReflector(t, lw, &corev1.ConfigMap{}, store, log, reflector.Options{Name: "configmaps"})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })
	// An event through the watch before the outage: a watch that closes
	// within a second with no event at all counts as broken, and would be
	// followed by a relist instead.
	create(t, cms, newConfigMap("watched"))
	store.waitFor(t, wait, "an event through the watch", func() bool { return store.has(ns + "/watched") })

	t.Cleanup(func() { // leave a running server to the next test, whatever happens here
		_ = cp.StartAPIServer(context.Background()) // an error if it is running already
	})
	stoppedAt := time.Now()
	require.NoError(t, cp.StopAPIServer())
	lw.waitFor(t, wait, "three refused attempts", func(calls []call) bool { return len(refused(calls)) >= 3 })
	outage := refused(lw.snapshot())
	require.NoError(t, cp.StartAPIServer(t.Context()))
	restartedAt := time.Now()
	create(t, cms, newConfigMap("after"))
	store.waitFor(t, wait, "the object created after the restart", func() bool { return store.has(ns + "/after") })
	recovered := time.Since(restartedAt)

	var gaps []string
	for i := 1; i < len(outage); i++ {
		gap := outage[i].at.Sub(outage[i-1].at)
		gaps = append(gaps, gap.Round(10*time.Millisecond).String())
		assert.GreaterOrEqual(t, gap, reflector.DefaultBackoff().Initial, "attempts are spaced by the backoff")
	}
	t.Logf("outage: %d refused attempts in %v, gaps %v; caught up %v after the restart; calls after the stop: %v",
		len(outage), restartedAt.Sub(stoppedAt).Round(10*time.Millisecond), gaps, recovered.Round(10*time.Millisecond), after(lw.snapshot(), stoppedAt))
	require.NotEmpty(t, gaps)
	last := outage[len(outage)-1].at.Sub(outage[len(outage)-2].at)
	assert.GreaterOrEqual(t, last, 2*reflector.DefaultBackoff().Initial, "the delay grows")
	backoffs := 0
	for _, edge := range log.List() {
		if strings.Contains(edge, "-> backing off to") {
			backoffs++
		}
	}
	assert.GreaterOrEqual(t, backoffs, len(outage), "every refusal is followed by a backoff; transitions: %v", log.List())
	list, err := cms.List(t.Context(), listAll)
	require.NoError(t, err)
	server := map[string]string{}
	for _, cm := range list.(*corev1.ConfigMapList).Items {
		server[ns+"/"+cm.Name] = cm.ResourceVersion
	}
	assert.Equal(t, server, store.contents(), "the Store ends equal to the server")
}

// refused returns the calls that failed with "connection refused".
func refused(calls []call) []call {
	var out []call
	for _, c := range calls {
		if c.err != nil && utilnet.IsConnectionRefused(c.err) {
			out = append(out, c)
		}
	}
	return out
}

// after returns the calls made after t, as strings.
func after(calls []call, t time.Time) []string {
	var out []string
	for _, c := range calls {
		if c.at.After(t) {
			out = append(out, fmt.Sprintf("+%v %v", c.at.Sub(t).Round(10*time.Millisecond), c))
		}
	}
	return out
}
