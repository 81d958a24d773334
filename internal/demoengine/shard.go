package demoengine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/leasecut"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// The sharded demo's Lease timings: short, so that a killed replica's
// buckets are free a few seconds after its last renewal.
const (
	shardLeaseDuration = 4 * time.Second
	shardRenewDeadline = 2 * time.Second
	shardRetryPeriod   = 500 * time.Millisecond
	// shardFoos is how many Foos the sharded demo creates.
	shardFoos = 12
	// shardWithin bounds each wait of the sharded demo.
	shardWithin = 60 * time.Second
)

// shardReplica is one sample controller of the demo's ring.
type shardReplica struct {
	name   string
	ctl    *sc.SampleController
	leases *leasecut.Client
	cancel context.CancelFunc
	done   chan error
	dead   bool
	killed time.Time // when it was killed
	// relists counts its Foo informer's relists and what each brought.
	relists *relistMeter
}

// reconcileLog remembers, per Foo key, which replicas finished a Reconcile
// of it since the last mark.
type reconcileLog struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (l *reconcileLog) observer(replica string) sc.Observer {
	return func(e sc.Event) {
		if e.Controller != sc.FooControllerName || e.Step != sc.StepReconcile {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		key := e.Request.String()
		if !slices.Contains(l.seen[key], replica) {
			l.seen[key] = append(l.seen[key], replica)
		}
	}
}

func (l *reconcileLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = map[string][]string{}
}

func (l *reconcileLog) by(key string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen[key])
}

// shardDemo is the sharded mode: replicas sample controllers in one process
// share one embedded fakeapi through the bucket ring (package controller's
// sharding.Member), and the narrator tells who holds what, then kills one.
type shardDemo struct {
	n        *narrator
	srv      *fakeapi.Server
	replicas []*shardReplica
	log      *reconcileLog
	buckets  int
	// observe, when set, adds an Observer per replica (the page's overlap
	// detector).
	observe func(replica string) sc.Observer
}

// newShardDemo starts an embedded server with the Foos the replicas share.
func newShardDemo(ctx context.Context) (*shardDemo, error) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	if err := sc.Register(srv); err != nil {
		srv.Close()
		return nil, err
	}
	foos := srv.Resource(sc.FoosGVR).Namespace(ns)
	for i := range shardFoos {
		name := fmt.Sprintf("foo-%02d", i)
		if _, err := foos.Create(ctx, newFoo(name, name+"-nginx", 1), metav1.CreateOptions{}); err != nil {
			srv.Close()
			return nil, err
		}
	}
	return &shardDemo{srv: srv, log: &reconcileLog{seen: map[string][]string{}}, buckets: sharding.DefaultBuckets}, nil
}

// kill cuts r off the Leases, then stops it: it releases nothing.
func (d *shardDemo) kill(r *shardReplica) {
	r.leases.Cut()
	r.cancel()
	<-r.done
	r.dead = true
	r.killed = time.Now()
}

// runShards plays the sharded demo with the given number of replicas.
func runShards(ctx context.Context, n *narrator, replicas int) error {
	if replicas < 2 {
		return fmt.Errorf("demo: --shards wants at least 2 replicas, got %d", replicas)
	}
	d, err := newShardDemo(ctx)
	if err != nil {
		return err
	}
	defer d.srv.Close()
	d.n = n
	n.say("informerlab demo: %d sample-controller replicas in one process share one API server through a ring of %d buckets.", replicas, d.buckets)
	n.say("Each replica renews a member Lease, which keeps valid every bucket whose Lease names it; a bucket Lease is written only when it changes hands (LeaseDuration %v, RenewDeadline %v, RetryPeriod %v);", shardLeaseDuration, shardRenewDeadline, shardRetryPeriod)
	n.say("its Foo informer lists and watches only its buckets (a shard selector), and its Foo controller runs a key only while it holds the key's bucket.")
	if err := d.giveFoosTo(ctx, "replica-0", replicas); err != nil {
		return err
	}
	if err := d.start(replicas); err != nil {
		d.stop()
		return err
	}
	err = d.play(ctx)
	d.stop()
	if ctx.Err() != nil {
		n.say("\nInterrupted: every replica stopped. Bye.")
		return nil
	}
	if err != nil {
		return err
	}
	n.say("\nThe end: every Foo was reconciled by its bucket's holder; every goroutine has stopped.")
	return nil
}

func (d *shardDemo) start(count int) error {
	for i := range count {
		r := &shardReplica{name: "replica-" + strconv.Itoa(i), done: make(chan error, 1), relists: &relistMeter{}}
		// Each replica's Foo lists go through its relist meter.
		api := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
			res := d.srv.Resource(gvr).Namespace(namespace)
			if gvr == sc.FoosGVR {
				return meteredResource{Resource: res, m: r.relists}
			}
			return res
		}
		observer := d.log.observer(r.name)
		if d.observe != nil {
			observer = teeObserver(observer, d.observe(r.name))
		}
		r.leases = leasecut.New(d.srv.Resource(sc.LeasesGVR).Namespace("kube-system"))
		ctl, err := sc.New(api, sc.Options{
			Namespace: ns,
			// Every replica simulates its own buckets' Deployments (the
			// Deployment informer is sharded by the bucket label).
			DeploymentSimulator: true,
			Logger:              quietLogger,
			Observer:            observer,
			Shard: &sc.ShardOptions{
				Ring: "foos", Identity: r.name, LeaseClient: r.leases, Buckets: d.buckets,
				LeaseDuration: shardLeaseDuration, RenewDeadline: shardRenewDeadline, RetryPeriod: shardRetryPeriod,
			},
		})
		if err != nil {
			return err
		}
		inf, err := ctl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{})
		if err != nil {
			return err
		}
		if err := r.relists.watchCache(inf); err != nil {
			return err
		}
		r.ctl = ctl
		ctx, cancel := context.WithCancel(context.Background())
		r.cancel = cancel
		go func() { r.done <- ctl.Run(ctx) }()
		d.replicas = append(d.replicas, r)
	}
	return nil
}

