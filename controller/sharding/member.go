package sharding

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"github.com/informerlab/informerlab/controller/leaderelection"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

// LeaseClient is a [leaderelection.LeaseClient] that can also list the Leases of its
// namespace, which is how a [Member] finds the other members. The
// resource handles of packages fakeapi and client fit as they are.
//
// client-go: tools/leaderelection/resourcelock.LeaseLock, plus a list.
type LeaseClient interface {
	leaderelection.LeaseClient
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
}

// Cache is the part of a member's informers the bucket protocol drives.
// SetShardSelector is told the shard selector of the buckets whose Lease the
// member holds ([ShardSelectorFor]; with Options.Warm, and of its warm set:
// the buckets the ring gives it and its runner-up buckets) and returns once
// the cache holds exactly that share, synced with the server: after a
// widening, every object of the gained buckets is in it. Only then does the
// member admit the gained buckets' keys. It is called from one goroutine at
// a time; an error is logged and the call retried after RetryPeriod.
//
// client-go: none.
type Cache interface {
	SetShardSelector(ctx context.Context, expr string) error
}

// WarmCache is a [Cache] that can confirm part of its share without
// changing its selector. A member with Options.Warm keeps in its cache the
// buckets it would gain if one other member left (its runner-up buckets,
// [RunnerUpBuckets]) as well as those the ring gives it, so a takeover
// lists no bucket anew; but before it admits a gained bucket it calls
// ConfirmShare with that bucket's selector, which returns once the cache
// holds every object of it as new as the server has it now: the previous
// holder's last writes included.
//
// client-go: none.
type WarmCache interface {
	Cache
	ConfirmShare(ctx context.Context, expr string) error
}

// CacheFunc adapts a function to a [Cache].
//
// client-go: none.
type CacheFunc func(ctx context.Context, expr string) error

// SetShardSelector calls f.
func (f CacheFunc) SetShardSelector(ctx context.Context, expr string) error { return f(ctx, expr) }

// RingLabel is the label every Lease of a ring carries, valued with the
// ring's name: kubectl get leases -l informerlab.dev/ring=<ring> shows
// who holds what, and members list the ring's Leases by it.
const RingLabel = "informerlab.dev/ring"

// MaxBuckets bounds Options.Buckets: every bucket is a Lease, listed by
// every member every RetryPeriod (written only when it changes hands).
const MaxBuckets = 1024

// maxRingName leaves room in a Lease name for "-bucket-" and a number, or
// "-member-" and an identity.
const maxRingName = 40

