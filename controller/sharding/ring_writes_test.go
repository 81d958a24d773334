package sharding_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/controller/sharding"
)

// countingLeases counts the Lease writes (Create and Update) a member sends,
// by Lease name.
type countingLeases struct {
	sharding.LeaseClient
	mu     sync.Mutex
	writes map[string]int
}

func (c *countingLeases) count(obj runtime.Object) {
	lease, _, err := leaderelection.ReadLease(obj)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes[lease.GetName()]++
}

func (c *countingLeases) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	c.count(obj)
	return c.LeaseClient.Create(ctx, obj, opts)
}

func (c *countingLeases) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	c.count(obj)
	return c.LeaseClient.Update(ctx, obj, opts)
}

// take returns the writes counted so far and starts counting again.
func (c *countingLeases) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.writes
	c.writes = map[string]int{}
	return out
}

func startMember(t *testing.T, ctx context.Context, client sharding.LeaseClient, name string, buckets int) (*sharding.Member, chan struct{}) {
	t.Helper()
	m, err := sharding.NewMember(sharding.Options{
		Client: client, Ring: "foo", Identity: name, Buckets: buckets,
		LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry, Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, m.Start(ctx))
	}()
	return m, done
}

// TestShardRingAtRestWritesOneLeasePerMemberPerRetryPeriod: once a ring
// has settled, each member writes only its member Lease, once per
// RetryPeriod, whatever the number of buckets (16 or 256), and no bucket
// changes hands although no bucket Lease is renewed for many times
// LeaseDuration: a bucket's holder is valid while its member Lease is.
// Diagram: step 9 (who may run it). client-go: tools/leaderelection (one write per RetryPeriod per candidate).
func TestShardRingAtRestWritesOneLeasePerMemberPerRetryPeriod(t *testing.T) {
	for _, buckets := range []int{16, 256} {
		t.Run(fmt.Sprintf("buckets=%d", buckets), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := ctrltest.NewServer(t)
				ctx, cancel := context.WithCancel(context.Background())
				names := []string{"replica-0", "replica-1", "replica-2"}
				counters := map[string]*countingLeases{}
				var members []*sharding.Member
				var dones []chan struct{}
				for _, n := range names {
					c := &countingLeases{LeaseClient: srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"), writes: map[string]int{}}
					counters[n] = c
					m, done := startMember(t, ctx, c, n, buckets)
					members, dones = append(members, m), append(dones, done)
				}
				want := sharding.BucketOwners(names, buckets)
				settled := func() bool {
					for b := range buckets {
						for i, m := range members {
							if m.Admits(b) != (want[b] == names[i]) {
								return false
							}
						}
					}
					return true
				}
				for !settled() {
					time.Sleep(ringRetry)
				}
				time.Sleep(ringRetry)
				for _, c := range counters {
					c.take()
				}

				const periods = 20 // 10 s: two and a half LeaseDurations
				time.Sleep(periods * ringRetry)
				assert.True(t, settled(), "no bucket moved while the ring was at rest")
				total := 0
				for _, n := range names {
					writes := counters[n].take()
					for lease, k := range writes {
						total += k
						assert.Equal(t, "foo-member-"+n, lease, "%s wrote only its member Lease at rest (it wrote %s %d times)", n, lease, k)
						assert.LessOrEqual(t, k, periods+1, "%s renewed its member Lease once per RetryPeriod", n)
					}
				}
				t.Logf("%d buckets, 3 members, at rest: %d Lease writes in %d retry periods (%.1f per period)", buckets, total, periods, float64(total)/periods)
				cancel()
				for _, d := range dones {
					<-d
				}
			})
		})
	}
}

