package leaderelection

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Defaults for the zero values of Options, as client-go's and
// controller-runtime's.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// errLeaderElectionLost ends a Manager that could not renew its lease.
var errLeaderElectionLost = errors.New("leader election lost")

// Options configure leader election on a Lease: of all the
// Managers sharing one Lease, only the holder runs its controllers.
//
// client-go: tools/leaderelection.LeaderElectionConfig (with
// controller-runtime's LeaderElectionID as Name).
type Options struct {
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
	// Labels are put on the Lease when this candidate creates it (a shard
	// ring's members find the ring's Leases by them).
	Labels map[string]string
}

// LeaderElector takes and keeps a Lease. Its Run goroutine (or a shard member's loop) is the only one
// calling TryAcquireOrRenew, so the observed* fields need no lock.
//
// client-go: tools/leaderelection.LeaderElector.
type LeaderElector struct {
	client        LeaseClient
	name          string
	identity      string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
	logger        *slog.Logger
	labels        map[string]string // put on the Lease when this candidate creates it

	// observed is the lease as last read or written, observedRecord its
	// record, and observedTime when the record last changed, by the local
	// clock: expiry is judged from that, never from the times written in
	// the lease by another machine's clock.
	observed       *unstructured.Unstructured
	observedRecord LeaseRecord
	// lastErr is why the last attempt did not end holding the lease (nil
	// after one that did).
	lastErr      error
	observedTime time.Time

	mu sync.Mutex // guards leading
	// leading is true from a successful acquire until the leader stops
	// renewing (lost, or released).
	leading bool
}

// NewLeaderElector checks opts and returns an elector for the Lease they
// name; it starts nothing ([LeaderElector.Run] does).
//
// client-go: tools/leaderelection.NewLeaderElector.
func NewLeaderElector(opts Options, logger *slog.Logger) (*LeaderElector, error) {
	le := &LeaderElector{
		client:        opts.Client,
		name:          opts.Name,
		identity:      opts.Identity,
		leaseDuration: cmp.Or(opts.LeaseDuration, DefaultLeaseDuration),
		renewDeadline: cmp.Or(opts.RenewDeadline, DefaultRenewDeadline),
		retryPeriod:   cmp.Or(opts.RetryPeriod, DefaultRetryPeriod),
		labels:        opts.Labels,
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

// IsLeading reports whether this candidate holds the lease.
func (le *LeaderElector) IsLeading() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.leading
}

// SetLeading records whether this candidate leads: a shard member ends a
// bucket's leadership itself when the ring gives the bucket away.
func (le *LeaderElector) SetLeading(leading bool) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.leading = leading
}

// Run campaigns until this candidate holds the lease, calls onStartedLeading,
// then renews it every RetryPeriod. It returns nil when ctx ends, and
// errLeaderElectionLost when a renewal did not succeed within RenewDeadline.
// Ending with ctx does not release the lease: release does, once whatever
// ran under it has stopped.
func (le *LeaderElector) Run(ctx context.Context, onStartedLeading func()) error {
	le.logger.Info("campaigning for the lease")
	for !le.TryAcquireOrRenew(ctx) {
		if !ctrlutil.Sleep(ctx, le.retryPeriod) {
			return nil
		}
	}
	le.logger.Info("acquired the lease: leading")
	onStartedLeading()
	for ctrlutil.Sleep(ctx, le.retryPeriod) {
		if !le.renew(ctx) {
			if ctx.Err() != nil {
				return nil
			}
			le.SetLeading(false)
			le.logger.Error("could not renew the lease in time: stopped leading", "renewDeadline", le.renewDeadline)
			return errLeaderElectionLost
		}
	}
	return nil
}

// renew tries to renew at once and then every RetryPeriod, giving up at
// RenewDeadline.
func (le *LeaderElector) renew(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, le.renewDeadline)
	defer cancel()
	for !le.TryAcquireOrRenew(ctx) {
		if !ctrlutil.Sleep(ctx, le.retryPeriod) {
			return false
		}
	}
	return true
}

// TryAcquireOrRenew makes one attempt to create, take over or renew the
// lease, and reports whether this candidate holds it now.
func (le *LeaderElector) TryAcquireOrRenew(ctx context.Context) bool {
	now := time.Now().Round(0).Truncate(time.Microsecond) // as stored: MicroTime
	mine := LeaseRecord{
		HolderIdentity:       le.identity,
		LeaseDurationSeconds: int64(le.leaseDuration / time.Second),
		AcquireTime:          now,
		RenewTime:            now,
	}

	obj, err := le.client.Get(ctx, le.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease := NewLease(le.name, mine)
		if len(le.labels) > 0 {
			lease.SetLabels(le.labels)
		}
		created, err := le.client.Create(ctx, lease, metav1.CreateOptions{})
		if err != nil {
			le.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not create the lease", "err", err)
			le.lastErr = fmt.Errorf("could not create Lease %s: %w", le.name, err)
			return false
		}
		return le.observe(created, now)
	}
	if err != nil {
		le.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not read the lease", "err", err)
		le.lastErr = fmt.Errorf("could not read Lease %s: %w", le.name, err)
		return false
	}
	lease, rec, err := ReadLease(obj)
	if err != nil {
		le.logger.Error("unreadable lease", "err", err)
		le.lastErr = fmt.Errorf("unreadable Lease %s: %w", le.name, err)
		return false
	}
	if !rec.Equal(le.observedRecord) {
		le.observedRecord, le.observedTime = rec, now
	}
	le.observed = lease

	held := rec.HolderIdentity != "" && rec.HolderIdentity != le.identity
	if held && now.Before(le.observedTime.Add(time.Duration(rec.LeaseDurationSeconds)*time.Second)) {
		le.logger.Debug("lease held by another candidate", "holder", rec.HolderIdentity)
		le.lastErr = fmt.Errorf("the Lease %s is held by %q", le.name, rec.HolderIdentity)
		return false
	}

	if rec.HolderIdentity == le.identity {
		// Renewing: keep when we took it and how often it changed hands.
		mine.AcquireTime, mine.LeaseTransitions = rec.AcquireTime, rec.LeaseTransitions
	} else {
		// Taking over a free or expired lease.
		mine.LeaseTransitions = rec.LeaseTransitions + 1
	}
	update := lease.DeepCopy()
	WriteLease(update, mine)
	// The update carries the resourceVersion just read: if another
	// candidate wrote the lease in between, it fails with a Conflict and
	// this attempt loses.
	updated, err := le.client.Update(ctx, update, metav1.UpdateOptions{})
	if err != nil {
		le.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not write the lease", "err", err)
		le.lastErr = fmt.Errorf("could not write Lease %s: %w", le.name, err)
		return false
	}
	return le.observe(updated, now)
}

