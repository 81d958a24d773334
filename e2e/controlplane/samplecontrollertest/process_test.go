package samplecontrollertest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// procFoos is how many Foos the process tests share between replicas.
const procFoos = 150

// TestShardedReplicasAsProcessesSurviveSIGKILL runs three cmd/samplecontroller
// processes as the replicas of one ring, on both control planes: once their
// stats show every bucket held exactly once and each replica caching exactly
// its buckets' Foos, replica-0 is SIGKILLed (no release: its Leases must
// expire), and the survivors must reconcile every Foo of its buckets within
// LeaseDuration + RenewDeadline + 5 s. The replicas' journals, merged, show
// no two replicas ever reconciling one Foo at once.
// Diagram: steps 1-9 across processes. client-go: none (sharded replicas).
func TestShardedReplicasAsProcessesSurviveSIGKILL(t *testing.T) {
	bin := buildSampleController(t)
	for _, p := range bothPlanes(t) {
		t.Run(p.name, func(t *testing.T) {
			ns := testenv.NamespaceOn(t, p.cp)
			c := testenv.ClientOf(t, p.cp, sc.NewScheme())
			buckets := createFoos(t, c, ns, procFoos)

			to := killTakeover(t, procRing{bin, p.cp.KubeconfigPath, ns, "kill"}, c, buckets)
			took, lost, runs := to.took, to.lost, to.runs

			t.Logf("%s: SIGKILL of 1 of 3 replica processes (%d Foos, %d of them in its buckets; Leases %v/%v/%v): every one reconciled by a survivor %v after the kill",
				p.name, procFoos, len(lost), procLeaseDuration, procRenewDeadline, procRetryPeriod, took.Round(time.Millisecond))
			assert.Less(t, took, procLeaseDuration+procRenewDeadline+5*time.Second, "takeover within LeaseDuration + RenewDeadline + relist and reconcile")
			assert.Empty(t, procOverlaps(runs), "no two replicas reconcile one Foo at once")
		})
	}
}

// killResult is what killTakeover saw.
type killResult struct {
	killed time.Time     // when replica-0 was SIGKILLed
	took   time.Duration // from then until its last Foo was reconciled by a survivor
	lost   []string      // the keys of replica-0's Foos
	runs   []procRun     // the merged journals
	heap   uint64        // the largest live heap of the three replicas before the kill
}

// killTakeover starts a ring of three processes over the Foos of r.ns,
// waits until they have split them and every Foo is ready, SIGKILLs
// replica-0, and waits until every Foo of its buckets has been reconciled
// without error by a survivor; the survivors are then stopped with SIGTERM
// and must exit 0. extra flags go to every replica.
func killTakeover(tb testing.TB, r procRing, c *client.Client, buckets map[string]int, extra ...string) killResult {
	tb.Helper()
	ps := r.startN(tb, 3, extra...)
	waitProcShares(tb, ps, buckets)
	waitReady(tb, c, r.ns, len(buckets))
	s0, _ := ps[0].readStats(tb)
	var lost []string
	for key, b := range buckets {
		if slices.Contains(s0.Held, b) {
			lost = append(lost, key)
		}
	}
	require.NotEmpty(tb, lost, "%s holds buckets with Foos", ps[0].name)
	var heap uint64
	for _, p := range ps {
		s, _ := p.readStats(tb)
		heap = max(heap, s.HeapLiveBytes)
	}

	killed := time.Now()
	ps[0].kill(tb)
	var last int64
	waitUntil(tb, scaledWait(len(buckets)), "the survivors to reconcile the killed replica's Foos", func() string {
		first := map[string]int64{}
		for _, run := range journals(tb, ps[1:]) {
			if run.OK && run.End > killed.UnixNano() && (first[run.Key] == 0 || run.End < first[run.Key]) {
				first[run.Key] = run.End
			}
		}
		last = 0
		for _, key := range lost {
			at, ok := first[key]
			if !ok {
				return fmt.Sprintf("%s (bucket %d) not reconciled by a survivor yet", key, buckets[key])
			}
			last = max(last, at)
		}
		return ""
	})
	waitProcShares(tb, ps[1:], buckets)
	ps[1].stop(tb)
	ps[2].stop(tb)
	return killResult{killed: killed, took: time.Duration(last - killed.UnixNano()), lost: lost, runs: journals(tb, ps), heap: heap}
}

