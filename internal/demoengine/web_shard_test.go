package demoengine

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestOverlapDetectorCountsTwoReplicasInOneKeysReconcile: a replica that
// takes a key off its queue while another is still reconciling it is an
// overlap; one after the other, or on different keys, is not.
// Diagram: steps 8-9 across replicas. client-go: none.
func TestOverlapDetectorCountsTwoReplicasInOneKeysReconcile(t *testing.T) {
	o := &overlapDetector{running: map[string]map[string]bool{}}
	a, b := o.observer("replica-0"), o.observer("replica-1")
	req := func(name string) controller.Request {
		return controller.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	step := func(obs sc.Observer, s sc.Step, name string) {
		obs(sc.Event{Step: s, Controller: sc.FooControllerName, Request: req(name)})
	}

	step(a, sc.StepGetKey, "x")
	step(a, sc.StepReconcile, "x")
	step(b, sc.StepGetKey, "x")
	step(a, sc.StepGetKey, "y")
	step(b, sc.StepReconcile, "x")
	step(a, sc.StepReconcile, "y")
	assert.Equal(t, 0, o.count(), "one after the other, or different keys")

	step(a, sc.StepGetKey, "x")
	step(b, sc.StepGetKey, "x")
	assert.Equal(t, 1, o.count(), "two replicas in a Reconcile of x at once")
	// The simulator's Reconciles are not the Foo controller's.
	a(sc.Event{Step: sc.StepGetKey, Controller: sc.SimulatorControllerName, Request: req("x")})
	assert.Equal(t, 1, o.count())
}

// TestKillReplicaControlKillsOnceAndNeverTheLast: the page's kill-replica
// control kills a live replica, whose lane then shows it dead and holding
// nothing; it refuses an unknown replica, a dead one, the last one and an
// unknown action.
// Diagram: none (the page's control). client-go: none.
func TestKillReplicaControlKillsOnceAndNeverTheLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		d, err := newShardDemo(ctx)
		require.NoError(t, err)
		defer d.srv.Close()
		d.n = &narrator{out: &discard{}}
		overlaps := &overlapDetector{running: map[string]map[string]bool{}}
		d.observe = overlaps.observer
		require.NoError(t, d.start(2))
		defer d.stop()
		c := &shardControls{d: d, overlaps: overlaps}
		require.NoError(t, waitFor(ctx, "the ring settles", d.settled))
		time.Sleep(shardRetryPeriod)

		st := c.Status().Replicas
		require.NotNil(t, st)
		assert.Len(t, st.Holders, 16)
		for b, h := range st.Holders {
			assert.Contains(t, []string{"replica-0", "replica-1"}, h, "bucket %d", b)
		}

		_, err = c.Do(ctx, pipelineweb.Action{Name: "kill-replica", Args: map[string]string{"name": "replica-9"}})
		assert.ErrorContains(t, err, `no replica "replica-9"`)
		msg, err := c.Do(ctx, pipelineweb.Action{Name: "kill-replica", Args: map[string]string{"name": "replica-0"}})
		require.NoError(t, err)
		assert.Contains(t, msg, "replica-0 killed")
		lane := c.Status().Replicas.Lanes[0]
		assert.False(t, lane.Alive)
		assert.Empty(t, lane.Held)
		time.Sleep(time.Second)
		assert.Equal(t, 1000.0, c.Status().Replicas.Lanes[0].DeadForMS, "the countdown: dead for a second")
		assert.Equal(t, 4000.0, c.Status().Replicas.LeaseDurationMS)
		_, err = c.Do(ctx, pipelineweb.Action{Name: "kill-replica", Args: map[string]string{"name": "replica-0"}})
		assert.ErrorContains(t, err, "already dead")
		_, err = c.Do(ctx, pipelineweb.Action{Name: "kill-replica", Args: map[string]string{"name": "replica-1"}})
		assert.ErrorContains(t, err, "last replica")
		_, err = c.Do(ctx, pipelineweb.Action{Name: "compact"})
		assert.ErrorIs(t, err, pipelineweb.ErrUnknownAction)

		// Once replica-0's Leases expire, every bucket is replica-1's.
		require.NoError(t, waitFor(ctx, "the survivor takes over", d.settled))
		time.Sleep(shardRetryPeriod)
		for b, h := range c.Status().Replicas.Holders {
			assert.Equal(t, "replica-1", h, "bucket %d", b)
		}
		assert.Equal(t, 0, c.Status().Replicas.Overlaps)
	})
}

