package reflector_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/reflector"
)

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// resource is what the scenario tests need of a resource handle: fakeapi's
// and client's *ResourceClient both have these methods.
type resource interface {
	reflector.ListerWatcher
	Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

func configMap(ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func expectedConfigMap() *unstructured.Unstructured { return configMap("", "") }

// waitStore is a concurrency-safe Store that records calls ("replace@RV n",
// "add ns/name", ...) and lets a test wait, with a deadline, for one to
// appear. It is for tests over real sockets, which cannot use a bubble.
type waitStore struct {
	mu      sync.Mutex // guards ops and objs
	ops     []string
	objs    map[string]bool
	changed chan struct{} // signalled (without blocking) after every call
}

func newWaitStore() *waitStore {
	return &waitStore{objs: map[string]bool{}, changed: make(chan struct{}, 1)}
}

func (s *waitStore) record(op string, f func()) error {
	s.mu.Lock()
	s.ops = append(s.ops, op)
	f()
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

func (s *waitStore) Add(obj any) error {
	k := key(obj)
	return s.record("add "+k, func() { s.objs[k] = true })
}

func (s *waitStore) Update(obj any) error {
	k := key(obj)
	return s.record("update "+k, func() { s.objs[k] = true })
}

func (s *waitStore) Delete(obj any) error {
	k := key(obj)
	return s.record("delete "+k, func() { delete(s.objs, k) })
}

func (s *waitStore) Replace(list []any, rv string) error {
	return s.record(fmt.Sprintf("replace@%s %d", rv, len(list)), func() {
		clear(s.objs)
		for _, o := range list {
			s.objs[key(o)] = true
		}
	})
}

func (s *waitStore) Resync() error { return s.record("resync", func() {}) }

// has reports whether the Store holds the object with key k.
func (s *waitStore) has(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.objs[k]
}

// countPrefix counts the recorded calls that start with prefix.
func (s *waitStore) countPrefix(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, op := range s.ops {
		if strings.HasPrefix(op, prefix) {
			n++
		}
	}
	return n
}

// waitFor waits until cond holds, re-checking after every Store call, and
// fails the test after d.
func (s *waitStore) waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-s.changed:
		case <-deadline.C:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("timed out after %v waiting for %s; Store calls: %v", d, what, s.ops)
		}
	}
}

// runReflector runs a Reflector on lw until the test ends, and returns a
// function that stops it and waits (with a deadline) for Run to return.
func runReflector(t *testing.T, lw reflector.ListerWatcher, store reflector.Store, opts reflector.Options) (*reflector.Reflector, func()) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	r := reflector.New(lw, expectedConfigMap(), store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10s of cancel")
		}
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r, stop
}

// listWatchCreateDelete is the scenario run against a real cluster and
// against fakeapi over HTTP: the initial list arrives, a created object is
// seen through the watch, then its deletion, then Run stops cleanly.
func listWatchCreateDelete(t *testing.T, res resource, ns string) {
	store := newWaitStore()
	r, stop := runReflector(t, res, store, reflector.Options{Name: "configmaps"})
	store.waitFor(t, 30*time.Second, "the initial list", func() bool { return store.countPrefix("replace@") > 0 })

	name := fmt.Sprintf("informerlab-reflector-%d", time.Now().UnixNano())
	_, err := res.Create(t.Context(), configMap(ns, name), metav1.CreateOptions{})
	require.NoError(t, err)
	store.waitFor(t, 30*time.Second, "the created ConfigMap", func() bool { return store.has(ns + "/" + name) })
	require.NoError(t, res.Delete(t.Context(), name, metav1.DeleteOptions{}))
	store.waitFor(t, 30*time.Second, "its deletion", func() bool { return !store.has(ns + "/" + name) })
	stop()

	assert.Equal(t, 1, store.countPrefix("replace@"), "no relist happened")
	assert.Equal(t, 1, store.countPrefix("add "+ns+"/"+name))
	assert.Equal(t, 1, store.countPrefix("delete "+ns+"/"+name))
	assert.NotEmpty(t, r.LastSyncResourceVersion())
}

// The Reflector against a real Kubernetes cluster: list, watch, a ConfigMap
// created by the test seen through the watch, its deletion, a clean stop.
// Set INFORMERLAB_KUBECONFIG to a disposable cluster's kubeconfig (kind,
// minikube; see docs/reflector.md).
// Diagram: step 1, 2. client-go: Reflector against a kube-apiserver
func TestRealCluster(t *testing.T) {
	path := os.Getenv("INFORMERLAB_KUBECONFIG")
	if path == "" {
		t.Skip("INFORMERLAB_KUBECONFIG is not set: point it at the kubeconfig of a disposable cluster (kind, minikube) to run this test")
	}
	cfg, err := client.LoadKubeconfig(path)
	require.NoError(t, err)
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	ns := cfg.Namespace
	if ns == "" {
		ns = "default"
	}

	listWatchCreateDelete(t, c.Resource(configMapsGVR).Namespace(ns), ns)
}