// TestShardedReplicaPausedPastItsLeaseMakesNoWriteAfterLosingIt SIGSTOPs
// one of three replica processes for longer than LeaseDuration: the
// survivors take its buckets. Its Foos are then scaled, so there is work
// for it to do when it wakes, and at once it is sent SIGCONT. Its journal must show
// no successful write from the moment it was stopped until it holds a
// bucket again (the guard refuses a key whose bucket was not renewed within
// RenewDeadline, then drops it once the Lease is another's), and every Foo
// converges.
// Diagram: step 8 (the reconcile guard). client-go: none.
func TestShardedReplicaPausedPastItsLeaseMakesNoWriteAfterLosingIt(t *testing.T) {
	bin := buildSampleController(t)
	for _, p := range bothPlanes(t) {
		t.Run(p.name, func(t *testing.T) {
			ns := testenv.NamespaceOn(t, p.cp)
			c := testenv.ClientOf(t, p.cp, sc.NewScheme())
			buckets := createFoos(t, c, ns, procFoos)
			r := procRing{bin, p.cp.KubeconfigPath, ns, "pause"}
			ps := r.startN(t, 3)
			waitProcShares(t, ps, buckets)
			waitReady(t, c, ns, procFoos)
			s0, _ := ps[0].readStats(t)
			var paused []string
			for key, b := range buckets {
				if slices.Contains(s0.Held, b) {
					paused = append(paused, key)
				}
			}
			require.NotEmpty(t, paused)

			stopped := time.Now()
			ps[0].signal(t, syscall.SIGSTOP)
			waitProcShares(t, ps[1:], buckets)
			tookOver := time.Since(stopped)
			// Work for it when it wakes: it still caches these Foos, and
			// their new generation is on its watch. The survivors race it.
			scale(t, c, paused, 2)
			resumed := time.Now()
			ps[0].signal(t, syscall.SIGCONT)
			waitProcShares(t, ps, buckets)
			waitReady(t, c, ns, procFoos)

			regained := reacquired(t, c, ns, r.ring, ps[0].name, resumed)
			var after []procRun
			for _, run := range ps[0].readJournal(t) {
				if run.End > stopped.UnixNano() && run.Start < regained.UnixNano() {
					after = append(after, run)
				}
			}
			t.Logf("%s: replica-0 stopped %v, survivors held its buckets after %v, resumed after %v, held a bucket again %v after resuming; %d reconciles of it in between",
				p.name, time.Since(stopped).Round(time.Millisecond), tookOver.Round(time.Millisecond), resumed.Sub(stopped).Round(time.Millisecond),
				regained.Sub(resumed).Round(time.Millisecond), len(after))
			assert.Greater(t, tookOver, procLeaseDuration-procRetryPeriod, "the survivors waited for its Leases to expire")
			for _, run := range after {
				assert.Zero(t, run.Writes, "replica-0 wrote for %s after it lost its Leases (%+v)", run.Key, run)
			}
			assert.Empty(t, procOverlaps(journals(t, ps)), "no two replicas reconcile one Foo at once")
		})
	}
}

// scale sets spec.replicas of the Foos keys to n.
func scale(tb testing.TB, c *client.Client, keys []string, n int) {
	tb.Helper()
	for _, key := range keys {
		ns, name, _ := cutKey(key)
		_, err := c.Resource(sc.FoosGVR).Namespace(ns).Patch(context.Background(), name, types.MergePatchType,
			fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n), metav1.PatchOptions{})
		require.NoError(tb, err)
	}
}