// Options configure a [Member].
//
// client-go: none (tools/leaderelection.LeaderElectionConfig, per bucket).
type Options struct {
	// Client reads, writes and lists Leases in one namespace. Required.
	Client LeaseClient
	// Ring names the group of members sharing the buckets: a DNS label of
	// at most 40 characters. The member Leases are <Ring>-member-<Identity>,
	// the bucket Leases <Ring>-bucket-<i>, all labelled [RingLabel]=<Ring>.
	// Required.
	Ring string
	// Identity of this member, unique in the ring: the holder it writes in
	// Leases, and the end of its member Lease's name, so <Ring>-member-<Identity>
	// must be a DNS subdomain (lower-case letters, digits, '-' and '.'). ""
	// means the host name made fit for that (lower case, other characters
	// as '-') followed by '-' and a random suffix.
	Identity string
	// Buckets is the fixed number of buckets, at most [MaxBuckets]. 0 means
	// DefaultBuckets. Every member of a ring must use the same number.
	Buckets int
	// LeaseDuration, RenewDeadline and RetryPeriod mean what they mean in
	// [leaderelection.Options], for the member Lease, which stands for
	// every bucket its member holds; 0 means the same defaults.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// ReleaseTimeout bounds one wait for a releasing bucket's in-flight
	// reconciles to reach 0. When it passes the member keeps the Lease (and
	// keeps renewing it, and keeps refusing the bucket's keys) and starts
	// another wait. At shutdown it bounds the whole release: buckets still
	// held then are left to expire. 0 means RenewDeadline.
	ReleaseTimeout time.Duration
	// JoinTimeout bounds how long Start tries to take its member Lease
	// before it gives up and returns an error: a member that cannot join
	// (its Leases refused, or its identity held by a live process) says so
	// and stops instead of waiting unseen. 0 means twice LeaseDuration plus
	// RetryPeriod, enough to outwait the Lease of a crashed process that had
	// the same identity.
	JoinTimeout time.Duration
	// Cache is told the selector of the held buckets (see [Cache]).
	// nil means there is no sharded cache to drive: a gained bucket is
	// admitted as soon as its Lease is acquired.
	Cache Cache
	// Warm keeps the member's runner-up buckets, and the buckets the ring
	// gives it while it does not hold them, in Cache too, which must then
	// be a [WarmCache]: the cache is told the selector of all of these and
	// of the held buckets, and a gained bucket it already held is admitted
	// after a ConfirmShare of that bucket alone, not a relist of the share.
	// It costs about one more share of memory and of watch traffic, and
	// buys a takeover after a crash that lists only to confirm, and a
	// bucket lost for a late renewal that is taken back with no relist.
	Warm bool
	// OnAdmit, when set, is called with the buckets just admitted, from the
	// goroutine that drives Cache, before it changes the selector again.
	// With Warm it must bring their keys to the queue: their objects were
	// cached, and their keys refused as not ours, before the bucket was
	// gained, and no relist will bring them again. Without Warm the
	// widening of the cache brought them, as adds, but before the bucket
	// was admitted: the guard puts those off by RetryPeriod, and OnAdmit
	// (an [AdmitSource]) brings them at once instead.
	OnAdmit func(buckets []int)
	// Logger receives the member's logs. nil means slog.Default().
	Logger *slog.Logger
}

// memberObservation is what a member last saw of another member's Lease,
// and when it saw it change, by the local clock.
type memberObservation struct {
	rec leaderelection.LeaseRecord
	at  time.Time
}

// Member is one replica's part in a ring of replicas sharing B buckets
// of objects (see "Sharding" in the package documentation). Start runs the
// protocol; [Member.Guard] wraps a Reconciler so that it runs a key only
// while this member may act on its bucket. A Member is a [manager.Runnable]
// that runs with or without leader election, once.
//
// client-go: none; Knative pkg/leaderelection (bucket Leases) and
// timebertt/kubernetes-controller-sharding pkg/shard come closest.
type Member struct {
	client         LeaseClient
	ring           string
	identity       string
	buckets        int
	leaseDuration  time.Duration
	renewDeadline  time.Duration
	retryPeriod    time.Duration
	releaseTimeout time.Duration
	joinTimeout    time.Duration
	cache          Cache
	warm           bool
	onAdmit        func(buckets []int)
	logger         *slog.Logger

	// Only the goroutine running Start touches the fields below.
	member        *leaderelection.LeaderElector // the member Lease
	memberRenewed time.Time                     // start of the last successful member renewal
	others        map[string]memberObservation  // the other members' Leases, by name
	// orphans holds, by holder, when a bucket Lease was first seen naming
	// a holder that has no member Lease.
	orphans map[string]time.Time
	leaving bool
	// warmSet is, with Warm, what the cache holds besides the held
	// buckets: the buckets the ring of the live members in ringOf gives
	// this member, held or not, and those it is runner-up for.
	warmSet []int
	ringOf  []string

	// wake tells the cache goroutine that want changed.
	wake chan struct{}

	// guard decides, per bucket, whether a key may run.
	guard *BucketGuard
	// releaseStarted is when the current wait of a releasing bucket began,
	// by bucket (zero when none is releasing).
	releaseStarted []time.Time

	mu      sync.Mutex // guards the fields below
	members []string   // the live members, as last computed
	// want is the set of held buckets, and watch the buckets the cache
	// should hold (want, and with Warm the warm set); wantGen
	// counts their changes.
	want    []int
	watch   []int
	wantGen uint64
	started bool
}