// discard is an io.Writer that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestReplicaLanesShowQueueDeploymentsAndTheRelistBurstOfATakeover: each
// lane shows its Foo and Deployment caches and its Foo queue. With the
// survivor's Foo worker held in its first Reconcile of a Foo it takes over,
// the others pile up in its queue, and its lane shows the relists that
// brought them: one or more (the member may gain the buckets over more than
// one change of selector), which added the dead replica's Foos and nothing
// else.
// Diagram: steps 1, 2, 7. client-go: none (the ring of replicas).
func TestReplicaLanesShowQueueDeploymentsAndTheRelistBurstOfATakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		d, err := newShardDemo(ctx)
		require.NoError(t, err)
		defer d.srv.Close()
		d.n = &narrator{out: &discard{}}
		overlaps := &overlapDetector{running: map[string]map[string]bool{}}
		var orphans sync.Map // keys of the Foos replica-0 holds when it is killed
		release := make(chan struct{})
		d.observe = func(replica string) sc.Observer {
			count := overlaps.observer(replica)
			return func(e sc.Event) {
				count(e)
				if _, orphan := orphans.Load(e.Request.String()); orphan && replica == "replica-1" && e.Controller == sc.FooControllerName && e.Step == sc.StepGetKey {
					<-release
				}
			}
		}
		require.NoError(t, d.start(2))
		defer d.stop()
		c := &shardControls{d: d, overlaps: overlaps}
		require.NoError(t, waitFor(ctx, "the ring settles", d.settled))
		require.NoError(t, waitFor(ctx, "every Foo has its Deployment", func() bool {
			list, err := d.srv.Resource(sc.DeploymentsGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
			return err == nil && len(list.(*sc.DeploymentList).Items) == shardFoos
		}))
		time.Sleep(shardRetryPeriod)

		before := c.Status().Replicas.Lanes
		require.Len(t, before, 2)
		assert.Equal(t, shardFoos, before[0].Cached+before[1].Cached, "the Foos split between the caches")
		for _, l := range before {
			assert.GreaterOrEqual(t, l.Deployments, l.Cached, "%s caches at least its Foos' Deployments", l.Name)
			assert.LessOrEqual(t, l.Deployments, shardFoos, l.Name)
			assert.Equal(t, 0, l.Queue, "%s: settled, nothing waits", l.Name)
			assert.GreaterOrEqual(t, l.Relists, 1, "%s relisted when it gained its first buckets", l.Name)
		}
		all, err := d.fooBuckets(ctx)
		require.NoError(t, err)
		lost := d.replicas[0].ctl.ShardMember().Held()
		lostFoos := 0
		for key, b := range all {
			if slices.Contains(lost, b) {
				orphans.Store(key, true)
				lostFoos++
			}
		}
		require.Positive(t, lostFoos, "replica-0 holds Foos")
		addedBefore := d.replicas[1].relists.read().addedAll

		_, err = c.Do(ctx, pipelineweb.Action{Name: "kill-replica", Args: map[string]string{"name": "replica-0"}})
		require.NoError(t, err)
		require.NoError(t, waitFor(ctx, "the survivor takes over", d.settled))
		require.NoError(t, waitFor(ctx, "the survivor caches every Foo", func() bool { return c.Status().Replicas.Lanes[1].Cached == shardFoos }))
		synctest.Wait()

		after := c.Status().Replicas.Lanes[1]
		t.Logf("survivor before the kill: %+v", before[1])
		t.Logf("survivor after the takeover: %+v", after)
		assert.Greater(t, after.Relists, before[1].Relists, "the takeover relisted")
		assert.Equal(t, lostFoos, d.replicas[1].relists.read().addedAll-addedBefore, "the relists since the kill added replica-0's Foos, and only them")
		// The last relist may have brought none of them: a takeover over
		// two ticks can end with a relist for buckets without Foos.
		assert.LessOrEqual(t, after.LastRelistAdded, lostFoos)
		assert.Zero(t, after.LastRelistDeleted, "a survivor only gains")
		assert.Positive(t, after.LastRelistAgoMS)
		assert.Less(t, after.LastRelistAgoMS, float64(shardLeaseDuration/time.Millisecond), "the last relist came after the kill")
		// One gained Foo is in the held worker's Reconcile, the others
		// wait; the survivor's own Foos may wait too: the Deployment
		// informer's relist delivers their Deployments again as updates,
		// which enqueue the owners.
		assert.GreaterOrEqual(t, after.Queue, lostFoos-1, "the gained Foos wait behind the held worker")
		assert.LessOrEqual(t, after.Queue, shardFoos-1, "no Foo waits twice")

		close(release)
		require.NoError(t, waitFor(ctx, "the queue drains", func() bool { return c.Status().Replicas.Lanes[1].Queue == 0 }))
		assert.Equal(t, 0, c.Status().Replicas.Overlaps)
	})
}

