package controller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Defaults for the zero values of LeaderElectionOptions, as client-go's and
// controller-runtime's.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// errLeaderElectionLost ends a Manager that could not renew its lease.
var errLeaderElectionLost = errors.New("leader election lost")

// LeaderElectionOptions configure leader election on a Lease: of all the
// Managers sharing one Lease, only the holder runs its controllers.
//
// client-go: tools/leaderelection.LeaderElectionConfig (with
// controller-runtime's LeaderElectionID as Name).
type LeaderElectionOptions struct {
	// Client reads and writes Leases in the Lease's namespace. Required.
	Client LeaseClient
	// Name of the Lease (controller-runtime's LeaderElectionID). Required.
	Name string
	// Identity of this candidate, unique among them. "" means the host name
	// followed by a random suffix.
	Identity string
	// LeaseDuration is how long a candidate waits, after it last saw the
	// lease change, before taking it over: the longest a crashed leader
	// delays its successor. 0 means DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before it
	// gives up leading. It must be shorter than LeaseDuration, so that a
	// leader that cannot renew stops before anyone else may start.
	// 0 means DefaultRenewDeadline.
	RenewDeadline time.Duration
	// RetryPeriod is the time between attempts to acquire or renew.
	// 0 means DefaultRetryPeriod.
	RetryPeriod time.Duration
}

// leaderElector takes and keeps a Lease. Its run goroutine is the only one
// calling tryAcquireOrRenew, so the observed* fields need no lock.
//
// client-go: tools/leaderelection.LeaderElector.
type leaderElector struct {
	client        LeaseClient
	name          string
	identity      string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
	logger        *slog.Logger
	// labels are put on the lease when this candidate creates it (a shard
	// ring's members find the ring's Leases by them).
	labels map[string]string

	// observed is the lease as last read or written, observedRecord its
	// record, and observedTime when the record last changed, by the local
	// clock: expiry is judged from that, never from the times written in
	// the lease by another machine's clock.
	observed       *unstructured.Unstructured
	observedRecord leaseRecord
	observedTime   time.Time

	mu sync.Mutex // guards leading
	// leading is true from a successful acquire until the leader stops
	// renewing (lost, or released).
	leading bool
}

func newLeaderElector(opts LeaderElectionOptions, logger *slog.Logger) (*leaderElector, error) {
	le := &leaderElector{
		client:        opts.Client,
		name:          opts.Name,
		identity:      opts.Identity,
		leaseDuration: cmpOr(opts.LeaseDuration, DefaultLeaseDuration),
		renewDeadline: cmpOr(opts.RenewDeadline, DefaultRenewDeadline),
		retryPeriod:   cmpOr(opts.RetryPeriod, DefaultRetryPeriod),
	}
	switch {
	case le.client == nil:
		return nil, errors.New("controller: leader election: Client is nil")
	case le.name == "":
		return nil, errors.New("controller: leader election: Name (the Lease's name) is empty")
	case le.leaseDuration < time.Second || le.leaseDuration%time.Second != 0:
		return nil, fmt.Errorf("controller: leader election: LeaseDuration %s is not a whole number of seconds", le.leaseDuration)
	case le.renewDeadline <= 0 || le.retryPeriod <= 0:
		return nil, errors.New("controller: leader election: durations must be positive")
	case le.leaseDuration <= le.renewDeadline:
		return nil, fmt.Errorf("controller: leader election: LeaseDuration (%s) must be greater than RenewDeadline (%s)", le.leaseDuration, le.renewDeadline)
	case le.renewDeadline <= le.retryPeriod:
		return nil, fmt.Errorf("controller: leader election: RenewDeadline (%s) must be greater than RetryPeriod (%s)", le.renewDeadline, le.retryPeriod)
	}
	if le.identity == "" {
		id, err := defaultIdentity()
		if err != nil {
			return nil, fmt.Errorf("controller: leader election: %w", err)
		}
		le.identity = id
	}
	le.logger = logger.With("lease", le.name, "identity", le.identity)
	return le, nil
}

// defaultIdentity is the identity of a candidate that was given none: the
// host name followed by a random suffix, unique among the replicas of a host.
func defaultIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("no Identity and no host name: %w", err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return host + "_" + hex.EncodeToString(suffix), nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// isLeading reports whether this candidate holds the lease.
func (le *leaderElector) isLeading() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.leading
}

func (le *leaderElector) setLeading(leading bool) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.leading = leading
}

// run campaigns until this candidate holds the lease, calls onStartedLeading,
// then renews it every RetryPeriod. It returns nil when ctx ends, and
// errLeaderElectionLost when a renewal did not succeed within RenewDeadline.
// Ending with ctx does not release the lease: release does, once whatever
// ran under it has stopped.
func (le *leaderElector) run(ctx context.Context, onStartedLeading func()) error {
	le.logger.Info("campaigning for the lease")
	for !le.tryAcquireOrRenew(ctx) {
		if !sleep(ctx, le.retryPeriod) {
			return nil
		}
	}
	le.logger.Info("acquired the lease: leading")
	onStartedLeading()
	for sleep(ctx, le.retryPeriod) {
		if !le.renew(ctx) {
			if ctx.Err() != nil {
				return nil
			}
			le.setLeading(false)
			le.logger.Error("could not renew the lease in time: stopped leading", "renewDeadline", le.renewDeadline)
			return errLeaderElectionLost
		}
	}
	return nil
}

// renew tries to renew at once and then every RetryPeriod, giving up at
// RenewDeadline.
func (le *leaderElector) renew(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, le.renewDeadline)
	defer cancel()
	for !le.tryAcquireOrRenew(ctx) {
		if !sleep(ctx, le.retryPeriod) {
			return false
		}
	}
	return true
}

