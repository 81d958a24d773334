package builder_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/predicate"
	"github.com/informerlab/informerlab/fakeapi"
)

// TestBuilderWiresForOwnsWatchesAndFilters: a controller built with For
// (Foos), Owns (ConfigMaps) and Watches (Events mapped by a label), and an
// event filter, is named after For's kind and reconciles the right Foo for
// each change: the Foo itself, the controller owner of a ConfigMap, the Foo
// an Event names; filtered objects trigger nothing.
// Diagram: steps 6, 7, 8. client-go: controller-runtime builder.For/Owns/Watches/WithEventFilter.
func TestBuilderWiresForOwnsWatchesAndFilters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		require.NoError(t, srv.Register(fakeapi.ResourceInfo{GVR: ctrltest.FoosGVR, Kind: "Foo", Namespaced: true, HasStatus: true}))
		m := ctrltest.NewManager(t, srv, manager.Options{})
		rec := ctrltest.NewRecorder()
		byLabel := controller.EnqueueRequestsFromMapFunc(func(_ context.Context, obj controller.Object) []controller.Request {
			return []controller.Request{ctrltest.Req(obj.GetNamespace(), obj.GetLabels()["foo"])}
		})
		notIgnored := predicate.NewPredicateFuncs(func(obj controller.Object) bool { return obj.GetLabels()["ignore"] != "yes" })
		c, err := builder.New(m).
			For(ctrltest.FoosGVR, ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo")).
			Owns(ctrltest.CMGVR, ctrltest.ExampleCM()).
			Watches(ctrltest.EventsGVR, ctrltest.Example("v1", "Event"), byLabel).
			WithEventFilter(notIgnored).
			WithOptions(controller.Options{Logger: ctrltest.Quiet}).
			Build(rec)
		require.NoError(t, err)
		assert.Equal(t, "foo", c.Name())
		ctrltest.RunManager(t, m)
		synctest.Wait()
		step := func(obj *unstructured.Unstructured, gvr schema.GroupVersionResource) []string {
			rec.Reset()
			ctrltest.CreateAs(t, srv, gvr, obj)
			time.Sleep(time.Second)
			synctest.Wait()
			return rec.Requests()
		}
		foo := ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo")
		foo.SetNamespace("ns")
		foo.SetName("f1")
		ownedCM := ctrltest.Owned("ns", "f1-config", ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "f1", true))
		notController := ctrltest.Owned("ns", "shared", ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "f1", false))
		ignored := ctrltest.Owned("ns", "ignored", ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "f1", true))
		ignored.SetLabels(map[string]string{"ignore": "yes"})
		event := ctrltest.Example("v1", "Event")
		event.SetNamespace("ns")
		event.SetName("e1")
		event.SetLabels(map[string]string{"foo": "f2"})

		logStep := func(what string, got []string) []string {
			t.Logf("%-52s reconciles %v", what, got)
			return got
		}
		assert.Equal(t, []string{"ns/f1"}, logStep("create Foo f1 (For)", step(foo, ctrltest.FoosGVR)), "For")
		assert.Equal(t, []string{"ns/f1"}, logStep("create a ConfigMap controlled by f1 (Owns)", step(ownedCM, ctrltest.CMGVR)), "Owns: the controller owner")
		assert.Empty(t, logStep("create a ConfigMap f1 owns but does not control", step(notController, ctrltest.CMGVR)), "Owns follows only controller references")
		assert.Empty(t, logStep("create one labelled ignore=yes (WithEventFilter)", step(ignored, ctrltest.CMGVR)), "WithEventFilter")
		assert.Equal(t, []string{"ns/f2"}, logStep("create an Event labelled foo=f2 (Watches, mapped)", step(event, ctrltest.EventsGVR)), "Watches")
	})
}

