package pipelineweb_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// pipeline is the sample controller on fakeapi, recorded for the page.
type pipeline struct {
	srv   *fakeapi.Server
	hub   *pipelineweb.Hub
	model *pipelineweb.Model
	rec   *pipelineweb.Recorder
	foos  *fakeapi.ResourceClient
}

// startPipeline runs the sample controller (with the Deployment simulator)
// on a fresh fakeapi, wired to a Recorder as cmd/demo wires it, until the
// test ends. Call it inside a synctest bubble.
func startPipeline(t *testing.T) *pipeline {
	t.Helper()
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	t.Cleanup(srv.Close)
	require.NoError(t, sc.Register(srv))
	model := pipelineweb.NewModel()
	hub := pipelineweb.NewHub(model, 100000)
	rec := pipelineweb.NewRecorder(hub, model)
	t.Cleanup(rec.Close)
	kinds := map[schema.GroupVersionResource]string{sc.FoosGVR: "Foo", sc.DeploymentsGVR: "Deployment"}
	ctl, err := sc.New(func(gvr schema.GroupVersionResource, ns string) sc.Resource {
		r := sc.Resource(srv.Resource(gvr).Namespace(ns))
		if kind, ok := kinds[gvr]; ok {
			r = rec.Resource(kind, r)
		}
		return r
	}, sc.Options{DeploymentSimulator: true, Logger: slog.New(rec.Handler()), Observer: rec.Observe})
	require.NoError(t, err)
	fooInf, err := ctl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{})
	require.NoError(t, err)
	depInf, err := ctl.Manager().GetInformer(sc.DeploymentsGVR, &sc.Deployment{})
	require.NoError(t, err)
	model.SetInformer("Foo", fooInf)
	model.SetInformer("Deployment", depInf)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	synctest.Wait()
	return &pipeline{srv: srv, hub: hub, model: model, rec: rec, foos: srv.Resource(sc.FoosGVR).Namespace("default")}
}

// events returns the published events that keep says to.
func (p *pipeline) events(keep func(pipelineweb.Event) bool) []pipelineweb.Event {
	history, sub := p.hub.Subscribe(1)
	sub.Close()
	var out []pipelineweb.Event
	for _, e := range history {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func (p *pipeline) createFoo(t *testing.T, name string) {
	t.Helper()
	three := int32(3)
	_, err := p.foos.Create(context.Background(), &sc.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       sc.FooSpec{DeploymentName: name + "-nginx", Replicas: &three},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// settle lets the pipeline run until every goroutine is blocked again, and
// the timers of any backoff have fired.
func settle() {
	synctest.Wait()
	time.Sleep(5 * time.Second)
	synctest.Wait()
}

// TestRecordedFooCrossesStepsOneToNineInOrder creates a Foo and reads what
// the Recorder published for its key: a token for every arrow from 1 to 9,
// each first reached after the one before, with the text demo's tags; and
// the Model ends with an empty DeltaFIFO, the Foo cached and an idle worker.
// Diagram: steps 1-9. client-go: sample-controller's Foo controller.
func TestRecordedFooCrossesStepsOneToNineInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPipeline(t)

		p.createFoo(t, "web")
		settle()

		events := p.events(func(e pipelineweb.Event) bool { return e.Kind == "Foo" && e.Key == "default/web" })
		var arrows []string
		tags := map[string]bool{}
		for _, e := range events {
			if e.Arrow != "" && !slices.Contains(arrows, e.Arrow) {
				arrows = append(arrows, e.Arrow)
			}
			tags[e.Tag] = true
		}
		assert.Equal(t, []string{"1", "2", "3", "4-5", "6", "7", "8", "9", "write"}, arrows, "first appearance of each arrow")
		for _, tag := range []string{pipelineweb.TagList, pipelineweb.TagFIFO, pipelineweb.TagPop, pipelineweb.TagIndexer,
			pipelineweb.TagHandler, pipelineweb.TagEnqueue, pipelineweb.TagGetKey, pipelineweb.TagListerGet, pipelineweb.TagReconcile, pipelineweb.TagWrite} {
			assert.True(t, tags[tag], "tag %q", tag)
		}
		st := p.model.Snapshot()
		assert.Empty(t, st.FIFO)
		assert.Contains(t, st.Cache, pipelineweb.CachedObject{Kind: "Foo", Key: "default/web", RV: cachedRV(st, "Foo", "default/web"), Generation: 1})
		require.NotEmpty(t, st.Queues)
		for _, q := range st.Queues {
			assert.Empty(t, q.Busy, "%s's worker is idle", q.Controller)
			assert.Empty(t, q.Waiting)
		}
	})
}

func cachedRV(st pipelineweb.State, kind, key string) string {
	for _, c := range st.Cache {
		if c.Kind == kind && c.Key == key {
			return c.RV
		}
	}
	return ""
}

// TestRecordedRelistQueuesATombstoneForASilentlyDeletedObject deletes a
// Deployment without a watch event, compacts and drops the watches: each
// Reflector backs off and relists; the Replace queues Replaced deltas for
// what is listed and a tombstone for the Deployment, which the pop, the
// handler and the Model confirm.
// Diagram: steps 1-3, 6. client-go: Reflector relist after 410, DeltaFIFO.Replace.
func TestRecordedRelistQueuesATombstoneForASilentlyDeletedObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPipeline(t)
		p.createFoo(t, "web")
		settle()

		require.NoError(t, p.srv.SilentResource(sc.DeploymentsGVR).Namespace("default").Delete(context.Background(), "web-nginx", metav1.DeleteOptions{}))
		time.Sleep(2 * time.Second) // a watch younger than a second that ends looks broken
		p.srv.Compact()
		p.srv.CloseWatches()
		settle()

		dep := func(e pipelineweb.Event) bool { return e.Kind == "Deployment" && e.Key == "default/web-nginx" }
		queued := p.events(func(e pipelineweb.Event) bool { return dep(e) && e.Op == pipelineweb.OpQueued && e.Tombstone })
		popped := p.events(func(e pipelineweb.Event) bool { return dep(e) && e.Op == pipelineweb.OpPop && e.Tombstone })
		handled := p.events(func(e pipelineweb.Event) bool {
			return dep(e) && e.Op == pipelineweb.OpHandler && e.Verb == "delete (state unknown)"
		})
		replaced := p.events(func(e pipelineweb.Event) bool {
			return e.Kind == "Foo" && e.Key == "default/web" && e.Op == pipelineweb.OpPop && slices.Equal(e.Deltas, []string{"Replaced"})
		})
		relisting := p.events(func(e pipelineweb.Event) bool {
			return e.Op == pipelineweb.OpReflector && e.State == "backing off to relist"
		})
		require.Len(t, queued, 1)
		assert.Equal(t, []string{"Deleted"}, queued[0].Deltas)
		require.Len(t, popped, 1)
		assert.Equal(t, []string{"Deleted"}, popped[0].Deltas)
		assert.NotEmpty(t, handled, "the handlers got the tombstone")
		assert.Len(t, replaced, 1, "the relist popped the Foo as Replaced")
		assert.Len(t, relisting, 2, "both Reflectors backed off to relist")
		for _, r := range p.model.Snapshot().Reflectors {
			assert.Equal(t, 1, r.Relists, r.Kind)
			assert.Equal(t, "watching", r.State, r.Kind)
		}
	})
}

