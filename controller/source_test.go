package controller_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/predicate"
	"github.com/informerlab/informerlab/workqueue"
)

// spyHandler is an EventHandler that renders every event as a line.
type spyHandler struct {
	mu    sync.Mutex // guards lines
	lines []string
}

func (s *spyHandler) add(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, fmt.Sprintf(format, args...))
}

func (s *spyHandler) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := s.lines
	s.lines = nil
	return lines
}

func (s *spyHandler) Create(_ context.Context, e controller.CreateEvent, _ workqueue.RateLimitingInterface[controller.Request]) {
	s.add("create %s/%s initial=%t", e.Object.GetNamespace(), e.Object.GetName(), e.IsInInitialList)
}

func (s *spyHandler) Update(_ context.Context, e controller.UpdateEvent, _ workqueue.RateLimitingInterface[controller.Request]) {
	s.add("update %s/%s %s->%s", e.ObjectNew.GetNamespace(), e.ObjectNew.GetName(), e.ObjectOld.GetResourceVersion(), e.ObjectNew.GetResourceVersion())
}

func (s *spyHandler) Delete(_ context.Context, e controller.DeleteEvent, _ workqueue.RateLimitingInterface[controller.Request]) {
	s.add("delete %s/%s unknown=%t", e.Object.GetNamespace(), e.Object.GetName(), e.DeleteStateUnknown)
}

func (s *spyHandler) Generic(_ context.Context, e controller.GenericEvent, _ workqueue.RateLimitingInterface[controller.Request]) {
	s.add("generic %s/%s", e.Object.GetNamespace(), e.Object.GetName())
}

// startSource starts src on a fresh queue until the end of the test, waits
// for it to sync if it is a SyncingSource, and returns the queue.
func startSource(t *testing.T, src controller.Source) (workqueue.RateLimitingInterface[controller.Request], context.CancelFunc) {
	t.Helper()
	q := newQueue()
	t.Cleanup(q.ShutDown)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	require.NoError(t, src.Start(ctx, q))
	if s, ok := src.(controller.SyncingSource); ok {
		require.NoError(t, s.WaitForSync(ctx))
	}
	return q, cancel
}

// TestKindSourceTurnsNotificationsIntoEvents: an informer's OnAdd, OnUpdate
// and OnDelete reach the handler as CreateEvent (IsInInitialList for the
// objects found at startup), UpdateEvent and DeleteEvent.
// Diagram: steps 6, 7. client-go: controller-runtime internal/source.EventHandler.
func TestKindSourceTurnsNotificationsIntoEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "a"))
		inf := ctrltest.RunInformer(t, srv)
		spy := &spyHandler{}
		startSource(t, controller.Kind(inf, spy))
		initial := spy.take()
		t.Logf("the Kind source, started on a synced informer: %v", initial)
		assert.Equal(t, []string{"create ns/a initial=true"}, initial)

		b := ctrltest.Create(t, srv, ctrltest.NewCM("ns", "b"))
		b.SetLabels(map[string]string{"x": "y"})
		updated, err := srv.Resource(ctrltest.CMGVR).Namespace("ns").Update(context.Background(), b, metav1.UpdateOptions{})
		require.NoError(t, err)
		require.NoError(t, srv.Resource(ctrltest.CMGVR).Namespace("ns").Delete(context.Background(), "a", metav1.DeleteOptions{}))
		synctest.Wait()
		got := spy.take()
		t.Logf("   create b, update b, delete a: %v", got)

		assert.Equal(t, []string{
			"create ns/b initial=false",
			fmt.Sprintf("update ns/b %s->%s", b.GetResourceVersion(), rvOf(updated)),
			"delete ns/a unknown=false",
		}, got)
	})
}

func rvOf(obj any) string { return obj.(controller.Object).GetResourceVersion() }

// TestKindSourceUnwrapsTombstoneForOwnerHandler: an owned object deleted
// while the watch was down is found missing by the relist; the informer
// reports a DeletedFinalStateUnknown tombstone, the source unwraps it into
// a DeleteEvent with DeleteStateUnknown set, and EnqueueRequestForOwner
// still reaches the owner.
// Diagram: steps 1 (relist), 6, 7. client-go: controller-runtime internal/source.EventHandler.OnDelete (tombstone).
func TestKindSourceUnwrapsTombstoneForOwnerHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		ctrltest.Create(t, srv, ctrltest.Owned("ns", "child", ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "parent", true)))
		inf := ctrltest.RunInformer(t, srv)
		spy := &spyHandler{}
		owner := controller.EnqueueRequestForOwner(schema.GroupKind{Group: "samplecontroller.k8s.io", Kind: "Foo"})
		both := controller.EventHandlerFuncs{DeleteFunc: func(ctx context.Context, e controller.DeleteEvent, q workqueue.RateLimitingInterface[controller.Request]) {
			spy.Delete(ctx, e, q)
			owner.Delete(ctx, e, q)
		}}
		q, _ := startSource(t, controller.Kind(inf, both))

		err := srv.SilentResource(ctrltest.CMGVR).Namespace("ns").Delete(context.Background(), "child", metav1.DeleteOptions{})
		require.NoError(t, err)
		srv.Compact()
		time.Sleep(5 * time.Second) // a watch younger than 1s ending is itself treated as a failure
		srv.CloseWatches()
		time.Sleep(time.Minute) // past any reflector backoff
		synctest.Wait()

		events, owners := spy.take(), ctrltest.Drain(q)
		t.Logf("a child deleted while the watch was down reaches the handler after the relist as %v", events)
		t.Logf("   the tombstone was unwrapped, so EnqueueRequestForOwner found its owner: %v", owners)
		assert.Equal(t, []string{"delete ns/child unknown=true"}, events)
		assert.Equal(t, []string{"ns/parent"}, owners)
	})
}

