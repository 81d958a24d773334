package recorder_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/fakeapi"
)

// newBroadcaster returns a broadcaster writing through api.
func newBroadcaster(t *testing.T, api *ctrltest.CountingAPI, opts recorder.EventBroadcasterOptions) *recorder.EventBroadcaster {
	t.Helper()
	opts.NewClient = api.NewClient
	if opts.Logger == nil {
		opts.Logger = ctrltest.Quiet
	}
	b, err := recorder.NewEventBroadcaster(opts)
	require.NoError(t, err)
	return b
}

// runBroadcaster runs b.Start until stop is called or the test ends.
func runBroadcaster(t *testing.T, b *recorder.EventBroadcaster) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, b.Start(ctx))
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

// events returns the Events in ns on the server, by name.
func events(t *testing.T, srv *fakeapi.Server, ns string) []unstructured.Unstructured {
	t.Helper()
	out, err := srv.Resource(ctrltest.EventsGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	return out.(*unstructured.UnstructuredList).Items
}

func field(t *testing.T, u unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	require.NoError(t, err)
	require.True(t, found, "%s has no %s", u.GetName(), strings.Join(path, "."))
	return v
}

// stamp formats t as Events carry it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// TestEventRecorderWritesV1Events: an Event call becomes a core v1 Event
// in the object's namespace with involvedObject, reason, message, type,
// count 1, first and last timestamps and the source component; an Event
// about a cluster-scoped object goes to "default".
// Diagram: none (beside step 9). client-go: tools/record.EventRecorder.Event and makeEvent.
func TestEventRecorderWritesV1Events(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		api := ctrltest.NewCountingAPI(srv)
		b := newBroadcaster(t, api, recorder.EventBroadcasterOptions{Host: "node-1"})
		runBroadcaster(t, b)
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		ns := ctrltest.Example("v1", "Namespace")
		ns.SetName("team")
		rec := b.NewRecorder("foo-controller")
		began := time.Now()

		rec.Event(cm, recorder.EventTypeWarning, "ErrResourceExists", `Resource "config" already exists and is not managed by Foo`)
		rec.Eventf(ns, recorder.EventTypeNormal, "Synced", "synced %d objects", 3)
		synctest.Wait()

		inA := events(t, srv, "a")
		require.Len(t, inA, 1)
		ev := inA[0]
		t.Logf("a Warning about ConfigMap a/config became Event %s in namespace a: reason %v, type %v, count %v, source %v", ev.GetName(), field(t, ev, "reason"), field(t, ev, "type"), field(t, ev, "count"), field(t, ev, "source"))
		assert.True(t, strings.HasPrefix(ev.GetName(), "config."), ev.GetName())
		assert.Equal(t, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "namespace": "a", "name": "config",
			"uid": string(cm.GetUID()), "resourceVersion": cm.GetResourceVersion(),
		}, field(t, ev, "involvedObject"))
		assert.Equal(t, "ErrResourceExists", field(t, ev, "reason"))
		assert.Equal(t, `Resource "config" already exists and is not managed by Foo`, field(t, ev, "message"))
		assert.Equal(t, "Warning", field(t, ev, "type"))
		assert.Equal(t, int64(1), field(t, ev, "count"))
		assert.Equal(t, stamp(began), field(t, ev, "firstTimestamp"))
		assert.Equal(t, stamp(began), field(t, ev, "lastTimestamp"))
		assert.Equal(t, map[string]any{"component": "foo-controller", "host": "node-1"}, field(t, ev, "source"))
		inDefault := events(t, srv, "default")
		require.Len(t, inDefault, 1, "Events about cluster-scoped objects go to default")
		t.Logf("   an Event about Namespace team (cluster-scoped) went to namespace default: %q", field(t, inDefault[0], "message"))
		assert.Equal(t, map[string]any{"apiVersion": "v1", "kind": "Namespace", "name": "team"}, field(t, inDefault[0], "involvedObject"))
		assert.Equal(t, "synced 3 objects", field(t, inDefault[0], "message"))
		assert.Equal(t, recorder.EventStats{Recorded: 2, Written: 2}, b.Stats())
		assert.NoError(t, b.CheckInvariants())
	})
}