// sleep waits d, reporting false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// tryAcquireOrRenew makes one attempt to create, take over or renew the
// lease, and reports whether this candidate holds it now.
func (le *leaderElector) tryAcquireOrRenew(ctx context.Context) bool {
	now := time.Now().Round(0).Truncate(time.Microsecond) // as stored: MicroTime
	mine := leaseRecord{
		holderIdentity:       le.identity,
		leaseDurationSeconds: int64(le.leaseDuration / time.Second),
		acquireTime:          now,
		renewTime:            now,
	}

	obj, err := le.client.Get(ctx, le.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease := newLease(le.name, mine)
		if len(le.labels) > 0 {
			lease.SetLabels(le.labels)
		}
		created, err := le.client.Create(ctx, lease, metav1.CreateOptions{})
		if err != nil {
			le.logger.Log(ctx, refusedLevel(err, slog.LevelInfo), "could not create the lease", "err", err)
			return false
		}
		return le.observe(created, now)
	}
	if err != nil {
		le.logger.Log(ctx, refusedLevel(err, slog.LevelInfo), "could not read the lease", "err", err)
		return false
	}
	lease, rec, err := readLease(obj)
	if err != nil {
		le.logger.Error("unreadable lease", "err", err)
		return false
	}
	if !rec.equal(le.observedRecord) {
		le.observedRecord, le.observedTime = rec, now
	}
	le.observed = lease

	held := rec.holderIdentity != "" && rec.holderIdentity != le.identity
	if held && now.Before(le.observedTime.Add(time.Duration(rec.leaseDurationSeconds)*time.Second)) {
		le.logger.Debug("lease held by another candidate", "holder", rec.holderIdentity)
		return false
	}

	if rec.holderIdentity == le.identity {
		// Renewing: keep when we took it and how often it changed hands.
		mine.acquireTime, mine.leaseTransitions = rec.acquireTime, rec.leaseTransitions
	} else {
		// Taking over a free or expired lease.
		mine.leaseTransitions = rec.leaseTransitions + 1
	}
	update := lease.DeepCopy()
	writeLease(update, mine)
	// The update carries the resourceVersion just read: if another
	// candidate wrote the lease in between, it fails with a Conflict and
	// this attempt loses.
	updated, err := le.client.Update(ctx, update, metav1.UpdateOptions{})
	if err != nil {
		le.logger.Log(ctx, refusedLevel(err, slog.LevelInfo), "could not write the lease", "err", err)
		return false
	}
	return le.observe(updated, now)
}

// observe records a lease this candidate just wrote, and marks it leading.
func (le *leaderElector) observe(obj runtime.Object, now time.Time) bool {
	lease, rec, err := readLease(obj)
	if err != nil {
		le.logger.Error("unreadable lease", "err", err)
		return false
	}
	le.observed, le.observedRecord, le.observedTime = lease, rec, now
	le.setLeading(true)
	return true
}

// release gives the lease up, if this candidate holds it, so a successor
// need not wait for it to expire: holder cleared, duration 1s. Call it only
// after everything that ran under the lease has stopped, and never
// concurrently with run.
//
// The lease it remembers can be one version behind the server's: a renewal
// cancelled by the stop may have been applied without its answer arriving.
// The release is then refused with a Conflict, and release reads the lease
// again: if it still names this candidate, it releases that version; if it
// names another, there is nothing to give up.
func (le *leaderElector) release(ctx context.Context) {
	if !le.isLeading() || le.observed == nil {
		return
	}
	le.setLeading(false)
	err := le.releaseVersion(ctx, le.observed, le.observedRecord)
	if apierrors.IsConflict(err) {
		err = le.releaseLatest(ctx)
	}
	if err != nil {
		le.logger.Log(ctx, refusedLevel(err, slog.LevelInfo), "could not release the lease; successors wait for it to expire", "err", err)
		return
	}
	le.logger.Info("released the lease")
}

// releaseLatest reads the lease and releases it if this candidate holds it.
func (le *leaderElector) releaseLatest(ctx context.Context) error {
	obj, err := le.client.Get(ctx, le.name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	lease, rec, err := readLease(obj)
	if err != nil {
		return err
	}
	if rec.holderIdentity != le.identity {
		return fmt.Errorf("controller: lease %s is held by %q now, not by this candidate", le.name, rec.holderIdentity)
	}
	return le.releaseVersion(ctx, lease, rec)
}

// releaseVersion writes the released record over lease, a version whose
// record is rec; the update fails with a Conflict if the lease has moved on.
func (le *leaderElector) releaseVersion(ctx context.Context, lease *unstructured.Unstructured, rec leaseRecord) error {
	now := time.Now().Round(0).Truncate(time.Microsecond)
	update := lease.DeepCopy()
	writeLease(update, leaseRecord{
		leaseDurationSeconds: 1,
		acquireTime:          now,
		renewTime:            now,
		leaseTransitions:     rec.leaseTransitions,
	})
	_, err := le.client.Update(ctx, update, metav1.UpdateOptions{})
	return err
}

// equal compares two records field by field.
func (r leaseRecord) equal(o leaseRecord) bool {
	return r.holderIdentity == o.holderIdentity &&
		r.leaseDurationSeconds == o.leaseDurationSeconds &&
		r.leaseTransitions == o.leaseTransitions &&
		r.acquireTime.Equal(o.acquireTime) &&
		r.renewTime.Equal(o.renewTime)
}