// NewMember checks opts and returns a member that has not started.
func NewMember(opts Options) (*Member, error) {
	if opts.Client == nil {
		return nil, errors.New("controller: shard member: Client is nil")
	}
	if errs := validation.IsDNS1123Label(opts.Ring); len(errs) > 0 || len(opts.Ring) > maxRingName {
		return nil, fmt.Errorf("controller: shard member: Ring %q must be a DNS label of at most %d characters (it prefixes Lease names and is a label value)", opts.Ring, maxRingName)
	}
	if opts.Buckets < 0 || opts.Buckets > MaxBuckets {
		return nil, fmt.Errorf("controller: shard member: Buckets is %d: want 1 to %d (0 for %d)", opts.Buckets, MaxBuckets, DefaultBuckets)
	}
	if opts.JoinTimeout < 0 {
		return nil, fmt.Errorf("controller: shard member: JoinTimeout is negative (%s)", opts.JoinTimeout)
	}
	if opts.ReleaseTimeout < 0 {
		return nil, fmt.Errorf("controller: shard member: ReleaseTimeout is negative (%s)", opts.ReleaseTimeout)
	}
	if opts.Warm {
		if err := warmCache(opts.Cache); err != nil {
			return nil, fmt.Errorf("controller: shard member: Warm needs a Cache that is a WarmCache: %w", err)
		}
	}
	identity := opts.Identity
	if identity == "" {
		id, err := DefaultIdentity()
		if err != nil {
			return nil, fmt.Errorf("controller: shard member: %w", err)
		}
		identity = id
	}
	if errs := validation.IsDNS1123Subdomain(opts.Ring + "-member-" + identity); len(errs) > 0 {
		return nil, fmt.Errorf("controller: shard member: Identity %q cannot end a Lease name (%s-member-%s: %s)", identity, opts.Ring, identity, strings.Join(errs, "; "))
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &Member{
		client:   opts.Client,
		ring:     opts.Ring,
		identity: identity,
		buckets:  intOr(opts.Buckets, DefaultBuckets),
		cache:    opts.Cache,
		warm:     opts.Warm,
		onAdmit:  opts.OnAdmit,
		logger:   logger.With("ring", opts.Ring, "member", identity),
		others:   map[string]memberObservation{},
		orphans:  map[string]time.Time{},
		wake:     make(chan struct{}, 1),
	}
	leOpts := leaderelection.Options{
		Client:        opts.Client,
		Name:          s.memberLeaseName(identity),
		Identity:      identity,
		LeaseDuration: opts.LeaseDuration,
		RenewDeadline: opts.RenewDeadline,
		RetryPeriod:   opts.RetryPeriod,
		Labels:        map[string]string{RingLabel: s.ring},
	}
	// The member Lease is kept by the leader election's elector: the same
	// acquire, renew, expiry and release rules. The bucket Leases are
	// written only when they change hands (bucket_lease.go).
	member, err := leaderelection.NewLeaderElector(leOpts, s.logger.With("component", "lease"))
	if err != nil {
		return nil, fmt.Errorf("controller: shard member: %w", err)
	}
	s.member = member
	resolved := member.Options()
	s.leaseDuration, s.renewDeadline, s.retryPeriod = resolved.LeaseDuration, resolved.RenewDeadline, resolved.RetryPeriod
	s.releaseTimeout = cmp.Or(opts.ReleaseTimeout, s.renewDeadline)
	s.joinTimeout = cmp.Or(opts.JoinTimeout, 2*s.leaseDuration+s.retryPeriod)
	s.guard = NewBucketGuard(s.buckets, s.renewDeadline, s.retryPeriod)
	s.releaseStarted = make([]time.Time, s.buckets)
	return s, nil
}

func intOr(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

func (s *Member) memberLeaseName(id string) string { return s.ring + "-member-" + id }
func (s *Member) bucketLeaseName(b int) string     { return s.ring + "-bucket-" + strconv.Itoa(b) }

// bucketOfLease returns the bucket whose Lease is named name, exactly as
// bucketLeaseName writes it: "<ring>-bucket-00" or "<ring>-bucket-+1" is no
// bucket's, so a stray Lease can never stand for a real one in the ring's
// view (its changes would keep the real one looking fresh forever).
func (s *Member) bucketOfLease(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, s.ring+"-bucket-")
	if !ok {
		return 0, false
	}
	b, err := strconv.Atoi(digits)
	if err != nil || b < 0 || b >= s.buckets || s.bucketLeaseName(b) != name {
		return 0, false
	}
	return b, true
}

// Identity returns the member's identity, the holder it writes in Leases.
func (s *Member) Identity() string { return s.identity }

// Buckets returns the number of buckets.
func (s *Member) Buckets() int { return s.buckets }

// NeedLeaderElection reports false: every replica is a member, leader or not.
func (s *Member) NeedLeaderElection() bool { return false }

// Held returns, sorted, the buckets whose Lease this member holds, including
// those not yet admitted and those being released.
func (s *Member) Held() []int { return s.guard.Held() }

// Members returns, sorted, the live members as this member last computed
// them (itself included while its member Lease is fresh).
func (s *Member) Members() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.members)
}

