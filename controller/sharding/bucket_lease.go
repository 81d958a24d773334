package sharding

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"github.com/informerlab/informerlab/controller/leaderelection"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// bucketLease is a bucket's Lease as the ring's list showed it: the object,
// whose resourceVersion every write carries, and its record.
//
// A bucket Lease says who holds the bucket; whether that holder is alive is
// its member Lease's business. So a bucket Lease is written only when it
// changes hands: acquired (holder set) or released (holder cleared), never
// to renew. At rest a ring of N members writes N Leases per RetryPeriod,
// whatever the number of buckets.
type bucketLease struct {
	lease *unstructured.Unstructured
	rec   leaderelection.LeaseRecord
}

// holder is the identity the Lease names; "" when it names none or does
// not exist (bl nil).
func (bl *bucketLease) holder() string {
	if bl == nil {
		return ""
	}
	return bl.rec.HolderIdentity
}

// acquire writes this member as bucket b's holder: a Create if the Lease
// does not exist yet, else an Update of the version listed, so that two
// members racing for it cannot both succeed.
func (s *Member) acquire(ctx context.Context, b int, bl *bucketLease) error {
	now := time.Now().Round(0).Truncate(time.Microsecond) // as stored: MicroTime
	mine := leaderelection.LeaseRecord{
		HolderIdentity:       s.identity,
		LeaseDurationSeconds: int64(s.leaseDuration / time.Second),
		AcquireTime:          now,
		RenewTime:            now,
	}
	var err error
	if bl == nil {
		lease := leaderelection.NewLease(s.bucketLeaseName(b), mine)
		lease.SetLabels(map[string]string{RingLabel: s.ring})
		_, err = s.client.Create(ctx, lease, metav1.CreateOptions{})
	} else {
		mine.LeaseTransitions = bl.rec.LeaseTransitions
		if bl.rec.HolderIdentity != s.identity {
			mine.LeaseTransitions++
		}
		update := bl.lease.DeepCopy()
		leaderelection.WriteLease(update, mine)
		_, err = s.client.Update(ctx, update, metav1.UpdateOptions{})
	}
	if err != nil {
		s.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not acquire bucket", "bucket", b, "err", err)
		return fmt.Errorf("controller: shard member: acquire bucket %d: %w", b, err)
	}
	return nil
}

// release clears the holder of bucket b's Lease, the version listed. A
// Conflict means someone wrote it since: it is not this member's to free.
func (s *Member) release(ctx context.Context, b int, bl *bucketLease) error {
	now := time.Now().Round(0).Truncate(time.Microsecond)
	update := bl.lease.DeepCopy()
	leaderelection.WriteLease(update, leaderelection.LeaseRecord{
		LeaseDurationSeconds: 1,
		AcquireTime:          now,
		RenewTime:            now,
		LeaseTransitions:     bl.rec.LeaseTransitions,
	})
	if _, err := s.client.Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		s.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not release bucket; it is retried next round", "bucket", b, "err", err)
		return fmt.Errorf("controller: shard member: release bucket %d: %w", b, err)
	}
	return nil
}
