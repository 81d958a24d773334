package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
)

const (
	configMapList = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","namespace":"ns"}}]}`
	coreDiscovery = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[` +
		`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["list","watch"]},` +
		`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["list","watch"]}]}`
)

// listServer answers each list with the next of lists (the last again once
// they run out), each watch with one ConfigMap event, and GET /api/v1 with
// coreDiscovery if discovery is set (else with 404, as a server without
// discovery would). It counts the discovery requests.
type listServer struct {
	mu        sync.Mutex // guards lists and asked
	lists     []string
	discovery bool
	asked     int
}

func (s *listServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/v1":
		s.asked++
		if !s.discovery {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, coreDiscovery)
	case r.URL.Query().Get("watch") == "true":
		_, _ = io.WriteString(w, cmEvent("ADDED", "a", "8")+"\n")
	default:
		_, _ = io.WriteString(w, s.lists[0])
		if len(s.lists) > 1 {
			s.lists = s.lists[1:]
		}
	}
}

// A resource's lists are checked against the resource's own kind, which the
// scheme (the Go type ConfigMap is the resource configmaps) or discovery
// (GET /api/v1: configmaps holds ConfigMap) says, never against an earlier
// answer. A SecretList answered for configmaps, or a list that names its kind
// twice, is refused with an error that says so, and the right ConfigMapList
// after it is accepted, as is a watch of ConfigMaps. Before, the first list's
// kind was remembered: one wrong answer made every right one after it fail for
// the client's lifetime.
// Diagram: step 1. client-go: none (a list is taken as it comes; the
// reflector's expectedGVK comes from the type it was made for).
func TestAWrongListIsRefusedWithoutDecidingTheNextOnes(t *testing.T) {
	wrong := map[string]struct{ body, want string }{
		"a SecretList": {`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"6"},"items":[{"metadata":{"name":"token","namespace":"ns"}}]}`,
			`^client: list configmaps: list response is a SecretList, but configmaps holds ConfigMap \(a ConfigMapList\)$`},
		"kind twice, the wrong one last": {`{"kind":"ConfigMapList","apiVersion":"v1","kind":"SecretList","metadata":{"resourceVersion":"6"},"items":[]}`,
			`^client: list configmaps: list response gives "kind" twice$`},
		// Refused at the first kind where the scheme knows ConfigMap, at the second otherwise.
		"kind twice, the right one last": {`{"kind":"SecretList","apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"6"},"items":[]}`,
			`^client: list configmaps: list response (is a SecretList, but configmaps holds ConfigMap \(a ConfigMapList\)|gives "kind" twice)$`},
	}
	knowers := map[string]struct {
		scheme    *runtime.Scheme
		discovery bool
	}{
		"typed, the scheme knows":       {newScheme(), false},
		"unstructured, discovery knows": {nil, true},
	}
	for knower, k := range knowers {
		for name, bad := range wrong {
			t.Run(knower+"/"+name, func(t *testing.T) {
				srv := &listServer{lists: []string{bad.body, configMapList}, discovery: k.discovery}
				c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, k.scheme)
				require.NoError(t, err)
				client.ServeInProcess(c, srv)
				cms := c.Resource(configMaps).Namespace("ns")

				refused, refusedErr := cms.List(context.Background(), metav1.ListOptions{})
				list, listErr := cms.List(context.Background(), metav1.ListOptions{})
				w, watchErr := cms.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "7"})

				assert.Nil(t, refused)
				require.Error(t, refusedErr)
				assert.Regexp(t, bad.want, refusedErr.Error())
				require.NoError(t, listErr, "the right list after the wrong one")
				items, err := meta.ExtractList(list)
				require.NoError(t, err)
				require.Len(t, items, 1)
				assert.Equal(t, "ConfigMap", items[0].GetObjectKind().GroupVersionKind().Kind)
				require.NoError(t, watchErr)
				events := drain(t, w)
				require.Len(t, events, 1)
				assert.Equal(t, watch.Added, events[0].Type, "a ConfigMap event, not an error: %v", events[0].Object)
			})
		}
	}
}

// Discovery is asked once per resource, after the first list that needed it,
// and its answer is kept: neither a server without discovery nor one with it
// is asked again for every list. A watch that follows lists expects the
// resource's kind.
// Diagram: step 1. client-go: none (controller-runtime's RESTMapper caches
// discovery the same way).
func TestDiscoveryIsAskedOnceForAResourcesKind(t *testing.T) {
	for _, discovery := range []bool{true, false} {
		srv := &listServer{lists: []string{configMapList}, discovery: discovery}
		c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, nil)
		require.NoError(t, err)
		client.ServeInProcess(c, srv)

		for range 3 {
			_, err := c.Resource(configMaps).Namespace("ns").List(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
		}

		assert.Equal(t, 1, srv.asked, "discovery served: %v", discovery)
	}
}