// TestBuilderReportsMistakes: each misuse is an error from Complete, never a
// panic, prefixed with the package.
// Diagram: none. client-go: controller-runtime builder.Build validation.
func TestBuilderReportsMistakes(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	newMgr := func(scheme *runtime.Scheme) *manager.Manager {
		m, err := manager.New(manager.Options{NewListerWatcher: ctrltest.ListerWatchers(srv), Scheme: scheme, Logger: ctrltest.Quiet})
		require.NoError(t, err)
		return m
	}
	cm := ctrltest.ExampleCM()
	cases := []struct {
		name  string
		build func(b *builder.Builder) error
		want  string
	}{
		{"For twice", func(b *builder.Builder) error {
			return b.For(ctrltest.CMGVR, cm).For(ctrltest.CMGVR, cm).Complete(ctrltest.NewRecorder())
		}, "For can only be called once"},
		{"Owns without For", func(b *builder.Builder) error {
			return b.Named("x").Owns(ctrltest.CMGVR, cm).Complete(ctrltest.NewRecorder())
		}, "Owns needs For"},
		{"no watches", func(b *builder.Builder) error { return b.Named("x").Complete(ctrltest.NewRecorder()) }, "there are no watches configured"},
		{"no name", func(b *builder.Builder) error {
			return b.WatchesRawSource(controller.Channel(make(chan controller.GenericEvent), controller.EnqueueRequestForObject{})).Complete(ctrltest.NewRecorder())
		}, "needs a name: call Named, or For"},
		{"nil reconciler", func(b *builder.Builder) error { return b.For(ctrltest.CMGVR, cm).Complete(nil) }, "reconciler is nil"},
		{"unknown kind", func(b *builder.Builder) error {
			return b.For(ctrltest.CMGVR, &unstructured.Unstructured{}).Complete(ctrltest.NewRecorder())
		}, "cannot tell the kind of *unstructured.Unstructured"},
		{"kind from another group", func(b *builder.Builder) error {
			return b.For(ctrltest.FoosGVR, cm).Complete(ctrltest.NewRecorder())
		}, `example object is a ConfigMap of group "", not of "samplecontroller.k8s.io"`},
		{"nil handler", func(b *builder.Builder) error {
			return b.For(ctrltest.CMGVR, cm).Watches(ctrltest.EventsGVR, cm, nil).Complete(ctrltest.NewRecorder())
		}, "handler is nil"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build(builder.New(newMgr(nil)))
			t.Logf("%s: %v", tc.name, err)

			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Regexp(t, "^controller: builder: ", err.Error())
		})
	}

	t.Run("duplicate name", func(t *testing.T) {
		m := newMgr(nil)
		require.NoError(t, builder.New(m).For(ctrltest.CMGVR, cm).Complete(ctrltest.NewRecorder()))

		err := builder.New(m).For(ctrltest.CMGVR, cm).Complete(ctrltest.NewRecorder())

		assert.ErrorContains(t, err, `a controller named "configmap" was already added`)
	})
}

// TestHealthProbes: /healthz answers ok from the start; /readyz only once
// the cache has synced; both say "stopping" once shutdown begins. Served on
// a loopback socket while the Manager runs, closed after.
// Diagram: none (operations). client-go: controller-runtime pkg/healthz, Options.HealthProbeBindAddress.
func TestHealthProbes(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	m, err := manager.New(manager.Options{NewListerWatcher: ctrltest.ListerWatchers(srv), HealthProbeBindAddress: "127.0.0.1:0", Logger: ctrltest.Quiet})
	require.NoError(t, err)
	probe := func(h http.Handler, path string) (int, string) {
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, httptest.NewRequest(http.MethodGet, path, nil))
		return rr.Code, rr.Body.String()
	}
	code, _ := probe(m.HealthHandler(), "/healthz")
	assert.Equal(t, http.StatusOK, code)
	code, body := probe(m.HealthHandler(), "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "cache not synced")

	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- m.Start(ctx) }()
	select {
	case <-m.Elected():
	case <-time.After(10 * time.Second):
		t.Fatal("manager did not start within 10s")
	}
	base := "http://" + m.HealthProbeAddr().String()
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Equal(t, "ok", string(body))
	}

	cancel()
	require.NoError(t, <-result)
	_, err = http.Get(base + "/healthz")
	assert.Error(t, err, "the probe server is closed")
	code, body = probe(m.HealthHandler(), "/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "stopping")
}