// TestRelistMeterCountsListsThatChangeTheShardSelector: the first list is
// the initial one; a list with the same selector (a page, the member's
// reference list, a relist after an error) is no new relist; each change
// of selector is one, and the cache's adds and deletes are counted from
// the last one on.
// Diagram: steps 1, 2. client-go: none (a view of Reflector relists).
func TestRelistMeterCountsListsThatChangeTheShardSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &relistMeter{}

		m.saw("none")
		m.add()
		m.saw("none")
		assert.Equal(t, relistBurst{added: 1, addedAll: 1}, m.read(), "the initial list: no relist")

		time.Sleep(time.Second)
		m.saw("buckets 0-3")
		m.saw("buckets 0-3")
		m.add()
		m.add()
		at := time.Now()
		time.Sleep(time.Second)
		assert.Equal(t, relistBurst{relists: 1, at: at, added: 2, addedAll: 3}, m.read())

		m.saw("buckets 0-1")
		m.del()
		m.del()
		assert.Equal(t, relistBurst{relists: 2, at: time.Now(), deleted: 2, addedAll: 3}, m.read(), "a narrowing relist: Foos lost")
	})
}

// TestShardTabServesTheReplicasViewAndItsKillControl: the replicas page's
// world with no HTTP server, as the playground runs it for ?shards=3:
// its state carries three lanes that come to hold the sixteen buckets
// between them, and its "kill a replica" control kills one, whose buckets
// the two survivors hold a LeaseDuration later. Out of range, the number
// of replicas is refused.
// Diagram: steps 1-9 per replica. client-go: none.
func TestShardTabServesTheReplicasViewAndItsKillControl(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tab, err := StartShardTab(context.Background(), &discard{}, 3)
		require.NoError(t, err)
		defer func() { require.NoError(t, tab.Stop()) }()
		replicas := func() *pipelineweb.Replicas {
			rec := httptest.NewRecorder()
			tab.Server().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/state", nil))
			var s struct {
				Status pipelineweb.Status `json:"status"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &s))
			return s.Status.Replicas
		}
		holdersAre := func(want ...string) func() bool {
			return func() bool {
				held := slices.Clone(replicas().Holders)
				slices.Sort(held)
				return slices.Equal(slices.Compact(held), want)
			}
		}

		require.NoError(t, waitFor(context.Background(), "three holders", holdersAre("replica-0", "replica-1", "replica-2")))
		code, answer := tab.Server().Act(context.Background(), strings.NewReader(`{"name":"kill-replica","args":{"name":"replica-0"}}`))
		killed := time.Now()
		require.NoError(t, waitFor(context.Background(), "two holders", holdersAre("replica-1", "replica-2")))

		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, answer["message"], "replica-0 killed")
		lanes := replicas().Lanes
		require.Len(t, lanes, 3)
		assert.False(t, lanes[0].Alive)
		assert.GreaterOrEqual(t, time.Since(killed), shardLeaseDuration-shardRenewDeadline, "the survivors waited for the Leases")
		t.Logf("the tab's replicas view: %s", answer["message"])
		t.Logf("the survivors hold every bucket %v after the kill", time.Since(killed))
		_, err = StartShardTab(context.Background(), &discard{}, 1)
		assert.ErrorContains(t, err, "shards wants 2 to 8 replicas, got 1")
	})
}