// stop stops every live replica and waits for each.
func (d *shardDemo) stop() {
	for _, r := range d.replicas {
		if !r.dead {
			r.cancel()
			<-r.done
			r.dead = true
		}
	}
}

func (d *shardDemo) live() []*shardReplica {
	var out []*shardReplica
	for _, r := range d.replicas {
		if !r.dead {
			out = append(out, r)
		}
	}
	return out
}

// settled reports whether every bucket is held by the live member the ring
// gives it, and by no one else, and admitted: the holder's caches have
// caught up with it.
func (d *shardDemo) settled() bool {
	live := d.live()
	var names []string
	holder := map[int]string{}
	for _, r := range live {
		names = append(names, r.name)
		m := r.ctl.ShardMember()
		for _, b := range m.Held() {
			if _, twice := holder[b]; twice {
				return false
			}
			if !m.Admits(b) {
				return false // its caches have not caught up with it yet
			}
			holder[b] = r.name
		}
	}
	for b, owner := range sharding.BucketOwners(names, d.buckets) {
		if holder[b] != owner {
			return false
		}
	}
	return true
}

// waitFor polls cond every RetryPeriod until it holds, ctx ends or within
// passes.
func waitFor(ctx context.Context, what string, cond func() bool) error {
	deadline := time.Now().Add(shardWithin)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %s: not within %v", what, shardWithin)
		}
		t := time.NewTimer(shardRetryPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// tell narrates each live replica's buckets and cache.
func (d *shardDemo) tell() {
	for _, r := range d.live() {
		held := r.ctl.ShardMember().Held()
		cached := 0
		if inf, err := r.ctl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{}); err == nil {
			cached = len(inf.GetIndexer().ListKeys())
		}
		d.n.say("  %s holds %2d buckets %v and caches %d Foos", r.name, len(held), held, cached)
	}
}

func (d *shardDemo) fooBuckets(ctx context.Context) (map[string]int, error) {
	list, err := d.srv.Resource(sc.FoosGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	fl, ok := list.(*sc.FooList)
	if !ok {
		return nil, fmt.Errorf("demo: the server returned %T for a Foo list", list)
	}
	out := map[string]int{}
	for _, f := range fl.Items {
		out[f.Namespace+"/"+f.Name] = sharding.BucketOf(f.UID, d.buckets)
	}
	return out, nil
}

// giveFoosTo creates more Foos, if it must, until one is in a bucket the
// ring of count replicas gives to victim, the replica the story kills: a
// Foo's bucket comes from its random uid, and a victim with no Foo would
// have nothing to hand over.
func (d *shardDemo) giveFoosTo(ctx context.Context, victim string, count int) error {
	names := make([]string, count)
	for i := range names {
		names[i] = "replica-" + strconv.Itoa(i)
	}
	owners := sharding.BucketOwners(names, d.buckets)
	foos := d.srv.Resource(sc.FoosGVR).Namespace(ns)
	for i := shardFoos; ; i++ {
		all, err := d.fooBuckets(ctx)
		if err != nil {
			return err
		}
		for _, b := range all {
			if owners[b] == victim {
				return nil
			}
		}
		name := fmt.Sprintf("foo-%02d", i)
		if _, err := foos.Create(ctx, newFoo(name, name+"-nginx", 1), metav1.CreateOptions{}); err != nil {
			return err
		}
	}
}

func (d *shardDemo) play(ctx context.Context) error {
	d.n.chapter(1, "the ring settles", "Members see each other through their Leases; every member computes the same bucket → member map (rendezvous hashing) and takes its buckets.")
	if err := waitFor(ctx, "the ring settles", d.settled); err != nil {
		return err
	}
	d.tell()
	all, err := d.fooBuckets(ctx)
	if err != nil {
		return err
	}
	victim := d.replicas[0]
	lost := victim.ctl.ShardMember().Held()
	var orphans []string
	for key, b := range all {
		if slices.Contains(lost, b) {
			orphans = append(orphans, key)
		}
	}
	sort.Strings(orphans)

	d.n.chapter(2, "a replica dies", fmt.Sprintf("%s stops without a word: its Lease renewals fail, then it stops; it releases nothing. Its buckets %v are free only when its member Lease expires (LeaseDuration %v).", victim.name, lost, shardLeaseDuration))
	killed := time.Now()
	d.kill(victim)
	// From here on only survivors reconcile: the victim's last Reconcile
	// (its simulator's status writes re-enqueue its Foos until the end)
	// ended before kill returned.
	d.log.reset()
	d.n.say("  %s is dead; its Foos %s have no replica now", victim.name, strings.Join(orphans, ", "))

	d.n.chapter(3, "the survivors take over", "Each survivor sees the dead member's Lease expire, takes the buckets the ring now gives it, widens its shard selector (a list of the buckets it gained) and reconciles the Foos it gained.")
	taken := func() bool {
		if !d.settled() {
			return false
		}
		for _, key := range orphans {
			if len(d.log.by(key)) == 0 {
				return false
			}
		}
		return true
	}
	if err := waitFor(ctx, "the survivors take over", taken); err != nil {
		return err
	}
	d.n.say("  after %.1fs every bucket has a live holder again:", time.Since(killed).Seconds())
	d.tell()
	for _, key := range orphans {
		d.n.say("  %s (bucket %d, was %s's) reconciled by %s", key, all[key], victim.name, strings.Join(d.log.by(key), ", "))
	}
	return nil
}
