package demoengine

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/internal/pipelineweb"
	"github.com/informerlab/informerlab/internal/sameorigin"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// overlapDetector watches every replica's Foo Reconciles, from the worker
// taking the key (step 8) to the Reconcile's return, and counts the times
// a replica starts a key another replica is still reconciling.
type overlapDetector struct {
	mu       sync.Mutex
	running  map[string]map[string]bool // key -> replicas in a Reconcile of it
	overlaps int
}

func (o *overlapDetector) observer(replica string) sc.Observer {
	return func(e sc.Event) {
		if e.Controller != sc.FooControllerName {
			return
		}
		key := e.Request.String()
		o.mu.Lock()
		defer o.mu.Unlock()
		switch e.Step {
		case sc.StepGetKey:
			if o.running[key] == nil {
				o.running[key] = map[string]bool{}
			}
			for other := range o.running[key] {
				if other != replica {
					o.overlaps++
				}
			}
			o.running[key][replica] = true
		case sc.StepReconcile:
			delete(o.running[key], replica)
		}
	}
}

func (o *overlapDetector) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.overlaps
}

// shardControls are the page's controls in sharded mode: the replicas view
// in every state snapshot, and "kill a replica".
type shardControls struct {
	d        *shardDemo
	overlaps *overlapDetector
	mu       sync.Mutex // serializes kills
}

func (c *shardControls) Info() pipelineweb.Info {
	return pipelineweb.Info{Mode: fmt.Sprintf("%d sharded replicas on the embedded fakeapi", len(c.d.replicas)), Namespace: ns}
}

func (c *shardControls) Status() pipelineweb.Status {
	rs := &pipelineweb.Replicas{Holders: c.holders(), Overlaps: c.overlaps.count(),
		LeaseDurationMS: float64(shardLeaseDuration) / float64(time.Millisecond)}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.d.replicas {
		lane := pipelineweb.ReplicaLane{Name: r.name, Alive: !r.dead}
		if r.dead {
			lane.DeadForMS = float64(time.Since(r.killed)) / float64(time.Millisecond)
		}
		if !r.dead {
			m := r.ctl.ShardMember()
			lane.Held = m.Held()
			for _, b := range lane.Held {
				lane.InFlight += m.InFlight(b)
			}
			if inf, err := r.ctl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{}); err == nil {
				lane.Cached = len(inf.GetIndexer().ListKeys())
			}
			if inf, err := r.ctl.Manager().GetInformer(sc.DeploymentsGVR, &sc.Deployment{}); err == nil {
				lane.Deployments = len(inf.GetIndexer().ListKeys())
			}
			lane.Queue = r.ctl.FooController().QueueLen()
		}
		burst := r.relists.read()
		lane.Relists, lane.LastRelistAdded, lane.LastRelistDeleted = burst.relists, burst.added, burst.deleted
		if burst.relists > 0 {
			lane.LastRelistAgoMS = float64(time.Since(burst.at)) / float64(time.Millisecond)
		}
		rs.Lanes = append(rs.Lanes, lane)
	}
	return pipelineweb.Status{ServerRV: fmt.Sprint(c.d.srv.CurrentResourceVersion()), Replicas: rs}
}

// holders reads the ring's Leases: the holder of each bucket, "" when its
// Lease is missing or names no one, or when the holder's member Lease (which
// keeps every bucket it holds valid) is missing, released or expired.
func (c *shardControls) holders() []string {
	out := make([]string, c.d.buckets)
	list, err := c.d.srv.Resource(sc.LeasesGVR).Namespace("kube-system").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return out
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return out
	}
	const bucketPrefix, memberPrefix = "foos-bucket-", "foos-member-"
	alive := map[string]bool{}
	bucketHolder := map[int]string{}
	for _, item := range items {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(item)
		if err != nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		holder, _, _ := unstructured.NestedString(u.Object, "spec", "holderIdentity")
		switch name := u.GetName(); {
		case strings.HasPrefix(name, memberPrefix):
			secs, _, _ := unstructured.NestedInt64(u.Object, "spec", "leaseDurationSeconds")
			renew, _, _ := unstructured.NestedString(u.Object, "spec", "renewTime")
			t, err := time.Parse(metav1.RFC3339Micro, renew)
			if err == nil && holder != "" && time.Since(t) <= time.Duration(secs)*time.Second {
				alive[holder] = true
			}
		case strings.HasPrefix(name, bucketPrefix):
			b, err := strconv.Atoi(strings.TrimPrefix(name, bucketPrefix))
			if err == nil && b >= 0 && b < len(out) {
				bucketHolder[b] = holder
			}
		}
	}
	for b, holder := range bucketHolder {
		if alive[holder] {
			out[b] = holder
		}
	}
	return out
}

