package samplecontroller

import (
	"errors"
	"time"

	"github.com/informerlab/informerlab/controller/leaderelection"
)

// LeaderOptions make a replica one of several copies of the sample
// controller of which one works at a time: every replica caches the Foos
// and Deployments, the one holding the Lease reconciles them, and when it
// dies another takes the Lease after LeaseDuration. It is the classic way
// to run a controller with standbys (controller-runtime's
// LeaderElection); sharding (ShardOptions) is the way to share the work.
//
// client-go: sample-controller has none; controller-runtime
// pkg/manager.Options LeaderElection, LeaderElectionID, and
// pkg/controller.Options.EnableWarmup.
type LeaderOptions struct {
	// Lease names the Lease the replicas compete for. "" means
	// DefaultLeaderLease.
	Lease string
	// Identity of this replica, unique among them: the holder it writes
	// in the Lease. "" means the host name and a random suffix.
	Identity string
	// LeaseNamespace is where the Lease lives. "" means Options.Namespace,
	// or "default" when that is "" too.
	LeaseNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod are the Lease timings of
	// [leaderelection.Options]; 0 means its defaults.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Warmup starts the controllers' sources while the replica is a
	// standby (controller.Options.EnableWarmup): its queues already hold
	// every Foo and Deployment key when it wins, so its workers start at
	// once. Without it the sources start when it wins: the handlers are
	// registered then, and the keys of every cached object queued then.
	// The caches themselves are full either way: a Manager starts its
	// cache before it campaigns.
	Warmup bool
}

// DefaultLeaderLease is the Lease a leader-elected sample controller
// competes for when LeaderOptions.Lease is "".
const DefaultLeaderLease = "samplecontroller"

// leaderElection returns the Manager's leader-election options for lo, or
// nil when lo is nil.
func leaderElection(api API, lo *LeaderOptions, opts Options) (*leaderelection.Options, error) {
	if lo == nil {
		return nil, nil
	}
	if opts.Shard != nil {
		return nil, errors.New("samplecontroller: Leader and Shard cannot both be set: a sharded replica works on its buckets, a leader-elected one on everything or nothing")
	}
	ns := cmpOr(cmpOr(lo.LeaseNamespace, opts.Namespace), "default")
	return &leaderelection.Options{
		Client:        api(LeasesGVR, ns),
		Name:          cmpOr(lo.Lease, DefaultLeaderLease),
		Identity:      lo.Identity,
		LeaseDuration: lo.LeaseDuration,
		RenewDeadline: lo.RenewDeadline,
		RetryPeriod:   lo.RetryPeriod,
	}, nil
}