// Admits reports whether the guard would run a key of bucket now: the
// bucket's Lease is held, the cache has synced with it, it is not being
// released, and the Lease was renewed less than RenewDeadline ago.
func (s *Member) Admits(bucket int) bool { return s.guard.Admits(bucket) }

// InFlight returns the number of the bucket's reconciles running now.
func (s *Member) InFlight(bucket int) int { return s.guard.InFlight(bucket) }

// Start runs the protocol until ctx ends, then releases gracefully: it stops
// admitting keys, waits (up to ReleaseTimeout) until the in-flight
// reconciles end, releases the bucket Leases, and last the member Lease.
// Every RetryPeriod it:
//
//  1. renews its member Lease, the only Lease it writes at rest: a bucket's
//     holder is valid while the holder's member Lease is;
//  2. lists the ring's Leases: the live members are those whose member Lease
//     changed less than its duration ago (by the local clock);
//  3. computes the bucket → member map ([BucketOwners]);
//  4. confirms the buckets it holds: a held bucket whose Lease still names it
//     in that list counts as renewed at the start of step 1; one whose Lease
//     names another, or that went unconfirmed for RenewDeadline, is dropped;
//  5. acquires the buckets the map gives it and it does not hold, once their
//     Lease names no live holder (a write, with the resourceVersion listed);
//  6. releases gracefully the buckets the map gives to someone else (a write
//     once their in-flight reconciles ended);
//  7. hands the set of held buckets to the cache, whose goroutine widens or
//     narrows the selector and, once synced, admits the gained buckets.
func (s *Member) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("controller: shard member: started twice")
	}
	s.started = true
	s.mu.Unlock()

	cacheCtx, stopCache := context.WithCancel(ctx)
	cacheDone := make(chan struct{})
	go func() {
		defer close(cacheDone)
		s.runCache(cacheCtx)
	}()

	s.logger.Info("joining the ring", "buckets", s.buckets)
	began := time.Now()
	var joinErr error
	for {
		s.tick(ctx)
		if s.memberRenewed.IsZero() {
			if joinErr = s.notJoined(began); joinErr != nil {
				break
			}
		}
		if !ctrlutil.Sleep(ctx, s.retryPeriod) {
			break
		}
	}
	s.leave()
	stopCache()
	<-cacheDone
	return joinErr
}

// notJoined reports, at WARN (ERROR for a refusal), why the member Lease has
// not been taken yet,
// and returns an error once JoinTimeout has passed since began.
func (s *Member) notJoined(began time.Time) error {
	lease, why := s.member.Options().Name, s.member.LastError()
	if waited := time.Since(began); waited >= s.joinTimeout {
		s.logger.Error("could not join the ring: giving up", "lease", lease, "waited", waited, "err", why)
		return fmt.Errorf("controller: shard member %s: could not join ring %s in %s: %w", s.identity, s.ring, s.joinTimeout, why)
	}
	s.logger.Log(context.Background(), ctrlutil.RefusedLevel(why, slog.LevelWarn), "not in the ring yet: could not take the member Lease", "lease", lease, "err", why)
	return nil
}

