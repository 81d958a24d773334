package informertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

const (
	writeTarget = 2000             // successful writes, over both resources
	writers     = 4                // goroutines writing at once
	namesPerRes = 60               // object names per resource: creates, updates and deletes collide
	wait        = 90 * time.Second // bounds every wait on the server or the informers
)

// subject is one resource under test, with its informer and handlers.
type subject struct {
	name     string
	res      *client.ResourceClient // scoped to the test's namespace
	newObj   func(name string) runtime.Object
	inf      informer.SharedIndexInformer
	log      *testenv.Transitions
	handlers map[string]*recorder
}

// TestInformerConvergesThroughRestartAndCompaction: see the package doc.
// Diagram: steps 1-6. client-go: the SharedIndexInformer contract (eventual consistency).
func TestInformerConvergesThroughRestartAndCompaction(t *testing.T) {
	cp := testenv.ControlPlane(t)
	ns := testenv.Namespace(t)
	c := testenv.Client(t, testenv.Scheme(t))
	subjects := []*subject{
		{
			name: "podtemplates (no watch cache, DeltaFIFO)",
			res:  c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"}).Namespace(ns),
			newObj: func(name string) runtime.Object {
				return &corev1.PodTemplate{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PodTemplate"},
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
					}},
				}
			},
		},
		{
			name: "configmaps (watch cache, RealFIFO)",
			res:  c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns),
			newObj: func(name string) runtime.Object {
				return &corev1.ConfigMap{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
					ObjectMeta: metav1.ObjectMeta{Name: name},
				}
			},
		},
	}
	queues := []informer.QueueKind{informer.QueueDeltaFIFO, informer.QueueRealFIFO}
	examples := []runtime.Object{&corev1.PodTemplate{}, &corev1.ConfigMap{}}
	for i, s := range subjects {
		s.log = testenv.NewTransitions(t.Output())
		s.handlers = map[string]*recorder{"fast": newRecorder(0), "slow": newRecorder(2 * time.Millisecond)}
		// Short watches, so that watches re-open often, some of them from a
		// resourceVersion a compaction has just removed.
		s.inf = informer.NewSharedIndexInformer(s.res, examples[i], 0, nil,
			informer.WithQueue(queues[i]), informer.WithLogger(s.log.Logger()),
			informer.WithReflectorOptions(reflector.Options{Name: s.name, MinWatchTimeout: 5 * time.Second}))
		for _, h := range []string{"fast", "slow"} {
			_, err := s.inf.AddEventHandler(s.handlers[h])
			require.NoError(t, err)
		}
		runInformer(t, s.inf)
	}
	for _, s := range subjects {
		select {
		case <-s.inf.Done():
		case <-time.After(wait):
			t.Fatalf("%s did not sync", s.name)
		}
	}

	// Writers, and the faults, while the informers watch.
	began := time.Now()
	var (
		gate      sync.RWMutex // writers hold it shared; the restart holds it alone
		succeeded atomic.Int64
		quiet     atomic.Bool              // PodTemplates get no writes while set
		progress  = make(chan struct{}, 1) // signalled (without blocking) after every successful write
		statsMu   sync.Mutex               // guards stats
		stats     = map[string]int{}
		faults    []string
	)
	count := func(what string) {
		statsMu.Lock()
		stats[what]++
		statsMu.Unlock()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for succeeded.Load() < writeTarget && ctx.Err() == nil {
				s := subjects[rng.IntN(len(subjects))]
				if quiet.Load() {
					s = subjects[1]
				}
				name := fmt.Sprintf("obj-%02d", rng.IntN(namesPerRes))
				op, err := write(ctx, &gate, s, name, rng.IntN(100), count)
				switch {
				case err == nil:
					succeeded.Add(1)
					count(op)
					select {
					case progress <- struct{}{}:
					default:
					}
				case apierrors.IsNotFound(err), apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
					count(op + " (refused)")
				case ctx.Err() != nil:
					return
				default:
					t.Errorf("%s %s/%s: %v", op, s.name, name, err)
					cancel()
					return
				}
			}
		})
	}
	wg.Go(func() {
		pt := subjects[0]
		fail := func(what string, err error) {
			t.Errorf("%s: %v", what, err)
			cancel()
		}

		// Compaction bites: PodTemplates go quiet while ConfigMaps are still
		// written, so etcd's revision moves past the PodTemplates informer's
		// resourceVersion (no bookmark tells it: no watch cache). After the
		// compaction its next watch (at most 10s later) gets 410 Expired and
		// it relists, while PodTemplates are written again: deletions made
		// before the relist reach the handlers as tombstones.
		if !waitForWrites(ctx, &succeeded, progress, writeTarget/4) {
			return
		}
		quiet.Store(true)
		before := succeeded.Load()
		if !waitForWrites(ctx, &succeeded, progress, before+10) {
			return
		}
		rev, err := cp.Compact(ctx)
		if err != nil {
			fail("compact", err)
			return
		}
		expiredCtx, cancelExpired := context.WithTimeout(ctx, wait)
		saw410 := pt.log.WaitFor(expiredCtx, "too old")
		cancelExpired()
		quiet.Store(false)
		if !saw410 {
			fail("compaction", fmt.Errorf("the PodTemplates informer never saw 410 after the compaction at %d", rev))
			return
		}
		faults = append(faults, fmt.Sprintf("compacted at revision %d after %d writes, PodTemplates quiet: 410 and relist", rev, before))

		// Restart: compact, stop kube-apiserver, start it on the same port.
		if !waitForWrites(ctx, &succeeded, progress, writeTarget/2) {
			return
		}
		if rev, err = cp.Compact(ctx); err != nil {
			fail("compact", err)
			return
		}
		gate.Lock()
		stopped := time.Now()
		err = cp.StopAPIServer()
		if err == nil {
			err = cp.StartAPIServer(ctx)
		}
		downtime := time.Since(stopped)
		gate.Unlock()
		if err != nil {
			fail("restart", err)
			return
		}
		faults = append(faults, fmt.Sprintf("compacted at revision %d, then kube-apiserver restarted after %d writes, down %v",
			rev, succeeded.Load(), downtime.Round(time.Millisecond)))
		for _, s := range subjects {
			s.handlers["late"] = newRecorder(0)
			if _, err := s.inf.AddEventHandler(s.handlers["late"]); err != nil {
				fail("late handler", err)
			}
		}

		// One more compaction, with everything running.
		if !waitForWrites(ctx, &succeeded, progress, 3*writeTarget/4) {
			return
		}
		if rev, err = cp.Compact(ctx); err != nil {
			fail("compact", err)
			return
		}
		faults = append(faults, fmt.Sprintf("compacted at revision %d after %d writes", rev, succeeded.Load()))
	})
	wg.Wait()
	require.False(t, t.Failed(), "the writers failed")
	writing := time.Since(began)

	// Quiescence: one last write per resource; once every handler has seen
	// it, every handler and cache has seen everything before it.
	for _, s := range subjects {
		out, err := s.res.Create(t.Context(), s.newObj("marker"), metav1.CreateOptions{})
		require.NoError(t, err)
		key, rv := keyRV(out)
		for hname, h := range s.handlers {
			waitFor(t, h, fmt.Sprintf("%s handler %s to see the marker", s.name, hname), func() bool { return h.has(key, rv) })
		}
	}

	// The marker alone does not prove a handler has caught up: if a relist
	// brought it, the list (in name order) may have delivered it before the
	// objects after it. Wait for each handler's view to reach the server's.
	for _, s := range subjects {
		want := serverView(t, s.res)
		for hname, h := range s.handlers {
			waitFor(t, h, fmt.Sprintf("%s handler %s to reach the server's view", s.name, hname), func() bool {
				view, _ := h.snapshot()
				return maps.Equal(view, want)
			})
		}
	}

	for _, s := range subjects {
		want := serverView(t, s.res)
		assert.Equal(t, want, cacheView(s.inf), "%s: cache == server", s.name)
		for hname, h := range s.handlers {
			view, problems := h.snapshot()
			assert.Equal(t, want, view, "%s: handler %s's view == server", s.name, hname)
			assert.Empty(t, problems, "%s: handler %s got inconsistent notifications", s.name, hname)
		}
		calls, tombstones := s.handlers["fast"].counts()
		lists := s.log.Count("-> listing")
		expired := s.log.Count("Expired") + s.log.Count("too old")
		for _, e := range s.log.List() {
			if !strings.HasPrefix(e, "watching -> watching") {
				t.Logf("%s: %s", s.name, e)
			}
		}
		t.Logf("%s: %d objects at the end; %d lists (%d relists), %d transitions naming 410/too old; fast handler: %d notifications, %d tombstones",
			s.name, len(want), lists, lists-1, expired, calls, tombstones)
	}
	statsMu.Lock()
	defer statsMu.Unlock()
	t.Logf("%d successful writes from %d goroutines in %v (%.0f/s); by kind: %v", succeeded.Load(), writers,
		writing.Round(time.Millisecond), float64(succeeded.Load())/writing.Seconds(), sortedStats(stats))
	t.Logf("faults: %v", faults)
}