// TestEventRecorderCountsRepeatsOnOneEvent: the same Event recorded again
// (same object, type, reason, message) raises the count and lastTimestamp
// of the one Event object, by a patch; repeats recorded while it waits are
// one patch; another message is another Event.
// Diagram: none. client-go: tools/record EventCorrelator (eventLogger: count and patch).
func TestEventRecorderCountsRepeatsOnOneEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		api := ctrltest.NewCountingAPI(srv)
		b := newBroadcaster(t, api, recorder.EventBroadcasterOptions{})
		runBroadcaster(t, b)
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		rec := b.NewRecorder("foo-controller")
		began := time.Now()

		rec.Event(cm, recorder.EventTypeWarning, "SyncFailed", "boom")
		synctest.Wait()
		for range 4 {
			time.Sleep(time.Second)
			rec.Event(cm, recorder.EventTypeWarning, "SyncFailed", "boom")
			synctest.Wait()
			require.NoError(t, b.CheckInvariants())
		}
		// Keep the writer busy on another Event, so the next three repeats
		// are all recorded while it waits for the server: they must coalesce
		// into one buffered Event, whatever the goroutines' interleaving.
		srv.SetLatency(time.Second)
		rec.Event(cm, recorder.EventTypeWarning, "SyncFailed", "another message")
		synctest.Wait() // the writer now waits for the server on its create
		for range 3 {
			rec.Event(cm, recorder.EventTypeWarning, "SyncFailed", "boom")
		}
		time.Sleep(2 * time.Second) // the create, then the one patch, each a second
		synctest.Wait()

		evs := events(t, srv, "a")
		require.Len(t, evs, 2)
		byMessage := map[string]unstructured.Unstructured{}
		for _, ev := range evs {
			byMessage[field(t, ev, "message").(string)] = ev
		}
		boom := byMessage["boom"]
		assert.Equal(t, int64(8), field(t, boom, "count"))
		assert.Equal(t, stamp(began), field(t, boom, "firstTimestamp"))
		assert.Equal(t, stamp(began.Add(4*time.Second)), field(t, boom, "lastTimestamp"))
		assert.Equal(t, int64(1), field(t, byMessage["another message"], "count"))
		calls := api.Snapshot()
		t.Logf("the same Warning eight times, and another message once: %d Events; boom has count %v", len(evs), field(t, boom, "count"))
		t.Logf("   requests: %d creates, %d patches (three repeats buffered while the writer waited went out as one patch)", calls["create events"], calls["patch events"])
		assert.Equal(t, 2, calls["create events"], "one Event per message")
		assert.Equal(t, 5, calls["patch events"], "four single repeats, then three repeats in one patch")
		assert.Equal(t, recorder.EventStats{Recorded: 9, Written: 9}, b.Stats())
		assert.NoError(t, b.CheckInvariants())
	})
}

// TestEventRecorderNeverBlocksOnAStuckAPIServer: while the API server takes
// an hour per request, recording goes on at once; the buffer holds
// BufferSize distinct Events (the one being written counts), a repeat of a
// buffered Event only raises its count, and the rest are dropped and
// counted. On shutdown the flush gives up after FlushTimeout and counts
// what it could not write.
// Diagram: none. client-go: tools/record broadcaster (watch.DropIfChannelFull, queue of 1000).
func TestEventRecorderNeverBlocksOnAStuckAPIServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		srv.SetLatency(time.Hour)
		b := newBroadcaster(t, ctrltest.NewCountingAPI(srv), recorder.EventBroadcasterOptions{BufferSize: 3, FlushTimeout: 2 * time.Second})
		stop := runBroadcaster(t, b)
		rec := b.NewRecorder("foo-controller")
		rec.Event(cm, recorder.EventTypeNormal, "A", "taken by the writer, which waits for the server")
		synctest.Wait()
		began := time.Now()

		rec.Event(cm, recorder.EventTypeNormal, "B", "buffered")
		rec.Event(cm, recorder.EventTypeNormal, "C", "buffered")
		rec.Event(cm, recorder.EventTypeNormal, "D", "dropped: A, B and C fill the buffer")
		rec.Event(cm, recorder.EventTypeNormal, "B", "buffered")
		for i := range 1000 {
			rec.Event(cm, recorder.EventTypeNormal, "Flood", fmt.Sprint(i))
		}
		recorded := time.Since(began)
		statsWhileStuck := b.Stats()
		require.NoError(t, b.CheckInvariants())
		stop()
		stopped := time.Since(began)
		rec.Event(cm, recorder.EventTypeNormal, "Late", "after the flush")

		assert.Zero(t, recorded, "1004 Event calls took no time")
		t.Logf("the API server answers after an hour; a buffer of 3: 1004 Event calls took %v; stats %+v", recorded, statsWhileStuck)
		t.Logf("   stop: the flush gave up after %v; stats %+v", stopped, b.Stats())
		assert.Equal(t, recorder.EventStats{Recorded: 4, Dropped: 1001, Pending: 4}, statsWhileStuck)
		assert.Equal(t, 2*time.Second, stopped, "the flush gave up after FlushTimeout")
		assert.Equal(t, recorder.EventStats{Recorded: 4, Dropped: 1002, Failed: 4}, b.Stats())
		assert.NoError(t, b.CheckInvariants())
		srv.SetLatency(0)
		assert.Empty(t, events(t, srv, "a"))
	})
}