// observe records a lease this candidate just wrote, and marks it leading.
func (le *LeaderElector) observe(obj runtime.Object, now time.Time) bool {
	lease, rec, err := ReadLease(obj)
	if err != nil {
		le.logger.Error("unreadable lease", "err", err)
		return false
	}
	le.observed, le.observedRecord, le.observedTime = lease, rec, now
	le.lastErr = nil
	le.SetLeading(true)
	return true
}

// Release gives the lease up, if this candidate holds it, so a successor
// need not wait for it to expire: holder cleared, duration 1s. Call it only
// after everything that ran under the lease has stopped, and never
// concurrently with run.
//
// The lease it remembers can be one version behind the server's: a renewal
// cancelled by the stop may have been applied without its answer arriving.
// The release is then refused with a Conflict, and release reads the lease
// again: if it still names this candidate, it releases that version; if it
// names another, there is nothing to give up.
func (le *LeaderElector) Release(ctx context.Context) {
	if !le.IsLeading() || le.observed == nil {
		return
	}
	le.SetLeading(false)
	err := le.releaseVersion(ctx, le.observed, le.observedRecord)
	if apierrors.IsConflict(err) {
		err = le.releaseLatest(ctx)
	}
	if err != nil {
		le.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not release the lease; successors wait for it to expire", "err", err)
		return
	}
	le.logger.Info("released the lease")
}

// releaseLatest reads the lease and releases it if this candidate holds it.
func (le *LeaderElector) releaseLatest(ctx context.Context) error {
	obj, err := le.client.Get(ctx, le.name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	lease, rec, err := ReadLease(obj)
	if err != nil {
		return err
	}
	if rec.HolderIdentity != le.identity {
		return fmt.Errorf("controller: lease %s is held by %q now, not by this candidate", le.name, rec.HolderIdentity)
	}
	return le.releaseVersion(ctx, lease, rec)
}

// releaseVersion writes the released record over lease, a version whose
// record is rec; the update fails with a Conflict if the lease has moved on.
func (le *LeaderElector) releaseVersion(ctx context.Context, lease *unstructured.Unstructured, rec LeaseRecord) error {
	now := time.Now().Round(0).Truncate(time.Microsecond)
	update := lease.DeepCopy()
	WriteLease(update, LeaseRecord{
		LeaseDurationSeconds: 1,
		AcquireTime:          now,
		RenewTime:            now,
		LeaseTransitions:     rec.LeaseTransitions,
	})
	_, err := le.client.Update(ctx, update, metav1.UpdateOptions{})
	return err
}

// Equal compares two records field by field.
func (r LeaseRecord) Equal(o LeaseRecord) bool {
	return r.HolderIdentity == o.HolderIdentity &&
		r.LeaseDurationSeconds == o.LeaseDurationSeconds &&
		r.LeaseTransitions == o.LeaseTransitions &&
		r.AcquireTime.Equal(o.AcquireTime) &&
		r.RenewTime.Equal(o.RenewTime)
}

// ObserveRecord records a Lease version read by someone else's request (the member's
// list), as TryAcquireOrRenew records what it reads: expiry is judged from
// when the record was first seen to change.
func (le *LeaderElector) ObserveRecord(rec LeaseRecord, now time.Time) {
	if !rec.Equal(le.observedRecord) {
		le.observedRecord, le.observedTime = rec, now
	}
}

// Options returns the elector's options with every default filled in
// (durations and identity).
func (le *LeaderElector) Options() Options {
	return Options{
		Client: le.client, Name: le.name, Identity: le.identity,
		LeaseDuration: le.leaseDuration, RenewDeadline: le.renewDeadline, RetryPeriod: le.retryPeriod,
		Labels: le.labels,
	}
}

// ObservedRecord returns the Lease record as last read or written.
func (le *LeaderElector) ObservedRecord() LeaseRecord { return le.observedRecord }

// LastError returns why the last [LeaderElector.TryAcquireOrRenew] did not
// end holding the Lease (the server's refusal, or the holder that keeps
// it), or nil if it did. Like TryAcquireOrRenew, it is for the goroutine
// making the attempts.
func (le *LeaderElector) LastError() error { return le.lastErr }