// leave releases every bucket gracefully, then the member Lease. Its context
// is a fresh one: Start's has ended. The member Lease is still renewed
// meanwhile, since it is what keeps the held buckets valid.
func (s *Member) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), s.releaseTimeout+s.retryPeriod)
	defer cancel()
	s.leaving = true
	s.logger.Info("leaving the ring: releasing buckets", "held", s.Held())
	for len(s.Held()) > 0 {
		s.tick(ctx)
		if len(s.Held()) == 0 || !ctrlutil.Sleep(ctx, s.retryPeriod/4) {
			break
		}
	}
	if held := s.Held(); len(held) > 0 || s.inFlight() > 0 {
		// Their reconciles may still run: the bucket Leases keep naming
		// this member, and its member Lease is left to expire, so no one
		// takes them before LeaseDuration, as for a crash.
		s.logger.Warn("in-flight reconciles did not end in time: leaving the Leases to expire", "held", held, "inflight", s.inFlight())
		for b := range s.buckets {
			s.guard.Lost(b)
		}
		return
	}
	// A member Lease released (holder cleared) tells the others that every
	// bucket Lease still naming this member is free.
	s.member.Release(ctx)
}

// inFlight counts the reconciles running now, in every bucket.
func (s *Member) inFlight() int {
	n := 0
	for b := range s.buckets {
		n += s.guard.InFlight(b)
	}
	return n
}

// tick is one round of the protocol (see Start).
func (s *Member) tick(ctx context.Context) {
	start := time.Now()
	renewed := s.member.TryAcquireOrRenew(ctx)
	if renewed {
		s.memberRenewed = start
	}
	view := s.viewRing(ctx, start)

	changed := false
	for b := range s.buckets {
		if s.guard.isHeld(b) {
			changed = s.keep(ctx, b, view, renewed) || changed
		} else if view != nil {
			changed = s.settle(ctx, b, view, renewed) || changed
		}
	}
	if view != nil && s.holdsItsShare(view) && s.noteWarmSet(view) {
		changed = true
	}
	if changed {
		s.postWant()
	}
}

// ringView is one list of the ring's Leases, as a member reads it.
type ringView struct {
	owners []string             // the bucket → member map of the live members
	leases []*bucketLease       // by bucket; nil where the Lease does not exist
	alive  func(id string) bool // whether a holder's member Lease is live
}

// viewRing renews the view of the ring: it lists the Leases, notes what
// changed, and returns the view, or nil if the list failed (then no bucket
// is confirmed, acquired or released this round).
func (s *Member) viewRing(ctx context.Context, now time.Time) *ringView {
	list, err := s.client.List(ctx, metav1.ListOptions{LabelSelector: RingLabel + "=" + s.ring})
	if err != nil {
		s.logger.Log(ctx, ctrlutil.RefusedLevel(err, slog.LevelInfo), "could not list the ring's Leases", "err", err)
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		s.logger.Error("unreadable Lease list", "err", err)
		return nil
	}
	memberPrefix, bucketPrefix := s.ring+"-member-", s.ring+"-bucket-"
	view := &ringView{leases: make([]*bucketLease, s.buckets)}
	seen := map[string]bool{}
	var live []string
	for _, item := range items {
		lease, rec, err := leaderelection.ReadLease(item)
		if err != nil {
			continue
		}
		name := lease.GetName()
		switch {
		case strings.HasPrefix(name, bucketPrefix):
			if b, ok := s.bucketOfLease(name); ok {
				view.leases[b] = &bucketLease{lease: lease, rec: rec}
			}
		case strings.HasPrefix(name, memberPrefix) && name != s.member.Options().Name:
			seen[name] = true
			obs, ok := s.others[name]
			if !ok || !rec.Equal(obs.rec) {
				obs = memberObservation{rec: rec, at: now}
				s.others[name] = obs
			}
			if obs.live(now) {
				live = append(live, rec.HolderIdentity)
			}
		}
	}
	for name := range s.others {
		if !seen[name] {
			delete(s.others, name)
		}
	}
	s.noteOrphans(view.leases, now)
	view.alive = func(id string) bool { return s.holderAlive(id, now) }
	if !s.leaving && !s.memberRenewed.IsZero() && time.Since(s.memberRenewed) < s.renewDeadline {
		live = append(live, s.identity)
	}
	slices.Sort(live)
	live = slices.Compact(live)
	s.mu.Lock()
	s.members = live
	s.mu.Unlock()
	view.owners = BucketOwners(live, s.buckets)
	return view
}

