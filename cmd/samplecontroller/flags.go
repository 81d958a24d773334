package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/internal/cli"
	sc "github.com/informerlab/informerlab/samplecontroller"
	"k8s.io/apimachinery/pkg/util/validation"
)

// config is what the flags say.
type config struct {
	kubeconfig   string
	server       string
	namespace    string
	simulate     bool
	ring         string
	leaderElect  bool
	workers      int
	warmup       bool
	warmBuckets  bool
	identity     string
	buckets      int
	leaseNS      string
	leaseDur     time.Duration
	renewDL      time.Duration
	retryPeriod  time.Duration
	journal      string
	stats        string
	logLevel     slog.Level
	logLevelText string // the --log-level flag, parsed into logLevel
}

// usageError is a bad command line: main exits with status 2 for it.
type usageError = cli.UsageError

// usagef returns a *usageError of samplecontroller.
func usagef(format string, a ...any) error { return cli.Usagef("samplecontroller", format, a...) }

// errHelp is returned by parseFlags for -h, -help and --help.
var errHelp = errors.New("samplecontroller: help requested")

func newFlagSet(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("samplecontroller", flag.ContinueOnError)
	fs.StringVar(&cfg.kubeconfig, "kubeconfig", "",
		"connect with the kubeconfig at `path` (its current context: server, certificate authority, token or client certificate); one of --kubeconfig and --server is required")
	fs.StringVar(&cfg.server, "server", "",
		"connect to the API server at `URL` with no credentials, e.g. http://127.0.0.1:8080 (a fakeapi); one of --kubeconfig and --server is required")
	fs.StringVar(&cfg.namespace, "namespace", "",
		"watch and reconcile the Foos of this `namespace` only; empty means every namespace")
	fs.BoolVar(&cfg.simulate, "simulate-deployments", false,
		"also run the DeploymentSimulator, which reports every Deployment's replicas as available; for a server with no kube-controller-manager (fakeapi, a bare kube-apiserver), never for a real cluster")
	fs.StringVar(&cfg.ring, "ring", "",
		"run as one replica of the sharded ring `name`: the replicas of a ring share the Foos by bucket, each caching and reconciling only the Foos of the buckets whose Lease it holds; empty runs one replica that does everything")
	fs.IntVar(&cfg.workers, "workers", 2,
		"how many Foos the Foo controller reconciles at once (and Deployments the simulator), never one Foo twice at once; sample-controller runs 2")
	fs.BoolVar(&cfg.leaderElect, "leader-elect", false,
		"run as one of several replicas of which the one holding the Lease \""+sc.DefaultLeaderLease+"\" reconciles and the others stand by with full caches, taking over when it stops or dies; not with --ring")
	fs.BoolVar(&cfg.warmup, "warmup", false,
		"while standing by, also start the controllers' sources, so that the queues hold every key when this replica wins and its workers start at once (with --leader-elect)")
	fs.BoolVar(&cfg.warmBuckets, "warm-buckets", false,
		"also cache the Foos and Deployments of the buckets this replica would gain if one other replica died, so that a takeover lists only the gained buckets, once, to confirm them: about twice a share's memory for a faster takeover (with --ring)")
	fs.StringVar(&cfg.identity, "identity", "",
		"this replica's `name` among its replicas, unique and written in the Leases it holds: lower-case letters, digits, '-' and '.'; empty means the host name in that form and a random suffix (with --ring or --leader-elect)")
	fs.IntVar(&cfg.buckets, "buckets", sharding.DefaultBuckets,
		"the ring's fixed `number` of buckets, 1 to 1024; every replica of a ring must give the same (with --ring)")
	fs.StringVar(&cfg.leaseNS, "lease-namespace", "",
		"the `namespace` of the ring's member and bucket Leases, or of the leader's Lease; empty means --namespace, or \"default\" when that is empty too (with --ring or --leader-elect)")
	fs.DurationVar(&cfg.leaseDur, "lease-duration", leaderelection.DefaultLeaseDuration,
		"how long a replica's Lease stays valid after its last renewal (with --ring, its member Lease, which keeps every bucket it holds): a crashed replica's work is taken over this long after it stopped renewing (with --ring or --leader-elect)")
	fs.DurationVar(&cfg.renewDL, "renew-deadline", leaderelection.DefaultRenewDeadline,
		"how recently this replica's Lease must have been renewed (with --ring, and its buckets seen still naming it) for it to reconcile; shorter than --lease-duration (with --ring or --leader-elect)")
	fs.DurationVar(&cfg.retryPeriod, "retry-period", leaderelection.DefaultRetryPeriod,
		"how often the replica renews its Lease or tries to take it (with --ring: renews its member Lease and lists the ring's Leases; bucket Leases are written only when a bucket changes hands) (with --ring or --leader-elect)")
	fs.StringVar(&cfg.journal, "journal", "",
		"append one JSON line per Foo reconcile to the file at `path`: replica, key, start and end (Unix nanoseconds), ok, and the number of successful API writes it made")
	fs.StringVar(&cfg.stats, "stats", "",
		"rewrite a JSON snapshot of this replica to the file at `path` about every 250 ms: identity, held buckets, whether it leads, Foos and Deployments cached, bytes received per resource, live heap bytes")
	fs.StringVar(&cfg.logLevelText, "log-level", "info",
		"log `level` on standard error: debug, info, warn or error")
	return fs
}

