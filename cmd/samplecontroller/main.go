package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/internal/cli"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

func main() { cli.Main(run) }

// run is the whole program: it parses args, runs the sample controller
// until ctx is cancelled, then stops it gracefully. --help prints the usage
// on stdout and returns nil; a flag error returns a *usageError; anything
// that keeps the controller from starting or stops it early is an ordinary
// error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args)
	if errors.Is(err, errHelp) {
		printUsage(stdout)
		return nil
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))

	// Every response body is counted, by resource, on its way in.
	counts := &byteCounts{}
	ccfg, err := clientConfig(cfg)
	if err != nil {
		return err
	}
	ccfg.WrapTransport = counts.wrap
	ccfg.Logger = logger
	c, err := client.New(ccfg, sc.NewScheme())
	if err != nil {
		return fmt.Errorf("samplecontroller: %w", err)
	}
	api := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return c.Resource(gvr).Namespace(ns) }

	// The journal is opened once the replica's identity is known, before
	// anything runs: the Observer reads j only from goroutines Run starts.
	var j *journal
	opts := sc.Options{Namespace: cfg.namespace, DeploymentSimulator: cfg.simulate, Workers: cfg.workers, Logger: logger}
	if cfg.journal != "" {
		opts.Observer = func(e sc.Event) { j.observe(e) }
	}
	if cfg.ring != "" {
		opts.Shard = &sc.ShardOptions{
			Ring: cfg.ring, Identity: cfg.identity, Buckets: cfg.buckets, LeaseNamespace: cfg.leaseNS,
			LeaseDuration: cfg.leaseDur, RenewDeadline: cfg.renewDL, RetryPeriod: cfg.retryPeriod,
			Warm: cfg.warmBuckets,
		}
	}
	if cfg.leaderElect {
		if cfg.identity == "" {
			// The elector would choose one too; the journal needs it first.
			if cfg.identity, err = sharding.DefaultIdentity(); err != nil {
				return fmt.Errorf("samplecontroller: %w", err)
			}
		}
		opts.Leader = &sc.LeaderOptions{
			Identity: cfg.identity, LeaseNamespace: cfg.leaseNS, Warmup: cfg.warmup,
			LeaseDuration: cfg.leaseDur, RenewDeadline: cfg.renewDL, RetryPeriod: cfg.retryPeriod,
		}
	}
	ctrl, err := sc.New(api, opts)
	if err != nil {
		return err
	}
	identity, held, buckets := cfg.identity, (func() []int)(nil), 0
	if m := ctrl.ShardMember(); m != nil {
		identity, held, buckets = m.Identity(), m.Held, m.Buckets()
	} else if identity == "" {
		identity, _ = os.Hostname()
	}
	leading := func() bool { return true }
	if cfg.leaderElect {
		elected := ctrl.Manager().Elected()
		leading = func() bool {
			select {
			case <-elected:
				return true
			default:
				return false
			}
		}
	}
	if cfg.journal != "" {
		if j, err = openJournal(cfg.journal, identity); err != nil {
			return err
		}
	}
	var stats *statsWriter
	if cfg.stats != "" {
		foos, err := ctrl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{})
		if err != nil {
			return err
		}
		deps, err := ctrl.Manager().GetInformer(sc.DeploymentsGVR, &sc.Deployment{})
		if err != nil {
			return err
		}
		stats = &statsWriter{path: cfg.stats, identity: identity, buckets: buckets, held: held, leading: leading, foos: foos, deps: deps, bytes: counts}
	}

	logger.Info("samplecontroller: starting", "server", ccfg.RedactedServer(), "namespace", cfg.namespace, "ring", cfg.ring, "leaderElect", cfg.leaderElect, "identity", identity)
	// The stats writer outlives the controller by one snapshot: the last
	// one shows the buckets released.
	statsCtx, stopStats := context.WithCancel(context.Background())
	statsDone := make(chan error, 1)
	if stats != nil {
		go func() { statsDone <- stats.run(statsCtx) }()
	} else {
		statsDone <- nil
	}
	runErr := ctrl.Run(ctx)
	stopStats()
	errs := []error{runErr, <-statsDone}
	if j != nil {
		errs = append(errs, j.close())
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	logger.Info("samplecontroller: stopped")
	return nil
}

// clientConfig is the client configuration --kubeconfig or --server gives.
func clientConfig(cfg config) (*client.Config, error) {
	if cfg.kubeconfig != "" {
		c, err := client.LoadKubeconfig(cfg.kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("samplecontroller: --kubeconfig: %w", err)
		}
		return c, nil
	}
	c, err := client.ConfigFromURL(cfg.server)
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: --server: %w", err)
	}
	return c, nil
}