func (c *shardControls) Do(_ context.Context, a pipelineweb.Action) (string, error) {
	if a.Name != "kill-replica" {
		return "", pipelineweb.ErrUnknownAction
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	name := a.Arg("name")
	for _, r := range c.d.replicas {
		if r.name != name {
			continue
		}
		if r.dead {
			return "", fmt.Errorf("demo: kill-replica: %s is already dead", name)
		}
		if len(c.d.live()) == 1 {
			return "", fmt.Errorf("demo: kill-replica: %s is the last replica", name)
		}
		held := r.ctl.ShardMember().Held()
		c.d.kill(r)
		c.d.n.say("the page killed %s: its buckets %v are free once its member Lease expires (%v)", name, held, shardLeaseDuration)
		return fmt.Sprintf("%s killed: no renewal, no release; its buckets %v go to the survivors once its member Lease expires (%v)", name, held, shardLeaseDuration), nil
	}
	return "", fmt.Errorf("demo: kill-replica: no replica %q", name)
}

// startShardWorld starts replicas sharded sample controllers over an
// embedded server and the page's server in front of them, whose status
// carries the replicas view; stop ends them all.
func startShardWorld(ctx context.Context, n *narrator, replicas int) (*pipelineweb.Server, *shardDemo, func(), error) {
	d, err := newShardDemo(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	overlaps := &overlapDetector{running: map[string]map[string]bool{}}
	d.observe = overlaps.observer
	if err := d.start(replicas); err != nil {
		d.stop()
		d.srv.Close()
		return nil, nil, nil, err
	}
	d.n = n
	model := pipelineweb.NewModel()
	hub := pipelineweb.NewHub(model, pipelineweb.DefaultHistory)
	rec := pipelineweb.NewRecorder(hub, model)
	srv := pipelineweb.NewServer(hub, model, rec, &shardControls{d: d, overlaps: overlaps})
	stop := func() {
		rec.Close()
		d.stop()
		d.srv.Close()
	}
	return srv, d, stop, nil
}

// runWebShards serves the page with the replicas view while replicas
// sharded sample controllers run over the embedded server.
func runWebShards(ctx context.Context, o options, n *narrator, replicas int) error {
	if replicas < 2 {
		return fmt.Errorf("demo: --shards wants at least 2 replicas, got %d", replicas)
	}
	ln, err := net.Listen("tcp", o.webAddr)
	if err != nil {
		return fmt.Errorf("demo: --web-addr: %w", err)
	}
	defer ln.Close()
	srv, d, stop, err := startShardWorld(ctx, n, replicas)
	if err != nil {
		return err
	}
	defer stop()
	host, _, _ := net.SplitHostPort(o.webAddr)
	guard, err := sameorigin.New(ln.Addr(), sameorigin.Options{Hosts: []string{host}, Refuse: refuseJSON(n)})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	n.say("informerlab demo: the replicas page is at http://%s/ — %d sharded sample controllers share %d buckets; kill one and watch the survivors take its buckets. Ctrl-C stops.", ln.Addr(), replicas, d.buckets)
	if err := pipelineweb.Serve(ctx, ln, guard.Handler(srv)); err != nil {
		return err
	}
	n.say("\nInterrupted: the page's server and every replica stopped. Bye.")
	return nil
}