// live reports whether a member Lease seen as o is held and changed less
// than its duration ago.
func (o memberObservation) live(now time.Time) bool {
	return o.rec.HolderIdentity != "" && now.Before(o.at.Add(time.Duration(o.rec.LeaseDurationSeconds)*time.Second))
}

// noteOrphans remembers since when each bucket holder without a member
// Lease has been seen, and forgets holders no bucket names any more.
func (s *Member) noteOrphans(leases []*bucketLease, now time.Time) {
	named := map[string]bool{}
	for _, bl := range leases {
		id := bl.holder()
		if id == "" || id == s.identity {
			continue
		}
		if _, ok := s.others[s.memberLeaseName(id)]; ok {
			continue
		}
		named[id] = true
		if _, ok := s.orphans[id]; !ok {
			s.orphans[id] = now
		}
	}
	for id := range s.orphans {
		if !named[id] {
			delete(s.orphans, id)
		}
	}
}

// holderAlive reports whether another member named as a bucket's holder may
// still act on it: its member Lease is live, or it has none and this member
// first saw that less than LeaseDuration ago (a member Lease deleted by
// hand waits out a Lease's length, as an expiry does).
func (s *Member) holderAlive(id string, now time.Time) bool {
	if obs, ok := s.others[s.memberLeaseName(id)]; ok {
		return obs.live(now)
	}
	first, ok := s.orphans[id]
	return ok && now.Before(first.Add(s.leaseDuration))
}

// keep confirms a held bucket and, when the ring gives it to someone else,
// moves its graceful release on. It reports whether the held set changed.
func (s *Member) keep(ctx context.Context, b int, view *ringView, renewed bool) bool {
	stale := s.guard.sinceRenew(b) >= s.renewDeadline
	if view == nil {
		if s.leaving && s.guard.Release(b) {
			// No list to write the release against: the member Lease's
			// release (leave) frees the bucket, its reconciles having ended.
			s.releaseStarted[b] = time.Time{}
			s.logger.Info("released bucket; its Lease is freed with the member Lease", "bucket", b)
			return true
		}
		if stale {
			return s.lose(b, "its member Lease was not confirmed within RenewDeadline", "")
		}
		return false
	}
	bl := view.leases[b]
	if holder := bl.holder(); holder != s.identity {
		return s.lose(b, "its Lease names another holder", holder)
	}
	switch {
	case renewed && !stale:
		// The list was read after the member Lease was renewed, and the
		// bucket's validity never lapsed in between: it runs on.
		s.guard.Renewed(b, s.memberRenewed)
	case stale:
		// A gap of RenewDeadline: another member may have judged the
		// member Lease expired. Taking the bucket again needs a write.
		return s.lose(b, "its member Lease was not confirmed within RenewDeadline", "")
	}
	if !s.leaving && view.owners[b] == s.identity {
		if !s.releaseStarted[b].IsZero() {
			s.guard.CancelRelease(b)
			s.releaseStarted[b] = time.Time{}
			s.logger.Info("bucket is ours again: release cancelled", "bucket", b)
		}
		return false
	}
	if s.releaseStarted[b].IsZero() {
		// Release, step 1: stop admitting (the guard's first Release).
		s.releaseStarted[b] = time.Now()
		s.logger.Info("releasing bucket: no new reconciles", "bucket", b, "inflight", s.guard.InFlight(b))
	}
	if !s.guard.Release(b) {
		// Release, step 2: wait for the in-flight reconciles.
		if time.Since(s.releaseStarted[b]) >= s.releaseTimeout {
			s.releaseStarted[b] = time.Now()
			s.logger.Warn("in-flight reconciles did not end within ReleaseTimeout: keeping the Lease and waiting again", "bucket", b, "inflight", s.guard.InFlight(b))
		}
		return false
	}
	s.releaseStarted[b] = time.Time{}
	// Release, step 3: free the Lease for the new owner (a Lease left
	// naming this member is freed by settle next round); step 4 (narrow
	// the selector) follows from the held set's change.
	if err := s.release(ctx, b, bl); err == nil {
		s.logger.Info("released bucket", "bucket", b)
	}
	return true
}

