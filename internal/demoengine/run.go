package demoengine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// Options are what a run of the engine plays, and where: cmd/demo fills
// them from its flags.
type Options struct {
	// Scenario is the scenario to play (see Scenarios); "" is "story".
	Scenario string
	// Step pauses before each chapter until a line is read from stdin.
	Step bool
	// Speed below 1 slows the story down; 0 is 1.
	Speed float64
	// Color writes ANSI colours; Verbose adds object diffs, bookmarks, the
	// simulator's steps, handler dispatches and logs.
	Color, Verbose bool
	// Server or Kubeconfig, when set, narrate a running API server instead
	// of the embedded one; Resource is the resource to watch there when it
	// lacks the Foo CRD, Namespace the namespace ("" for all), and
	// SimulateDeployments runs the Deployment simulator against it.
	Server, Kubeconfig, Resource, Namespace string
	SimulateDeployments                     bool
	// Web serves the live page at WebAddr instead of playing the story.
	Web     bool
	WebAddr string
	// Shards, when 2 or more, runs that many sharded sample-controller
	// replicas in one process over the embedded server instead of the
	// story: the ring settles, then one replica is killed and the
	// survivors take its buckets.
	Shards int

	// Settle, when set, makes the story deterministic (see gate): the
	// golden test passes testing/synctest.Wait and runs inside a bubble.
	Settle func()
	// StallAfter, AnswerWithin and ProgressEvery, when set, replace
	// defaultStallAfter, defaultAnswerWithin and defaultProgressEvery.
	StallAfter, AnswerWithin, ProgressEvery time.Duration
}

// options are Options with their defaults filled in.
type options struct {
	scenario   string
	step       bool
	speed      float64
	verbose    bool
	server     string
	kubeconfig string
	resource   string
	namespace  string
	simulate   bool
	webAddr    string
}

// env is the test knobs of Options.
type env struct {
	settle                             func()
	stall, answerWithin, progressEvery time.Duration
}

// waitForAnswer is the package's waitForAnswer with e's bounds.
func (e env) waitForAnswer(ctx context.Context, n *narrator, server string, first func(context.Context) error) error {
	within, every := defaultAnswerWithin, defaultProgressEvery
	if e.answerWithin > 0 {
		within = e.answerWithin
	}
	if e.progressEvery > 0 {
		every = e.progressEvery
	}
	return waitForAnswer(ctx, n, server, within, every, first)
}

// stallAfter is how long a Deployment may lack its status before the demo
// says no Deployment controller seems to run.
func (e env) stallAfter() time.Duration {
	if e.stall > 0 {
		return e.stall
	}
	return defaultStallAfter
}

// ScenarioInfo describes one scenario: its name, what it shows, and the
// titles of its chapters.
type ScenarioInfo struct {
	Name, Help string
	Chapters   []string
}

// Scenarios lists the scenarios, in the order of --list-scenarios.
func Scenarios() []ScenarioInfo {
	all := chapters()
	var out []ScenarioInfo
	for _, s := range scenarioChapters {
		info := ScenarioInfo{Name: s.name, Help: s.help}
		for _, c := range s.chapters {
			info.Chapters = append(info.Chapters, all[c].title)
		}
		out = append(out, info)
	}
	return out
}

// CheckResource reports whether s names a resource as --resource takes it:
// RESOURCE or RESOURCE.VERSION.GROUP.
func CheckResource(s string) error {
	_, err := parseResource(s)
	return err
}

func findScenario(name string) ([]string, bool) {
	for _, s := range scenarioChapters {
		if s.name == name {
			return s.chapters, true
		}
	}
	return nil, false
}

func scenarioNames() []string {
	var names []string
	for _, s := range scenarioChapters {
		names = append(names, s.name)
	}
	return names
}