// parseFlags parses args into a config and checks it.
func parseFlags(args []string) (config, error) {
	var cfg config
	fs := newFlagSet(&cfg)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, errHelp
		}
		return cfg, usagef("%s", err.Error())
	}
	if fs.NArg() > 0 {
		return cfg, usagef("unexpected argument %q", fs.Arg(0))
	}
	if (cfg.kubeconfig == "") == (cfg.server == "") {
		return cfg, usagef("give exactly one of --kubeconfig and --server")
	}
	if cfg.workers < 1 {
		return cfg, usagef("--workers %d: want 1 or more", cfg.workers)
	}
	if err := cfg.logLevel.UnmarshalText([]byte(cfg.logLevelText)); err != nil {
		return cfg, usagef("--log-level %q: want debug, info, warn or error", cfg.logLevelText)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.ring != "" && cfg.leaderElect {
		return cfg, usagef("give at most one of --ring and --leader-elect: a ring shares the Foos, a leader election gives them all to one replica")
	}
	if set["warmup"] && !cfg.leaderElect {
		return cfg, usagef("--warmup needs --leader-elect")
	}
	if set["warm-buckets"] && cfg.ring == "" {
		return cfg, usagef("--warm-buckets needs --ring")
	}
	if set["buckets"] && cfg.ring == "" {
		return cfg, usagef("--buckets needs --ring")
	}
	if cfg.ring == "" && !cfg.leaderElect {
		for _, name := range []string{"identity", "lease-namespace", "lease-duration", "renew-deadline", "retry-period"} {
			if set[name] {
				return cfg, usagef("--%s needs --ring or --leader-elect", name)
			}
		}
		return cfg, nil
	}
	if cfg.leaderElect {
		if cfg.identity != "" {
			if errs := validation.IsDNS1123Subdomain(cfg.identity); len(errs) > 0 {
				return cfg, usagef("--identity %q: it is written in a Lease, so use lower-case letters, digits, '-' and '.'", cfg.identity)
			}
		}
		return cfg, checkTimings(cfg)
	}
	if cfg.buckets < 1 || cfg.buckets > sharding.MaxBuckets {
		return cfg, usagef("--buckets %d: want 1 to %d (each bucket is a Lease every replica lists every --retry-period)", cfg.buckets, sharding.MaxBuckets)
	}
	if cfg.identity != "" {
		if errs := validation.IsDNS1123Subdomain(cfg.ring + "-member-" + cfg.identity); len(errs) > 0 {
			return cfg, usagef("--identity %q: it ends the Lease name %s-member-%s, so use lower-case letters, digits, '-' and '.'", cfg.identity, cfg.ring, cfg.identity)
		}
	}
	return cfg, checkTimings(cfg)
}

// checkTimings checks the Lease timings of --ring and --leader-elect.
func checkTimings(cfg config) error {
	if cfg.leaseDur <= 0 || cfg.renewDL <= 0 || cfg.retryPeriod <= 0 {
		return usagef("--lease-duration, --renew-deadline and --retry-period must be positive")
	}
	if cfg.renewDL >= cfg.leaseDur {
		return usagef("--renew-deadline %v must be shorter than --lease-duration %v", cfg.renewDL, cfg.leaseDur)
	}
	return nil
}

// printUsage writes the help text: what the program does, then every flag.
func printUsage(w io.Writer) {
	fmt.Fprint(w, strings.TrimLeft(usageHead, "\n"))
	var cfg config
	fs := newFlagSet(&cfg)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, usageTail)
}

const usageHead = `
Usage: samplecontroller (--kubeconfig FILE | --server URL) [flags]

Runs the sample controller: for every Foo it makes a Deployment of
spec.replicas and reports the available replicas in the Foo's status. With
--ring it is one replica of a sharded ring; start several with one --ring and
different --identity, and they share the Foos between them by bucket. With
--leader-elect it is one of several replicas of which one works at a time.

Flags:
`

const usageTail = `
SIGTERM or SIGINT stops it gracefully: a replica stops admitting its
buckets' Foos, waits for their reconciles to end and releases its Leases,
so the other replicas take its buckets at once instead of after
--lease-duration; a leader stops its controllers and releases its Lease, so
a standby takes over at its next try.

Exit status: 0 after a graceful stop (or --help), 1 when the controller
cannot start or fails while running (a --ring replica that cannot take its
member Lease within twice --lease-duration plus --retry-period, warning
each round, gives up with 1), 2 for a bad command line.
`