// lose drops a held bucket without writing anything.
func (s *Member) lose(b int, why, holder string) bool {
	s.guard.Lost(b)
	s.releaseStarted[b] = time.Time{}
	s.logger.Warn("lost bucket: "+why, "bucket", b, "holder", holder)
	return true
}

// settle acts on a bucket this member does not hold: it acquires it when the
// ring gives it this member and its Lease names no live holder, and it frees
// a Lease that still names this member when the ring gives the bucket to
// another (a release that failed, or a restart under the same identity).
// It reports whether the held set changed.
func (s *Member) settle(ctx context.Context, b int, view *ringView, renewed bool) bool {
	bl := view.leases[b]
	holder := bl.holder()
	if s.leaving || view.owners[b] != s.identity {
		// Only right after a renewal, as an acquire: a member whose
		// renewal just failed leaves itself out of its own ring, and must
		// not free what it would take back at the next round.
		if renewed && holder == s.identity && s.guard.InFlight(b) == 0 {
			if err := s.release(ctx, b, bl); err == nil {
				s.logger.Info("freed a bucket Lease that still named this member", "bucket", b)
			}
		}
		return false
	}
	// Acquire only right after a renewal: the bucket is valid from it.
	if !renewed || (holder != "" && holder != s.identity && view.alive(holder)) {
		return false
	}
	if err := s.acquire(ctx, b, bl); err != nil {
		return false
	}
	s.guard.Gained(b, s.memberRenewed)
	if s.cache == nil {
		s.guard.Synced(b)
	}
	s.logger.Info("acquired bucket", "bucket", b)
	return true
}

// postWant hands the held set, and the set the cache should hold, to the
// cache goroutine.
func (s *Member) postWant() {
	held := s.guard.Held()
	watch := slices.Clone(held)
	if !s.leaving {
		watch = append(watch, s.warmSet...)
		slices.Sort(watch)
		watch = slices.Compact(watch)
	}
	s.mu.Lock()
	s.want, s.watch = held, watch
	s.wantGen++
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// warmCache reports why c cannot confirm part of its share, or nil.
func warmCache(c Cache) error {
	if set, ok := c.(cacheSet); ok {
		for _, c := range set {
			if err := warmCache(c); err != nil {
				return err
			}
		}
		return nil
	}
	if _, ok := c.(WarmCache); !ok {
		return fmt.Errorf("%T is not one", c)
	}
	return nil
}

// holdsItsShare reports whether this member holds every bucket the ring
// gives it. Until it does, a warm member keeps its warm set as it was: a
// crashed member's buckets are admitted from the cache that already holds
// them before the cache is told the new ring's runner-up buckets, whose
// list would come first otherwise.
func (s *Member) holdsItsShare(view *ringView) bool {
	for b, owner := range view.owners {
		if owner == s.identity && !s.guard.isHeld(b) {
			return false
		}
	}
	return true
}

// noteWarmSet recomputes, with Warm, the buckets the cache holds besides
// the held ones, when the live members changed, and reports whether they
// changed: the buckets the ring gives this member, and its runner-up
// buckets. A bucket the ring gives it stays cached while it is not held
// (lost for a late renewal, or not yet acquired), so that losing it and
// taking it back confirms it with a list of that bucket alone, and
// changes no selector.
func (s *Member) noteWarmSet(view *ringView) bool {
	if !s.warm {
		return false
	}
	members := s.Members()
	if s.leaving {
		members = nil
	}
	if s.ringOf != nil && slices.Equal(members, s.ringOf) {
		return false
	}
	s.ringOf = append([]string{}, members...)
	set := RunnerUpBuckets(members, s.identity, s.buckets)
	if !s.leaving {
		for b, owner := range view.owners {
			if owner == s.identity {
				set = append(set, b)
			}
		}
	}
	slices.Sort(set)
	if slices.Equal(set, s.warmSet) {
		return false
	}
	s.warmSet = set
	return true
}

// runCache applies the newest held set to the cache, one call at a time, and
// admits the gained buckets once it synced: gain, steps 2 to 4. A gained
// bucket the cache already holds (Warm) is confirmed alone first, then
// admitted, and only then is the selector changed.
func (s *Member) runCache(ctx context.Context) {
	if s.cache == nil {
		return
	}
	var wc WarmCache
	if s.warm {
		wc = s.cache.(WarmCache)
	}
	var done uint64
	var applied cacheShare // what the cache was last told
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		for {
			s.mu.Lock()
			gen, want, watch := s.wantGen, slices.Clone(s.want), slices.Clone(s.watch)
			s.mu.Unlock()
			if gen == done {
				break
			}
			if err := s.applyWant(ctx, wc, want, watch, &applied); err != nil {
				if ctx.Err() != nil {
					return
				}
				s.logger.Error("could not change the cache's shard selector; retrying", "err", err)
				if !ctrlutil.Sleep(ctx, s.retryPeriod) {
					return
				}
				continue
			}
			done = gen
			// The cache holds want's objects: admit those still held.
			s.admit(want)
		}
	}
}

