package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/informerlab/informerlab/internal/demoengine"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	var usage *usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, err)
		fmt.Fprintln(os.Stderr, "run 'demo --help' for usage")
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return "demo: " + e.msg }

// options are the parsed flags.
type options struct {
	scenario      string
	listScenarios bool
	step          bool
	speed         float64
	noColor       bool
	verbose       bool
	server        string
	kubeconfig    string
	resource      string
	namespace     string
	simulate      bool
	web           bool
	webAddr       string
	shards        int
	help          bool
}

// env is what run takes from its surroundings; tests replace it.
type env struct {
	// settle, when set, makes the story deterministic (see gate): the golden
	// test passes testing/synctest.Wait and runs inside a bubble.
	settle   func()
	getenv   func(string) string
	terminal bool // stdout is a terminal: colour allowed
	// stall, when set, replaces defaultStallAfter (tests).
	stall time.Duration
	// answerWithin and progressEvery, when set, replace
	// defaultAnswerWithin and defaultProgressEvery (tests).
	answerWithin, progressEvery time.Duration
}

// run is main without the process: it parses args, plays the chosen
// scenario (or narrates a remote server) until done or ctx ends, and
// returns nil on a clean stop.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: os.Getenv}
	if f, ok := stdout.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			e.terminal = true
		}
	}
	return runWith(ctx, args, stdin, stdout, stderr, e)
}

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.StringVar(&o.scenario, "scenario", "story", "which scenario to play (see --list-scenarios)")
	fs.BoolVar(&o.listScenarios, "list-scenarios", false, "list the scenarios and their chapters, then exit")
	fs.BoolVar(&o.step, "step", false, "pause before each chapter until you press Enter")
	fs.Float64Var(&o.speed, "speed", 1, "playback speed: below 1 slows the story down (pauses between chapters and lines)")
	fs.BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set, or stdout is not a terminal)")
	fs.BoolVar(&o.verbose, "verbose", false, "also show object diffs, bookmarks, the simulator's steps, handler dispatches and logs")
	fs.StringVar(&o.server, "server", "", "narrate a running API server at this URL instead of the embedded one")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "narrate the cluster of this kubeconfig's current context")
	fs.StringVar(&o.resource, "resource", "configmaps", "with --server/--kubeconfig and no Foo CRD: the resource to watch, RESOURCE or RESOURCE.VERSION.GROUP")
	fs.StringVar(&o.namespace, "namespace", "", "with --server/--kubeconfig: the namespace to watch (default all)")
	fs.BoolVar(&o.simulate, "simulate-deployments", false, "with --server/--kubeconfig and the Foo CRD: also run the Deployment simulator, which writes Deployment status as kube-controller-manager would; for a server without one (cmd/fakeapi), never next to a real one")
	fs.BoolVar(&o.web, "web", false, "serve a live web page of the diagram instead of playing the story (see --web-addr)")
	fs.StringVar(&o.webAddr, "web-addr", "127.0.0.1:8080", "with --web: the address to serve the page on")
	fs.IntVar(&o.shards, "shards", 0, "run this many sharded sample-controller replicas (2 or more) in one process over the embedded server, sharing 16 buckets through Leases; the demo shows who holds which buckets, kills one replica and shows the survivors take its buckets and reconcile its Foos")
	fs.BoolVar(&o.help, "help", false, "show this help")
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := newFlagSet(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			o.help = true
			return o, nil
		}
		return o, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return o, &usageError{msg: fmt.Sprintf("unexpected argument %q: demo takes only flags", fs.Arg(0))}
	}
	if o.speed <= 0 {
		return o, &usageError{msg: fmt.Sprintf("--speed must be positive, got %v", o.speed)}
	}
	if o.shards != 0 {
		if o.shards < 2 {
			return o, &usageError{msg: fmt.Sprintf("--shards wants 2 or more replicas, got %d", o.shards)}
		}
		if o.server != "" || o.kubeconfig != "" {
			return o, &usageError{msg: "--shards runs on the embedded server only, without --server or --kubeconfig"}
		}
	}
	if o.server != "" && o.kubeconfig != "" {
		return o, &usageError{msg: "--server and --kubeconfig exclude each other"}
	}
	var names []string
	for _, s := range demoengine.Scenarios() {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, o.scenario) {
		return o, &usageError{msg: fmt.Sprintf("unknown scenario %q (known: %s)", o.scenario, strings.Join(names, ", "))}
	}
	if err := demoengine.CheckResource(o.resource); err != nil {
		return o, &usageError{msg: err.Error()}
	}
	if _, _, err := net.SplitHostPort(o.webAddr); err != nil {
		return o, &usageError{msg: fmt.Sprintf("--web-addr %q: want HOST:PORT, such as 127.0.0.1:8080", o.webAddr)}
	}
	return o, nil
}

func runWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	if o.help {
		printUsage(stdout)
		return nil
	}
	if o.listScenarios {
		for _, s := range demoengine.Scenarios() {
			fmt.Fprintf(stdout, "%-10s %s\n", s.Name, s.Help)
			for _, c := range s.Chapters {
				fmt.Fprintf(stdout, "%12s- %s\n", "", c)
			}
		}
		return nil
	}
	return demoengine.Run(ctx, demoengine.Options{
		Scenario: o.scenario, Step: o.step, Speed: o.speed,
		Color:   e.terminal && !o.noColor && e.getenv("NO_COLOR") == "",
		Verbose: o.verbose,
		Server:  o.server, Kubeconfig: o.kubeconfig, Resource: o.resource, Namespace: o.namespace,
		SimulateDeployments: o.simulate,
		Web:                 o.web, WebAddr: o.webAddr, Shards: o.shards,
		Settle: e.settle, StallAfter: e.stall, AnswerWithin: e.answerWithin, ProgressEvery: e.progressEvery,
	}, stdin, stdout)
}

const usageHeader = `demo plays a scripted story on an embedded fake API server: the project's sample
controller (package samplecontroller: sample-controller's Foo, on a Manager with
its informers and workqueue), narrating every object as it crosses the client-go
diagram, one line per step:

  [1 list&watch] [2 → DeltaFIFO] [3 pop] [4/5 indexer] [6 handler]
  [7 enqueue] [8 get key] [9 lister get] [reconcile] [API write]

Ctrl-C stops it cleanly (exit status 0).

Usage:
  demo [flags]

Flags:
`

const usageExamples = `
Examples:
  demo                                   # the whole story
  demo --list-scenarios                  # what there is to see
  demo --scenario watch                  # only dropped watches, 410 and relist
  demo --step                            # pause before each chapter; Enter continues
  demo --speed 0.25                      # four times slower, for a classroom
  demo --no-color | less                 # plain text (NO_COLOR=1 works too)
  demo --verbose --scenario basics       # with object diffs and the simulator's steps
  demo --web                             # a live page of the diagram at http://127.0.0.1:8080/
  demo --web --web-addr 127.0.0.1:9090   # the page on another port
  demo --shards 3                        # three sharded replicas share 16 buckets; one is killed,
                                         # the survivors take its buckets and reconcile its Foos
  demo --web --shards 3                  # the replicas page: bucket tiles by holder, "kill a replica"
  demo --server http://127.0.0.1:8080    # narrate a running cmd/fakeapi (watch-only: configmaps)
  demo --server http://127.0.0.1:8080 --simulate-deployments
                                         # cmd/fakeapi --sample-resources has no Deployment controller:
                                         # the demo plays it, so Foos become Ready
  demo --kubeconfig ~/.kube/config --resource deployments.v1.apps --namespace default
                                         # narrate a real cluster; with the Foo CRD installed
                                         # (kubectl apply -f samplecontroller/testdata/foo-crd.yaml)
                                         # the Foo controller runs too
`

func printUsage(w io.Writer) {
	var o options
	fs := newFlagSet(&o)
	fmt.Fprint(w, usageHeader)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		def := ""
		if f.DefValue != "" && f.DefValue != "false" {
			def = " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  --%s %s\n        %s%s\n", f.Name, name, usage, def)
	})
	fmt.Fprint(w, usageExamples)
}