// TestPausedValveHoldsWatchEventsUntilStepOrResume pauses the valve and
// creates a Foo: nothing reaches the Reflector; Step lets exactly one
// watch event through; Resume lets the rest through, in order.
// Diagram: step 1. client-go: none (the page's pause).
func TestPausedValveHoldsWatchEventsUntilStepOrResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPipeline(t)
		watchEvents := func() []pipelineweb.Event {
			return p.events(func(e pipelineweb.Event) bool { return e.Op == pipelineweb.OpWatchEvent })
		}

		p.rec.Valve().Pause()
		p.createFoo(t, "web")
		settle()
		held := watchEvents()
		heldState := p.rec.Valve().State()
		p.rec.Valve().Step()
		synctest.Wait()
		stepped := watchEvents()
		p.rec.Valve().Resume()
		settle()
		all := watchEvents()

		assert.Empty(t, held)
		assert.True(t, heldState.Paused)
		assert.Equal(t, 1, heldState.Held, "the Foo watch's ADDED event waits")
		require.Len(t, stepped, 1)
		assert.Equal(t, "ADDED", stepped[0].Verb)
		assert.Equal(t, "default/web", stepped[0].Key)
		assert.Greater(t, len(all), 3, "resumed: the controller's writes come back as watch events")
		assert.Zero(t, p.rec.Valve().State().Held)
	})
}

// TestSlowHandlerBuildsABacklogThatDrains holds every handler call for a
// second and creates a Foo: notifications pile up in the handlers'
// buffers while the informers run on; with time the backlog drains.
// Diagram: step 6. client-go: processorListener's unbounded buffer.
func TestSlowHandlerBuildsABacklogThatDrains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPipeline(t)
		backlog := func() int {
			n := 0
			for _, h := range p.model.Snapshot().Handlers {
				n += h.Backlog
			}
			return n
		}

		p.rec.SetSlowHandler(time.Second)
		p.createFoo(t, "web")
		p.createFoo(t, "api")
		synctest.Wait()
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		during := backlog()
		time.Sleep(time.Minute)
		synctest.Wait()

		assert.Positive(t, during)
		assert.Zero(t, backlog())
	})
}