// TestShardRingTakesABucketNamingAMemberWithoutAMemberLeaseAfterLeaseDuration:
// a bucket Lease whose holder has no member Lease (deleted by hand, or a
// member of an older ring) is taken LeaseDuration after the member first
// saw it so, not before: a missing member Lease waits out a Lease's length,
// as an expiry does.
// Diagram: step 9. client-go: tools/leaderelection (expiry judged by the local clock).
func TestShardRingTakesABucketNamingAMemberWithoutAMemberLeaseAfterLeaseDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		leases := srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system")
		now := time.Now().Round(0).Truncate(time.Microsecond)
		ghost := leaderelection.NewLease("foo-bucket-3", leaderelection.LeaseRecord{
			HolderIdentity: "ghost", LeaseDurationSeconds: 4, AcquireTime: now, RenewTime: now,
		})
		ghost.SetLabels(map[string]string{sharding.RingLabel: "foo"})
		_, err := leases.Create(context.Background(), ghost, metav1.CreateOptions{})
		require.NoError(t, err)

		ctx, cancel := context.WithCancel(context.Background())
		m, done := startMember(t, ctx, leases, "replica-0", 4)
		start := time.Now()
		for !m.Admits(3) {
			time.Sleep(ringRetry / 10)
		}
		took := time.Since(start)
		t.Logf("bucket 3, held by a member with no member Lease, taken %v after the member joined", took)
		assert.GreaterOrEqual(t, took, ringLease)
		assert.LessOrEqual(t, took, ringLease+2*ringRetry)
		holder, tr, _ := leaseOf(t, srv, "foo-bucket-3")
		assert.Equal(t, "replica-0", holder)
		assert.Equal(t, int64(1), tr, "a change of hands counts a transition")
		cancel()
		<-done
	})
}

// TestShardRingFreesBucketLeasesStillNamingARestartedMember: a member that
// restarts under the same identity finds bucket Leases naming it that it
// does not hold; those the ring now gives to another member it frees at
// once (their holder cleared), so the new owner takes them without waiting
// for an expiry that would never come: the restarted member's Lease is live.
// Diagram: step 9. client-go: none.
func TestShardRingFreesBucketLeasesStillNamingARestartedMember(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		leases := srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system")
		now := time.Now().Round(0).Truncate(time.Microsecond)
		// replica-0's former life held every bucket.
		for b := range 8 {
			l := leaderelection.NewLease(fmt.Sprintf("foo-bucket-%d", b), leaderelection.LeaseRecord{
				HolderIdentity: "replica-0", LeaseDurationSeconds: 4, AcquireTime: now, RenewTime: now,
			})
			l.SetLabels(map[string]string{sharding.RingLabel: "foo"})
			_, err := leases.Create(context.Background(), l, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		a, doneA := startMember(t, ctx, leases, "replica-0", 8)
		b, doneB := startMember(t, ctx, leases, "replica-1", 8)
		start := time.Now()
		want := sharding.BucketOwners([]string{"replica-0", "replica-1"}, 8)
		for {
			ok := true
			for bucket, owner := range want {
				m := a
				if owner == "replica-1" {
					m = b
				}
				ok = ok && m.Admits(bucket)
			}
			if ok {
				break
			}
			require.Less(t, time.Since(start), ringLease, "the ring settled before any Lease could have expired")
			time.Sleep(ringRetry / 10)
		}
		t.Logf("settled %v after start, with replica-0's stale bucket Leases freed or taken again", time.Since(start))
		for bucket, owner := range want {
			holder, _, _ := leaseOf(t, srv, fmt.Sprintf("foo-bucket-%d", bucket))
			assert.Equal(t, owner, holder, "bucket %d", bucket)
		}
		cancel()
		<-doneA
		<-doneB
	})
}

// TestShardRingMemberThatStopsConfirmingMustWriteToTakeABucketBack: a member
// whose list fails for longer than RenewDeadline drops its buckets without
// writing; when its calls work again its bucket Leases still name it, and
// it admits their keys again only after writing each of them (a take that a
// rival's write since would have made fail), never on the list alone.
// Diagram: step 9 (the guard's freshness). client-go: tools/leaderelection (a leader that lost stops).
func TestShardRingMemberThatStopsConfirmingMustWriteToTakeABucketBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		counting := &countingLeases{LeaseClient: srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"), writes: map[string]int{}}
		end := make(chan struct{})
		defer close(end)
		cut := &ringLeases{LeaseClient: counting, end: end}
		ctx, cancel := context.WithCancel(context.Background())
		m, done := startMember(t, ctx, cut, "replica-0", 4)
		for len(m.Held()) < 4 {
			time.Sleep(ringRetry)
		}
		cut.fail.Store(true)
		time.Sleep(ringRenew + ringRetry)
		assert.Empty(t, m.Held(), "unconfirmed for RenewDeadline: every bucket dropped")
		counting.take()
		cut.fail.Store(false)
		for len(m.Held()) < 4 {
			time.Sleep(ringRetry / 10)
		}
		writes := counting.take()
		for b := range 4 {
			assert.Equal(t, 1, writes[fmt.Sprintf("foo-bucket-%d", b)], "bucket %d taken back by a write", b)
		}
		cancel()
		<-done
	})
}
