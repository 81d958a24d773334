package samplecontrollertest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
)

var (
	leasesGVR     = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// reconcileLog records which candidate reconciled what, and how many
// candidates are leading at once.
type reconcileLog struct {
	mu      sync.Mutex // guards entries
	entries []string   // "identity ns/name"
	changed chan struct{}

	leading    atomic.Int32 // candidates running their leader runnables now
	maxLeading atomic.Int32
}

func (l *reconcileLog) add(identity string, req controller.Request) {
	l.mu.Lock()
	l.entries = append(l.entries, identity+" "+req.String())
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *reconcileLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...)
}

// waitFor waits until some entry is want, and fails the test after wait.
func (l *reconcileLog) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		for _, e := range l.snapshot() {
			if e == want {
				return
			}
		}
		select {
		case <-l.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %q; reconciled: %v", wait, want, l.snapshot())
		}
	}
}

// leaderRunnable counts how many candidates lead at once: the Manager runs
// it only while leading, like its controllers.
type leaderRunnable struct{ log *reconcileLog }

func (r leaderRunnable) Start(ctx context.Context) error {
	n := r.log.leading.Add(1)
	for {
		m := r.log.maxLeading.Load()
		if n <= m || r.log.maxLeading.CompareAndSwap(m, n) {
			break
		}
	}
	<-ctx.Done()
	r.log.leading.Add(-1)
	return nil
}

// attempts is a slog.Handler that counts a candidate's failed attempts to
// take the lease (its Debug line "lease held by another candidate") and
// writes Info and above to out.
type attempts struct {
	out     slog.Handler
	n       *atomic.Int32
	changed chan struct{}
}

func (h attempts) Enabled(context.Context, slog.Level) bool { return true }

func (h attempts) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "lease held by another candidate" {
		h.n.Add(1)
		select {
		case h.changed <- struct{}{}:
		default:
		}
	}
	if r.Level >= slog.LevelInfo {
		return h.out.Handle(ctx, r)
	}
	return nil
}

func (h attempts) WithAttrs(as []slog.Attr) slog.Handler {
	h.out = h.out.WithAttrs(as)
	return h
}

func (h attempts) WithGroup(name string) slog.Handler {
	h.out = h.out.WithGroup(name)
	return h
}

// waitFor waits until at least n attempts failed, and fails the test after wait.
func (h attempts) waitFor(t *testing.T, n int32) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for h.n.Load() < n {
		select {
		case <-h.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %d failed attempts (saw %d)", wait, n, h.n.Load())
		}
	}
}

// candidate builds a Manager competing for the Lease "foo-controller" in ns,
// with a controller over the namespace's ConfigMaps that records what it
// reconciles, and returns a function that stops it.
func candidate(t *testing.T, c *client.Client, ns, identity string, log *reconcileLog) (*manager.Manager, attempts, func() error) {
	t.Helper()
	tried := attempts{out: slog.NewTextHandler(t.Output(), nil), n: new(atomic.Int32), changed: make(chan struct{}, 1)}
	logger := slog.New(tried).With("candidate", identity)
	m, err := manager.New(manager.Options{
		NewClient: func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
			return c.Resource(gvr).Namespace(ns)
		},
		Namespace: ns,
		Scheme:    testenv.Scheme(t),
		LeaderElection: &leaderelection.Options{
			Client:        c.Resource(leasesGVR).Namespace(ns),
			Name:          "foo-controller",
			Identity:      identity,
			LeaseDuration: 6 * time.Second,
			RenewDeadline: 4 * time.Second,
			RetryPeriod:   500 * time.Millisecond,
		},
		Logger: logger,
	})
	require.NoError(t, err)
	require.NoError(t, m.Add(leaderRunnable{log: log}))
	err = builder.New(m).Named("configmaps-"+identity).For(configMapsGVR, &corev1.ConfigMap{}).
		WithOptions(controller.Options{Logger: logger}).
		Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			log.add(identity, req)
			return controller.Result{}, nil
		}))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- m.Start(ctx) }()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-result:
			case <-time.After(wait):
				stopErr = fmt.Errorf("candidate %s did not stop within %v", identity, wait)
			}
		})
		return stopErr
	}
	t.Cleanup(func() { assert.NoError(t, stop()) })
	return m, tried, stop
}

