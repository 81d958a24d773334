package samplecontrollertest

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// BenchmarkShardRingLeaseWritesAtRest measures what a shard ring costs the
// API server when nothing moves: N members (in this process, each with its
// own client over HTTP) share B buckets on kube-apiserver with the default
// timings (LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s). Once
// every bucket is held by its owner, a watch on the ring's namespace counts
// the Lease events for 20 s: every event is a write. It reports
// lease-writes/s and lease-writes/period (per RetryPeriod; N is the
// design's bound, one member Lease per member), for N = 3 and 8 and B = 16
// and 256. It runs once whatever b.N: run it with -benchtime 1x.
//
//	cd e2e/controlplane && go test ./samplecontrollertest -run '^$' -bench ShardRingLeaseWritesAtRest -benchtime 1x -timeout 20m
func BenchmarkShardRingLeaseWritesAtRest(b *testing.B) {
	cp := testenv.ControlPlane(b)
	for _, members := range []int{3, 8} {
		for _, buckets := range []int{16, 256} {
			b.Run(fmt.Sprintf("members=%d/buckets=%d", members, buckets), func(b *testing.B) {
				perSecond := leaseWritesAtRest(b, cp, members, buckets, 20*time.Second)
				b.ReportMetric(perSecond, "lease-writes/s")
				b.ReportMetric(perSecond*leaseRetryDefault.Seconds(), "lease-writes/period")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

const leaseRetryDefault = 2 * time.Second

// leaseWritesAtRest starts a ring of members sharing buckets in a fresh
// namespace of cp, waits until every bucket is admitted by its owner, and
// returns the Lease writes per second a watch sees over window.
func leaseWritesAtRest(tb testing.TB, cp *controlplane.ControlPlane, members, buckets int, window time.Duration) float64 {
	ns := testenv.NamespaceOn(tb, cp)
	ctx, cancel := context.WithCancel(context.Background())
	var ms []*sharding.Member
	var names []string
	done := make(chan error, members)
	for i := range members {
		leases := testenv.ClientOf(tb, cp, nil).Resource(sc.LeasesGVR).Namespace(ns)
		m, err := sharding.NewMember(sharding.Options{
			Client: leases, Ring: "rest", Identity: fmt.Sprintf("replica-%d", i), Buckets: buckets,
			Logger: slog.New(slog.DiscardHandler),
		})
		require.NoError(tb, err)
		ms, names = append(ms, m), append(names, m.Identity())
		go func() { done <- m.Start(ctx) }()
	}
	defer func() {
		cancel()
		for range members {
			require.NoError(tb, <-done)
		}
	}()

	want := sharding.BucketOwners(names, buckets)
	settled := func() bool {
		for b, owner := range want {
			for i, m := range ms {
				if m.Admits(b) != (names[i] == owner) {
					return false
				}
			}
		}
		return true
	}
	began := time.Now()
	for !settled() {
		require.Less(tb, time.Since(began), 2*time.Minute, "the ring settles")
		time.Sleep(100 * time.Millisecond)
	}
	tb.Logf("%d members, %d buckets: settled in %v", members, buckets, time.Since(began).Round(time.Millisecond))

	leases := testenv.ClientOf(tb, cp, nil).Resource(sc.LeasesGVR).Namespace(ns)
	list, err := leases.List(ctx, metav1.ListOptions{})
	require.NoError(tb, err)
	lm, err := meta.ListAccessor(list)
	require.NoError(tb, err)
	w, err := leases.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.GetResourceVersion()})
	require.NoError(tb, err)
	defer w.Stop()
	writes := map[string]int{}
	end := time.After(window)
	for counting := true; counting; {
		select {
		case <-end:
			counting = false
		case ev, ok := <-w.ResultChan():
			require.True(tb, ok, "the watch stays open for the window")
			if ev.Type == watch.Bookmark {
				continue
			}
			obj, err := meta.Accessor(ev.Object)
			require.NoError(tb, err)
			writes[obj.GetName()]++
		}
	}
	require.True(tb, settled(), "no bucket moved while counting")
	total := 0
	var top []string
	for name, n := range writes {
		total += n
		top = append(top, fmt.Sprintf("%s %d", name, n))
	}
	slices.Sort(top)
	tb.Logf("%d members, %d buckets, at rest: %d Lease events in %v: %v", members, buckets, total, window, top)
	return float64(total) / window.Seconds()
}
