package pipelinetrace_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/internal/pipelinetrace"
	"github.com/informerlab/informerlab/reflector"
)

// collector is a sink that keeps the events.
type collector struct {
	mu     sync.Mutex
	events []pipelinetrace.Event
}

func (c *collector) sink(e pipelinetrace.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
}

func (c *collector) of(key string) []pipelinetrace.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []pipelinetrace.Event
	for _, e := range c.events {
		if e.Key == key {
			out = append(out, e)
		}
	}
	return out
}

func configMap(name string) *unstructured.Unstructured {
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetName(name)
	return cm
}

// TestParseTypesARealInformersTrace runs a real informer on fakeapi through
// a Stream's ListerWatcher, with its Handler as the informer's logger: a
// listed object and a created one come out as typed events, steps 1 to 6
// in order, each naming its kind; the
// LIST, the WATCHes and the watch the server ended are events of their
// own, and the Reflector's state changes ReflectorState events; both sinks
// see every event, in order.
// Diagram: steps 1-6. client-go: none (client-go's informers have no such trace).
func TestParseTypesARealInformersTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{})
		defer srv.Close()
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		cms := srv.Resource(gvr).Namespace("demo")
		_, err := cms.Create(t.Context(), configMap("listed"), metav1.CreateOptions{})
		require.NoError(t, err)
		var first, second collector
		stream := pipelinetrace.NewStream(first.sink, second.sink)
		inf := informer.NewSharedIndexInformer(stream.ListerWatcher(cms, "ConfigMap"), &unstructured.Unstructured{}, 0, nil,
			informer.WithLogger(slog.New(stream.Handler())),
			informer.WithReflectorOptions(reflector.Options{Name: "configmaps"}))
		_, err = inf.AddEventHandler(informer.ResourceEventHandlerFuncs{})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); inf.Run(ctx) }()
		synctest.Wait()

		_, err = cms.Create(t.Context(), configMap("created"), metav1.CreateOptions{})
		require.NoError(t, err)
		synctest.Wait()
		srv.CloseWatches()
		synctest.Wait()
		cancel()
		<-done
		synctest.Wait() // the watches' goroutines end too

		whats := func(es []pipelinetrace.Event) []pipelinetrace.What {
			var out []pipelinetrace.What
			for _, e := range es {
				out = append(out, e.What)
			}
			return out
		}
		listed, created := first.of("demo/listed"), first.of("demo/created")
		assert.Equal(t, []pipelinetrace.What{pipelinetrace.Popped, pipelinetrace.Stored, pipelinetrace.Dispatched}, whats(listed),
			"a listed object is queued by Replace (one Listed event for the list), then popped, stored, dispatched")
		require.Len(t, listed, 3)
		assert.Equal(t, []string{"Replaced"}, listed[0].Deltas)
		for _, e := range append(listed, created...) {
			assert.Equal(t, "ConfigMap", e.Kind, "the Stream names the kind of every event of a key: %+v", e)
		}
		assert.True(t, listed[0].InitialList)
		assert.Equal(t, []pipelinetrace.What{pipelinetrace.WatchEvent, pipelinetrace.Queued, pipelinetrace.Popped, pipelinetrace.Stored, pipelinetrace.Dispatched}, whats(created),
			"step 1, the watch event, comes before the Reflector queues it")
		require.Len(t, created, 5)
		assert.Equal(t, watch.Added, created[0].EventType)
		assert.Equal(t, "ConfigMap", created[0].Kind)
		assert.NotEmpty(t, created[0].RV)
		assert.Equal(t, "add", created[1].Op)
		assert.Equal(t, []string{"Added"}, created[2].Deltas)
		assert.Equal(t, "add", created[3].Op)
		assert.Equal(t, "add", created[4].Notification)
		assert.Equal(t, 1, created[4].Handlers)

		var lists, states, listDone, opened, ended int
		for _, e := range first.events {
			switch e.What {
			case pipelinetrace.ListDone:
				listDone++
				assert.Len(t, e.Items, 1)
			case pipelinetrace.WatchOpened:
				opened++
			case pipelinetrace.WatchEnded:
				ended++
				assert.Equal(t, created[0].RV, e.RV, "the last resourceVersion the watch delivered")
			case pipelinetrace.Listed:
				lists++
				assert.Equal(t, 1, e.Objects)
				assert.NotEmpty(t, e.RV)
				assert.Equal(t, "ConfigMap", e.Kind)
				assert.Equal(t, []string{"demo/listed"}, e.Keys, "a Listed event names the keys of its LIST")
			case pipelinetrace.ReflectorState:
				states++
				assert.NotEmpty(t, e.To)
				assert.Contains(t, e.Type, "Unstructured")
			}
		}
		assert.Equal(t, 1, lists)
		assert.Equal(t, 1, listDone)
		assert.Equal(t, 2, opened, "the first watch, and the re-watch after the server closed it")
		assert.Equal(t, 1, ended, "the watch the server closed; not the one the informer stopped")
		assert.Positive(t, states)
		assert.Equal(t, first.events, second.events, "every sink sees every event, in order")
	})
}

// TestParseKeepsOtherRecordsAsLogLines: a record that is no step of the
// trace is a Log event with its level, message, own attributes and the
// logger's controller.
// Diagram: none. client-go: none.
func TestParseKeepsOtherRecordsAsLogLines(t *testing.T) {
	var c collector
	logger := slog.New(pipelinetrace.NewStream(c.sink).Handler()).With("controller", "foo")

	logger.Error("reconcile failed; requeued with backoff", "err", errors.New("boom"))
	logger.Debug("reflector: backing off before relisting", "delay", 1500*time.Millisecond)

	require.Len(t, c.events, 2)
	e := c.events[0]
	assert.Equal(t, pipelinetrace.Log, e.What)
	assert.Equal(t, slog.LevelError, e.Level)
	assert.Equal(t, "reconcile failed; requeued with backoff", e.Message)
	assert.Equal(t, "foo", e.Controller)
	require.Len(t, e.Own, 1, "the logger's attributes are not the record's own")
	assert.Equal(t, "err", e.Own[0].Key)
	assert.Equal(t, pipelinetrace.ReflectorBackoff, c.events[1].What)
	assert.Equal(t, 1500*time.Millisecond, c.events[1].Delay)
}