// write makes one random write to name: a create (35%), an update (get, then
// update: 40%) or a delete (25%), holding the gate shared. A request that got
// no answer from the server (a connection the restart broke) is tried again,
// up to five times.
func write(ctx context.Context, gate *sync.RWMutex, s *subject, name string, p int, count func(string)) (string, error) {
	gate.RLock()
	defer gate.RUnlock()
	var op string
	do := func() error {
		switch {
		case p < 35:
			op = "create"
			_, err := s.res.Create(ctx, s.newObj(name), metav1.CreateOptions{})
			return err
		case p < 75:
			op = "update"
			obj, err := s.res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			m, err := meta.Accessor(obj)
			if err != nil {
				return err
			}
			m.SetAnnotations(map[string]string{"value": fmt.Sprint(rand.Int64())})
			_, err = s.res.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		default:
			op = "delete"
			return s.res.Delete(ctx, name, metav1.DeleteOptions{})
		}
	}
	var err error
	for attempt := range 5 {
		err = do()
		var status apierrors.APIStatus
		if err == nil || errors.As(err, &status) || ctx.Err() != nil {
			return op, err
		}
		count("retried after a transport error")
		select {
		case <-ctx.Done():
			return op, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		}
	}
	return op, err
}

// waitForWrites waits until n writes have succeeded, re-checking whenever
// progress is signalled; false if ctx ended first.
func waitForWrites(ctx context.Context, succeeded *atomic.Int64, progress <-chan struct{}, n int64) bool {
	for succeeded.Load() < n {
		select {
		case <-ctx.Done():
			return false
		case <-progress:
		}
	}
	return true
}

// waitFor waits until cond holds, re-checking after every call to h, and
// fails the test after wait.
func waitFor(t *testing.T, h *recorder, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-h.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s", wait, what)
		}
	}
}

// runInformer runs inf until the test ends.
func runInformer(t *testing.T, inf informer.SharedIndexInformer) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// serverView lists the resource at the newest resourceVersion: key -> resourceVersion.
func serverView(t *testing.T, res *client.ResourceClient) map[string]string {
	t.Helper()
	list, err := res.List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	objs, err := meta.ExtractList(list)
	require.NoError(t, err)
	view := map[string]string{}
	for _, o := range objs {
		k, rv := keyRV(o)
		view[k] = rv
	}
	return view
}

// cacheView reads an informer's cache: key -> resourceVersion.
func cacheView(inf informer.SharedIndexInformer) map[string]string {
	view := map[string]string{}
	for _, o := range inf.GetStore().List() {
		k, rv := keyRV(o)
		view[k] = rv
	}
	return view
}

func sortedStats(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(out)
	return out
}