// Run plays o until done or ctx ends, writing the narration to stdout, and
// returns nil on a clean stop: the story on the embedded fakeapi, the
// narration of a remote server, or the live page.
func Run(ctx context.Context, o Options, stdin io.Reader, stdout io.Writer) error {
	opts := options{
		scenario: cmpOr(o.Scenario, "story"), step: o.Step, speed: o.Speed, verbose: o.Verbose,
		server: o.Server, kubeconfig: o.Kubeconfig, resource: cmpOr(o.Resource, "configmaps"),
		namespace: o.Namespace, simulate: o.SimulateDeployments, webAddr: o.WebAddr,
	}
	if opts.speed == 0 {
		opts.speed = 1
	}
	if _, ok := findScenario(opts.scenario); !ok {
		return fmt.Errorf("demo: unknown scenario %q", opts.scenario)
	}
	e := env{settle: o.Settle, stall: o.StallAfter, answerWithin: o.AnswerWithin, progressEvery: o.ProgressEvery}
	n := &narrator{out: stdout, verbose: o.Verbose, color: o.Color}
	if e.settle == nil {
		start := time.Now()
		n.clock = func() time.Duration { return time.Since(start) }
		if opts.speed < 1 {
			n.lineDelay = time.Duration((1/opts.speed - 1) * float64(150*time.Millisecond))
		}
	}
	if o.Shards != 0 {
		if opts.server != "" || opts.kubeconfig != "" {
			return fmt.Errorf("demo: sharded mode runs on the embedded server only")
		}
		if o.Web {
			return runWebShards(ctx, opts, n, o.Shards)
		}
		return runShards(ctx, n, o.Shards)
	}
	if o.Web {
		return runWeb(ctx, opts, n, e)
	}
	if opts.server != "" || opts.kubeconfig != "" {
		return runRemote(ctx, opts, n, e)
	}
	return runStory(ctx, opts, n, stdin, stdout, e)
}

func runStory(ctx context.Context, o options, n *narrator, stdin io.Reader, stdout io.Writer, e env) error {
	names, _ := findScenario(o.scenario)
	g := newGate(e.settle)
	if g.deterministic() {
		n.buffered = true
		g.onSettle = n.flush
	}
	srvOpts := fakeapi.Options{Scheme: sc.NewScheme(), NamespaceLifecycle: true}
	if g.deterministic() {
		srvOpts.BookmarkInterval = -1
	}
	srv := fakeapi.New(srvOpts)
	defer srv.Close()
	if err := sc.Register(srv); err != nil {
		return err
	}
	if err := seed(ctx, srv); err != nil {
		return err
	}
	// The controller's Events go to a server of their own, so that their
	// writes (from the Manager's event broadcaster, at moments of its own)
	// take none of the story's resourceVersions.
	eventSrv := fakeapi.New(fakeapi.Options{})
	defer eventSrv.Close()

	gctx, stopGate := context.WithCancel(context.Background())
	gateDone := make(chan struct{})
	go func() { defer close(gateDone); g.run(gctx) }()
	defer func() { stopGate(); <-gateDone }()

	api := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	}
	events := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return eventSrv.Resource(gvr).Namespace(namespace)
	}
	w, err := newWorld(n, g, api, "", events, true)
	if err != nil {
		return err
	}
	s := &story{srv: srv, w: w, n: n, g: g,
		foos: srv.Resource(sc.FoosGVR).Namespace(ns), deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns)}
	if !g.deterministic() {
		s.pause = time.Duration(float64(1500*time.Millisecond) / o.speed)
	}
	if o.step {
		s.step = stepper(stdin, stdout)
	}
	n.say("informerlab demo: scenario %q — the sample controller (package samplecontroller) narrated step by step along the client-go diagram.", o.scenario)
	err = s.play(ctx, names)
	interrupted := ctx.Err() != nil
	if stopErr := w.stop(); err == nil {
		err = stopErr
	}
	if interrupted {
		n.say("\nInterrupted: the controllers finished the Reconcile in progress, the informers stopped, every goroutine has exited. Bye.")
		return nil
	}
	if err != nil {
		return err
	}
	n.say("\nThe end: %s. Every goroutine has stopped.", fmt.Sprintf("%d narrated steps", n.count()))
	return nil
}

// stepper returns a function that waits for Enter (or the end of stdin).
func stepper(stdin io.Reader, stdout io.Writer) func(ctx context.Context) error {
	lines := make(chan struct{})
	started := false
	return func(ctx context.Context) error {
		if !started {
			started = true
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(stdin)
				for sc.Scan() {
					lines <- struct{}{}
				}
			}()
		}
		fmt.Fprint(stdout, "\n-- press Enter for the next chapter --")
		select {
		case _, ok := <-lines:
			if !ok {
				fmt.Fprintln(stdout)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