// TestKindSourceRunsPredicatesBeforeHandler: only events every predicate
// passes reach the handler; a status-only write is dropped by
// GenerationChangedPredicate (ConfigMaps have no generation, so every
// update is dropped here) while creates pass.
// Diagram: steps 6, 7. client-go: controller-runtime internal/source.EventHandler (predicates).
func TestKindSourceRunsPredicatesBeforeHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		inf := ctrltest.RunInformer(t, srv)
		spy := &spyHandler{}
		onlyKeep := predicate.NewPredicateFuncs(func(o controller.Object) bool { return o.GetLabels()["keep"] == "yes" })
		startSource(t, controller.Kind(inf, spy, onlyKeep, predicate.GenerationChangedPredicate{}))

		kept := ctrltest.NewCM("ns", "kept")
		kept.SetLabels(map[string]string{"keep": "yes"})
		kept = ctrltest.Create(t, srv, kept)
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "dropped"))
		kept.SetAnnotations(map[string]string{"touched": "yes"})
		_, err := srv.Resource(ctrltest.CMGVR).Namespace("ns").Update(context.Background(), kept, metav1.UpdateOptions{})
		require.NoError(t, err)
		synctest.Wait()

		assert.Equal(t, []string{"create ns/kept initial=false"}, spy.take())
	})
}

// TestKindSourceStopsWhenContextEnds: once the source's context ends its
// handler is removed from the informer, which goes on running.
// Diagram: step 6. client-go: SharedIndexInformer.RemoveEventHandler.
func TestKindSourceStopsWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		inf := ctrltest.RunInformer(t, srv)
		spy := &spyHandler{}
		_, stop := startSource(t, controller.Kind(inf, spy))
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "before"))
		synctest.Wait()

		stop()
		synctest.Wait()
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "after"))
		synctest.Wait()

		assert.Equal(t, []string{"create ns/before initial=false"}, spy.take())
	})
}

// TestSourcesRejectBadInput: nil parts and a second Start are errors.
// Diagram: step 7. client-go: controller-runtime source.Kind / source.Channel validation.
func TestSourcesRejectBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		inf := ctrltest.RunInformer(t, srv)
		q := newQueue()
		defer q.ShutDown()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h := controller.EnqueueRequestForObject{}

		assert.ErrorContains(t, controller.Kind(nil, h).Start(ctx, q), "informer is nil")
		assert.ErrorContains(t, controller.Kind(inf, nil).Start(ctx, q), "handler is nil")
		assert.ErrorContains(t, controller.Kind(inf, h).WaitForSync(ctx), "WaitForSync before Start")
		kind := controller.Kind(inf, h)
		require.NoError(t, kind.Start(ctx, q))
		assert.ErrorContains(t, kind.Start(ctx, q), "started twice")
		assert.ErrorContains(t, controller.Channel(nil, h).Start(ctx, q), "channel is nil")
		assert.ErrorContains(t, controller.Channel(make(chan controller.GenericEvent), nil).Start(ctx, q), "handler is nil")
		ch := controller.Channel(make(chan controller.GenericEvent), h)
		require.NoError(t, ch.Start(ctx, q))
		assert.ErrorContains(t, ch.Start(ctx, q), "started twice")
	})
}

// TestChannelSourceDeliversGenericEvents: events sent on the channel reach
// the handler as generic events, filtered by the source's predicates;
// events without an object are dropped; closing the channel ends the
// source's goroutine (the bubble would report it otherwise).
// Diagram: step 7. client-go: controller-runtime source.Channel.
func TestChannelSourceDeliversGenericEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan controller.GenericEvent)
		spy := &spyHandler{}
		notSkipped := predicate.NewPredicateFuncs(func(o controller.Object) bool { return o.GetName() != "skip" })
		src := controller.Channel(ch, spy, notSkipped)
		q := newQueue()
		defer q.ShutDown()
		require.NoError(t, src.Start(controller.WithLogger(context.Background(), ctrltest.Quiet), q))

		ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", "a")}
		ch <- controller.GenericEvent{}
		ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", "skip")}
		ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", "b")}
		close(ch)
		synctest.Wait()

		assert.Equal(t, []string{"generic ns/a", "generic ns/b"}, spy.take())
	})
}