// TestEventRecorderFlushesOnShutdown: Events still buffered, or being
// written, when Start's context ends are written before Start returns.
// Diagram: none. client-go: tools/record EventBroadcaster.Shutdown (which drops instead).
func TestEventRecorderFlushesOnShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		srv.SetLatency(time.Second)
		b := newBroadcaster(t, ctrltest.NewCountingAPI(srv), recorder.EventBroadcasterOptions{})
		stop := runBroadcaster(t, b)
		rec := b.NewRecorder("foo-controller")
		began := time.Now()

		rec.Event(cm, recorder.EventTypeNormal, "A", "a")
		synctest.Wait()
		rec.Event(cm, recorder.EventTypeNormal, "B", "b")
		rec.Event(cm, recorder.EventTypeNormal, "C", "c")
		rec.Event(cm, recorder.EventTypeNormal, "B", "b")
		time.Sleep(500 * time.Millisecond) // A's create is half way
		stop()

		assert.Equal(t, 3500*time.Millisecond, time.Since(began), "A cancelled at 0.5s, then A, B, C at 1s each")
		t.Logf("each write takes 1s; A is half written, B, C, B recorded; stop returned after %v, having written them all", time.Since(began))
		srv.SetLatency(0)
		counts := map[string]int64{}
		for _, ev := range events(t, srv, "a") {
			counts[field(t, ev, "reason").(string)] = field(t, ev, "count").(int64)
		}
		assert.Equal(t, map[string]int64{"A": 1, "B": 2, "C": 1}, counts)
		assert.Equal(t, recorder.EventStats{Recorded: 4, Written: 4}, b.Stats())
	})
}

// TestEventRecorderRetriesThenGivesUp: a failed write is retried a second
// later, twice; an Event whose three writes fail is given up and counted,
// and the next Event is written as usual.
// Diagram: none. client-go: tools/record recordToSink (12 tries, 10s apart).
func TestEventRecorderRetriesThenGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		api := ctrltest.NewCountingAPI(srv)
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		b := newBroadcaster(t, api, recorder.EventBroadcasterOptions{})
		runBroadcaster(t, b)
		rec := b.NewRecorder("foo-controller")
		began := time.Now()

		require.NoError(t, srv.FailNext("create", 2, 503))
		rec.Event(cm, recorder.EventTypeNormal, "Retried", "written at the third try")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		retried := events(t, srv, "a")
		require.NoError(t, srv.FailNext("create", 3, 500))
		rec.Event(cm, recorder.EventTypeNormal, "Lost", "never written")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		rec.Event(cm, recorder.EventTypeNormal, "After", "written")
		synctest.Wait()

		require.Len(t, retried, 1)
		t.Logf("two failed creates, then the third try writes the Event; three failures and it is given up: %d creates sent; stats %+v", api.Snapshot()["create events"], b.Stats())
		assert.Equal(t, stamp(began), field(t, retried[0], "firstTimestamp"), "timestamps are those of the call, not of the write")
		var reasons []string
		for _, ev := range events(t, srv, "a") {
			reasons = append(reasons, field(t, ev, "reason").(string))
		}
		assert.ElementsMatch(t, []string{"Retried", "After"}, reasons)
		assert.Equal(t, 7, api.Snapshot()["create events"], "3 + 3 tries, then 1")
		assert.Equal(t, recorder.EventStats{Recorded: 3, Written: 2, Failed: 1}, b.Stats())
		assert.NoError(t, b.CheckInvariants())
	})
}