func elected(m *manager.Manager) bool {
	select {
	case <-m.Elected():
		return true
	default:
		return false
	}
}

// lease reads the Lease's holder and transitions from the server.
func lease(t *testing.T, c *client.Client, ns string) (holder string, transitions int64) {
	t.Helper()
	obj, err := c.Resource(leasesGVR).Namespace(ns).Get(t.Context(), "foo-controller", metav1.GetOptions{})
	require.NoError(t, err)
	u := obj.(*unstructured.Unstructured)
	holder, _, _ = unstructured.NestedString(u.Object, "spec", "holderIdentity")
	transitions, _, _ = unstructured.NestedInt64(u.Object, "spec", "leaseTransitions")
	return holder, transitions
}

// TestLeaderElectionOnRealLeaseOneReconcilesThenTheOther: two Managers
// compete for a coordination.k8s.io/v1 Lease on kube-apiserver. The first
// takes it and alone reconciles; the second tries every retry period and
// fails, since the lease is renewed. When the first stops, it
// stops its controller, then releases the Lease; the second takes over
// within a retry period or so (no need to wait out the lease duration) and
// reconciles, from its initial list and from then on. At no moment do both
// lead.
// Diagram: steps 7-9 (who runs them). client-go: tools/leaderelection LeaderElector with a LeaseLock, ReleaseOnCancel.
func TestLeaderElectionOnRealLeaseOneReconcilesThenTheOther(t *testing.T) {
	ns := testenv.Namespace(t)
	c := testenv.Client(t, testenv.Scheme(t)) // typed ConfigMaps, unstructured Leases
	cms := c.Resource(configMapsGVR).Namespace(ns)
	log := &reconcileLog{changed: make(chan struct{}, 1)}
	newCM := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetName(name)
		return u
	}

	a, _, stopA := candidate(t, c, ns, "a", log)
	select {
	case <-a.Elected():
	case <-time.After(wait):
		t.Fatal("a was never elected")
	}
	b, bTried, _ := candidate(t, c, ns, "b", log)
	_, err := cms.Create(t.Context(), newCM("first"), metav1.CreateOptions{})
	require.NoError(t, err)
	log.waitFor(t, "a "+ns+"/first")
	bTried.waitFor(t, 3) // b has tried, and failed, three times while a leads
	holder, transitions := lease(t, c, ns)
	assert.Equal(t, "a", holder)
	assert.False(t, elected(b), "b waits while a holds the lease")

	stoppedAt := time.Now()
	require.NoError(t, stopA())
	select {
	case <-b.Elected():
	case <-time.After(wait):
		t.Fatal("b never took over")
	}
	tookOver := time.Since(stoppedAt)
	_, err = cms.Create(t.Context(), newCM("second"), metav1.CreateOptions{})
	require.NoError(t, err)
	log.waitFor(t, "b "+ns+"/second")
	log.waitFor(t, "b "+ns+"/first") // b's initial list

	t.Logf("b took over %v after a stopped; reconciles: %v", tookOver.Round(time.Millisecond), log.snapshot())
	var byA, byB []string
	for _, e := range log.snapshot() {
		switch e[0] {
		case 'a':
			byA = append(byA, e)
		case 'b':
			byB = append(byB, e)
		}
	}
	assert.Equal(t, []string{"a " + ns + "/first"}, byA, "a reconciled while it led, and only then")
	assert.Contains(t, byB, "b "+ns+"/second")
	assert.Equal(t, int32(1), log.maxLeading.Load(), "never both leading")
	assert.Less(t, tookOver, 6*time.Second, "a released the lease: b did not wait for it to expire")
	newHolder, newTransitions := lease(t, c, ns)
	assert.Equal(t, "b", newHolder)
	assert.Equal(t, transitions+1, newTransitions)
}