func cutKey(key string) (ns, name string, ok bool) {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// reacquired returns the earliest acquireTime after since of the ring's
// bucket Leases that identity holds: when it held a bucket again (the
// acquirer's clock, this machine's).
func reacquired(tb testing.TB, c *client.Client, ns, ring, identity string, since time.Time) time.Time {
	tb.Helper()
	list, err := c.Resource(sc.LeasesGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(tb, err)
	items, err := meta.ExtractList(list)
	require.NoError(tb, err)
	var first time.Time
	for _, item := range items {
		u, ok := item.(*unstructured.Unstructured)
		require.True(tb, ok, "a Lease is unstructured")
		holder, _, _ := unstructured.NestedString(u.Object, "spec", "holderIdentity")
		acquired, _, _ := unstructured.NestedString(u.Object, "spec", "acquireTime")
		if holder != identity || len(u.GetName()) < len(ring)+8 || u.GetName()[:len(ring)+8] != ring+"-bucket-" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, acquired)
		require.NoError(tb, err)
		if at.After(since) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	require.False(tb, first.IsZero(), "%s holds a bucket again", identity)
	return first
}

// TestShardedReplicasEachReceiveAndCacheTheirShare measures, on both
// control planes, what each replica receives and keeps: the Foos' bytes a
// replica receives when every Foo changes once (a label, which no
// controller acts on), and its live heap. It runs a ring of one replica
// (everything), a replica with no Foos (the baseline heap of the program),
// then a ring of three. With the gate on, each of the three receives its
// buckets' share of the one replica's bytes; with it off, every replica
// receives them all (the client filters). With the gate on, each of the
// three keeps at most its share of the one replica's heap plus the empty
// replica's, plus 10% (its share, not a third: rendezvous hashing gives 16
// buckets to three replicas unevenly, 7/5/4 typically); either way each
// caches exactly its buckets' Foos and their Deployments (selected by the
// bucket label, which every server honours).
// Diagram: step 1 (List & Watch, sharded). client-go: none.
func TestShardedReplicasEachReceiveAndCacheTheirShare(t *testing.T) {
	bin := buildSampleController(t)
	for _, p := range bothPlanes(t) {
		t.Run(p.name, func(t *testing.T) {
			ns := testenv.NamespaceOn(t, p.cp)
			empty := testenv.NamespaceOn(t, p.cp)
			c := testenv.ClientOf(t, p.cp, sc.NewScheme())
			buckets := createFoos(t, c, ns, procFoos)

			f := measureShares(t, bin, p.cp.KubeconfigPath, ns, empty, c, buckets)

			t.Logf("%s, %d Foos:\n%s", p.name, procFoos, f.table())
			for i, r := range f.three {
				expected := float64(f.one.bytes) * float64(r.foos) / float64(procFoos)
				if !p.filters {
					expected = float64(f.one.bytes)
				}
				assert.InDelta(t, expected, float64(r.bytes), shareTolerance*expected,
					"replica-%d (%d Foos) receives %d bytes of Foo changes, want %.0f ± %.0f%%", i, r.foos, r.bytes, expected, 100*shareTolerance)
				assert.Equal(t, r.foos, r.deps, "replica-%d caches its Foos' Deployments and no other", i)
				if p.filters {
					share := float64(r.foos) / float64(procFoos)
					assert.LessOrEqual(t, float64(r.heap), 1.1*(share*float64(f.one.heap)+float64(f.empty.heap)),
						"replica-%d's heap ≤ (its share %.2f of one replica's + an empty replica's) + 10%%", i, share)
				}
			}
		})
	}
}

// shareTolerance is how far a replica's received bytes may be from its
// share. The Foos are alike (names and Deployment names of one length, one
// replica each), so a watch event costs about the same for every Foo; what
// differs is a few bytes of resourceVersion and the occasional BOOKMARK
// event, well under 1% at 150 Foos. 15% leaves room for a watch that is
// re-established during the measurement (its events are not resent, but
// its initial BOOKMARK is), without letting 1/3 pass for 1.
const shareTolerance = 0.15

// replicaFigures is what one replica received and kept.
type replicaFigures struct {
	foos  int    // Foos cached
	deps  int    // Deployments cached
	bytes int64  // bytes of Foos received while every Foo changed once (empty: in all)
	heap  uint64 // live heap after a GC, settled
}

// shareFigures are the figures of measureShares.
type shareFigures struct {
	one   replicaFigures
	empty replicaFigures // a replica with no Foo and no Deployment
	three []replicaFigures
}

func (f shareFigures) table() string {
	s := fmt.Sprintf("%-12s %6s %6s %14s %14s\n", "replica", "foos", "deps", "foo bytes", "heap bytes")
	row := func(name string, r replicaFigures) {
		s += fmt.Sprintf("%-12s %6d %6d %14d %14d\n", name, r.foos, r.deps, r.bytes, r.heap)
	}
	row("one of one", f.one)
	row("empty", f.empty)
	for i, r := range f.three {
		row(fmt.Sprintf("%d of three", i), r)
	}
	return s
}

// measureShares runs the three rings of TestShardedReplicasEachReceiveAndCacheTheirShare
// one after the other and returns their figures.
func measureShares(tb testing.TB, bin, kubeconfig, ns, emptyNS string, c *client.Client, buckets map[string]int) shareFigures {
	tb.Helper()
	var f shareFigures
	solo := procRing{bin, kubeconfig, ns, "one"}.start(tb, "solo")
	waitProcShares(tb, []*replicaProcess{solo}, buckets)
	waitReady(tb, c, ns, len(buckets))
	f.one = touchAndMeasure(tb, c, ns, []*replicaProcess{solo}, "one")[0]
	solo.stop(tb)

	none := procRing{bin, kubeconfig, emptyNS, "empty"}.start(tb, "empty")
	waitProcShares(tb, []*replicaProcess{none}, nil)
	f.empty = settled(tb, []*replicaProcess{none})[0]
	none.stop(tb)

	ps := procRing{bin, kubeconfig, ns, "three"}.startN(tb, 3)
	waitProcShares(tb, ps, buckets)
	waitReady(tb, c, ns, len(buckets))
	f.three = touchAndMeasure(tb, c, ns, ps, "three")
	for _, p := range ps {
		p.stop(tb)
	}
	return f
}

// touchAndMeasure waits until the replicas' counts of Foo bytes received
// stop growing, changes a label on every Foo of ns, waits until the counts
// stop growing again, and returns each one's growth, cache size and
// settled heap.
func touchAndMeasure(tb testing.TB, c *client.Client, ns string, ps []*replicaProcess, mark string) []replicaFigures {
	tb.Helper()
	// The last status writes' events may still be on their way: start
	// from counts that have stopped growing.
	before := settled(tb, ps)
	list, err := c.Resource(sc.FoosGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(tb, err)
	items, err := meta.ExtractList(list)
	require.NoError(tb, err)
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{"touched":%q}}}`, mark)
	next := make(chan string)
	errs := make(chan error, len(items))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for name := range next {
				if _, err := c.Resource(sc.FoosGVR).Namespace(ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					errs <- err
				}
			}
		})
	}
	for _, obj := range items {
		m, err := meta.Accessor(obj)
		require.NoError(tb, err)
		next <- m.GetName()
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(tb, err, "label a Foo")
	}
	figs := settled(tb, ps)
	for i := range figs {
		figs[i].bytes -= before[i].bytes
	}
	return figs
}

// settled waits until no replica's count of Foo bytes has changed for 1.5 s
// and each has forced a GC since, then returns their figures (bytes: the
// total so far).
func settled(tb testing.TB, ps []*replicaProcess) []replicaFigures {
	tb.Helper()
	const quiet = 1500 * time.Millisecond
	last := make([]int64, len(ps))
	changed := time.Now()
	figs := make([]replicaFigures, len(ps))
	waitUntil(tb, wait, "the replicas' Foo bytes to settle", func() string {
		for i, p := range ps {
			s, _ := p.readStats(tb)
			if s.BytesReceived["foos"] != last[i] {
				last[i], changed = s.BytesReceived["foos"], time.Now()
			}
			figs[i] = replicaFigures{foos: s.Foos, deps: s.Deployments, bytes: s.BytesReceived["foos"], heap: s.HeapLiveBytes}
			// The heap figure is of a GC at most 2 s old: wait one more.
			if time.Unix(0, s.Time).Before(changed.Add(quiet + 2500*time.Millisecond)) {
				return fmt.Sprintf("%s's last snapshot is from before the bytes settled", p.name)
			}
		}
		if time.Since(changed) < quiet {
			return "Foo bytes still growing"
		}
		return ""
	})
	return figs
}