// cacheShare is the selector a cache was told, and its buckets ("" before
// the first call: ShardSelectorFor never returns "").
type cacheShare struct {
	expr    string
	buckets []int
}

// applyWant brings the cache to watch, the held buckets being want. Held
// buckets not admitted yet that the cache already holds are confirmed
// first, alone, by a WarmCache (and admitted); without one, the cache is
// told its selector again, which checks the whole share. Then the selector
// changes, if watch did.
func (s *Member) applyWant(ctx context.Context, wc WarmCache, want, watch []int, applied *cacheShare) error {
	var covered []int
	for _, b := range want {
		if slices.Contains(applied.buckets, b) && s.guard.unsynced(b) {
			covered = append(covered, b)
		}
	}
	if err := s.confirm(ctx, wc, covered); err != nil {
		return err
	}
	expr, err := ShardSelectorFor(watch, s.buckets)
	if err != nil {
		return err
	}
	if expr == applied.expr && (wc != nil || len(covered) == 0) {
		return nil
	}
	if err := s.cache.SetShardSelector(ctx, expr); err != nil {
		return err
	}
	*applied = cacheShare{expr: expr, buckets: watch}
	return nil
}

// confirm asks a WarmCache to confirm the buckets it already holds, and
// admits them. Without a WarmCache, or with no bucket, it does nothing.
func (s *Member) confirm(ctx context.Context, wc WarmCache, buckets []int) error {
	if wc == nil || len(buckets) == 0 {
		return nil
	}
	expr, err := ShardSelectorFor(buckets, s.buckets)
	if err != nil {
		return err
	}
	if err := wc.ConfirmShare(ctx, expr); err != nil {
		return err
	}
	s.admit(buckets)
	return nil
}

// admit admits the buckets still held and not yet admitted, and hands
// those to OnAdmit.
func (s *Member) admit(buckets []int) {
	var admitted []int
	for _, b := range buckets {
		if s.guard.syncHeld(b) {
			s.logger.Info("bucket synced: admitting its keys", "bucket", b)
			admitted = append(admitted, b)
		}
	}
	if len(admitted) > 0 && s.onAdmit != nil {
		s.onAdmit(admitted)
	}
}

// DefaultIdentity is the identity a replica takes when it is given none:
// the host name made fit to end a Lease name (lower case, other characters
// as '-'), then '-' and 8 random hex digits. A Member uses it for an empty
// Options.Identity; cmd/samplecontroller uses it for --leader-elect too,
// since its journal needs the name before the elector would choose one.
//
// client-go: none (tools/leaderelection's examples use the host name and a uuid).
func DefaultIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("cannot make an identity from the host name: %w", err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return identityFromHost(host, hex.EncodeToString(suffix)), nil
}

// identityFromHost lowers host, turns every run of characters other than
// letters and digits into one '-', trims '-' from both ends, keeps at most
// 40 characters (a DNS label's worth with the suffix), and appends
// '-'+suffix; an empty result is "member-"+suffix.
func identityFromHost(host, suffix string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(host) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimRight(b.String(), "-")
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	if name == "" {
		name = "member"
	}
	return name + "-" + suffix
}