// TestEventRecorderStartsANewEventWhenTheOldOneIsGone: a repeat of an Event
// that was deleted on the server (Events expire after an hour) creates a
// new Event instead of failing on the patch.
// Diagram: none. client-go: tools/record recordToSink (patch NotFound -> create).
func TestEventRecorderStartsANewEventWhenTheOldOneIsGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		b := newBroadcaster(t, ctrltest.NewCountingAPI(srv), recorder.EventBroadcasterOptions{})
		runBroadcaster(t, b)
		rec := b.NewRecorder("foo-controller")
		rec.Event(cm, recorder.EventTypeNormal, "Synced", "ok")
		synctest.Wait()
		first := events(t, srv, "a")
		require.Len(t, first, 1)

		require.NoError(t, srv.Resource(ctrltest.EventsGVR).Namespace("a").Delete(t.Context(), first[0].GetName(), metav1.DeleteOptions{}))
		rec.Event(cm, recorder.EventTypeNormal, "Synced", "ok")
		synctest.Wait()

		again := events(t, srv, "a")
		require.Len(t, again, 1)
		assert.NotEqual(t, first[0].GetName(), again[0].GetName())
		t.Logf("Event %s deleted by someone; the repeat creates %s with count %v", first[0].GetName(), again[0].GetName(), field(t, again[0], "count"))
		assert.Equal(t, int64(1), field(t, again[0], "count"))
		assert.Equal(t, recorder.EventStats{Recorded: 2, Written: 2}, b.Stats())
	})
}

// TestEventRecorderDropsInvalidEvents: an Event with a type other than
// Normal or Warning, about an object without a name, of a kind that cannot
// be told, or about nothing is dropped, counted and logged, never sent.
// Diagram: none. client-go: tools/record recorder.generateEvent (ValidateEventType) and GetReference.
func TestEventRecorderDropsInvalidEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		var logs ctrltest.LogBuffer
		b := newBroadcaster(t, ctrltest.NewCountingAPI(srv), recorder.EventBroadcasterOptions{Logger: logs.Logger()})
		runBroadcaster(t, b)
		rec := b.NewRecorder("foo-controller")
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))

		rec.Event(cm, "Bogus", "Reason", "message")
		rec.Event(ctrltest.NewCM("a", ""), recorder.EventTypeNormal, "Reason", "message")
		rec.Event(&ctrltest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "w"}}, recorder.EventTypeNormal, "Reason", "message")
		rec.Event(nil, recorder.EventTypeNormal, "Reason", "message")
		synctest.Wait()

		assert.Equal(t, recorder.EventStats{Dropped: 4}, b.Stats())
		t.Logf("a bad type, an object without a name, a type the scheme does not know, nil: stats %+v", b.Stats())
		assert.Empty(t, events(t, srv, "a"))
		assert.Contains(t, logs.String(), `type \"Bogus\" is neither Normal nor Warning`)
		assert.Contains(t, logs.String(), "cannot tell the kind of *ctrltest.Widget")
	})
}

// TestManagerFlushesEventsAfterItsControllersStop: recorders from
// GetEventRecorderFor share one broadcaster the Manager runs; it stops
// after the controllers, so an Event a controller records while stopping
// still reaches the API server before Start returns.
// Diagram: none. client-go: controller-runtime Manager.GetEventRecorderFor (its broadcaster stops with the manager).
func TestManagerFlushesEventsAfterItsControllersStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{})
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("a", "config"))
		rec := m.GetEventRecorderFor("foo-controller")
		require.NoError(t, m.Add(manager.RunnableFunc(func(ctx context.Context) error {
			rec.Event(cm, recorder.EventTypeNormal, "Started", "leading")
			<-ctx.Done()
			rec.Event(cm, recorder.EventTypeNormal, "Stopping", "the last word")
			return nil
		})))
		stop := ctrltest.RunManager(t, m)
		synctest.Wait()

		require.NoError(t, stop())

		var reasons []string
		for _, ev := range events(t, srv, "a") {
			reasons = append(reasons, field(t, ev, "reason").(string))
			assert.Equal(t, "foo-controller", field(t, ev, "source", "component"))
		}
		t.Logf("a runnable records an Event when it starts and one as it stops: the Manager flushed both: %v", reasons)
		assert.ElementsMatch(t, []string{"Started", "Stopping"}, reasons)
	})
}
