package e2e

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestKubectlGetEventsShowsTheSampleControllersWarning runs the sample
// controller over HTTP against cmd/fakeapi started with --sample-resources
// (so it serves Foos and Deployments). A Foo asks for a Deployment that
// already exists and is not its own; the controller records a Warning
// ErrResourceExists, and the real kubectl get events lists it with the
// server's Event columns.
// Diagram: API (Events). client-go: sample-controller syncHandler (ErrResourceExists), kubectl get events.
func TestKubectlGetEventsShowsTheSampleControllersWarning(t *testing.T) {
	p := startFakeapi(t, "--sample-resources")
	cfg, err := client.LoadKubeconfig(p.Kubeconfig)
	require.NoError(t, err)
	cl, err := client.New(cfg, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()

	namespace := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}}}
	_, err = cl.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, namespace, metav1.CreateOptions{})
	require.NoError(t, err, "cmd/fakeapi, like a real server, needs the namespace first")
	events, err := cl.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace("demo").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer events.Stop()
	_, err = cl.Resource(sc.DeploymentsGVR).Namespace("demo").Create(ctx, &sc.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	controller, err := sc.New(func(gvr schema.GroupVersionResource, ns string) sc.Resource {
		return cl.Resource(gvr).Namespace(ns)
	}, sc.Options{Namespace: "demo", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	stopped := make(chan error, 1)
	runCtx, stop := context.WithCancel(context.Background())
	go func() { stopped <- controller.Run(runCtx) }()
	defer func() {
		stop()
		assert.NoError(t, <-stopped)
	}()
	_, err = cl.Resource(sc.FoosGVR).Namespace("demo").Create(ctx, &sc.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGroupVersion.String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "demo"},
		Spec:       sc.FooSpec{DeploymentName: "web"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	for warned := false; !warned; {
		select {
		case ev, ok := <-events.ResultChan():
			require.True(t, ok, "the events watch ended")
			if u, isU := ev.Object.(*unstructured.Unstructured); isU && ev.Type == watch.Added {
				reason, _, _ := unstructured.NestedString(u.Object, "reason")
				warned = reason == sc.EventReasonErrResourceExists
			}
		case <-ctx.Done():
			require.FailNow(t, "no ErrResourceExists Event within the deadline")
		}
	}

	k := newKubectl(t, p)

	out := k.mustRun("get", "events", "-n", "demo")
	t.Logf("kubectl get events -n demo:\n%s", out)

	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 2, "a header and a row: %q", out)
	assert.Equal(t, []string{"LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}, strings.Fields(lines[0]))
	found := false
	for _, line := range lines[1:] {
		fields := strings.Fields(line)
		if len(fields) >= 4 && fields[1] == "Warning" && fields[2] == "ErrResourceExists" {
			found = true
			assert.Equal(t, "foo/example", fields[3])
			assert.Contains(t, line, `Deployment "web" already exists and is not controlled by Foo "example"`)
		}
	}
	assert.True(t, found, "the Warning is listed: %q", out)
}
