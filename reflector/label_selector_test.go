package reflector_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// labelledPod is a pod with one label, tier=tier.
func labelledPod(name, rv, tier string) *metav1.PartialObjectMetadata {
	p := pod(name, rv)
	p.Labels = map[string]string{"tier": tier}
	return p
}

// TestLabelSelectorGoesOnEveryRequestAndIsCheckedOnTheClient: the label
// selector is sent with the list and the watch; objects the server sent
// although they do not match never reach the Store, an object relabelled
// out of the selector is deleted, and the log says once that the client
// filtered.
// Diagram: steps 1-2. client-go: ListOptions.LabelSelector through a ListWatch.
func TestLabelSelectorGoesOnEveryRequestAndIsCheckedOnTheClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{LabelSelector: "tier=web"})

		l := h.lw.expectList(t, "0", 500)
		assert.Equal(t, "tier=web", l.opts.LabelSelector, "the list carries the selector")
		l.respondList(podList("7", labelledPod("a", "5", "web"), labelledPod("b", "6", "db")))
		wc := h.lw.expectWatch(t, "7")
		assert.Equal(t, "tier=web", wc.opts.LabelSelector, "the watch carries the selector")
		w := wc.respondWatch()
		w.Add(labelledPod("c", "8", "db"))
		w.Add(labelledPod("d", "9", "web"))
		w.Modify(labelledPod("a", "10", "db"))
		w.Modify(labelledPod("d", "11", "web"))
		w.Add(labelledPod("e", "12", "db"))
		h.settle(t)

		assert.Equal(t, []string{
			"replace@7 [ns/a@5]",
			"add ns/d@9",
			"delete ns/a@10",
			"update ns/d@11",
		}, h.store.take(), "b and c never reach the Store; a, relabelled, is deleted")
		assert.Equal(t, 1, strings.Count(h.logs.String(), "filtering on the client"), h.logs.String())
		assert.Equal(t, "12", h.r.LastSyncResourceVersion(), "dropped events still advance the resourceVersion")
	})
}

// TestSetLabelSelectorEndsTheWatchAndRelistsAtOnce: a new label selector
// stops the open watch, and the Reflector relists at once, with no backoff,
// carrying the new selector; the Store's Replace gets only what matches it.
// Setting the same selector again makes no request.
// Diagram: steps 1-2. client-go: none (a new selector means a new informer there).
func TestSetLabelSelectorEndsTheWatchAndRelistsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{LabelSelector: "tier=web"})
		w := h.sync(t, "7", labelledPod("a", "5", "web"))
		h.settle(t)
		h.store.take()

		require.NoError(t, h.r.SetLabelSelector("tier in (db)"))
		before := time.Now()
		l := h.lw.expectList(t, "7", 0)

		assert.Zero(t, time.Since(before), "no backoff before the relist")
		assert.True(t, w.IsStopped(), "the old watch was stopped")
		assert.Equal(t, "tier in (db)", l.opts.LabelSelector)
		assert.Equal(t, "tier in (db)", h.r.LabelSelector())
		l.respondList(podList("12", labelledPod("b", "11", "db"), labelledPod("a", "5", "web")))
		wc := h.lw.expectWatch(t, "12")
		assert.Equal(t, "tier in (db)", wc.opts.LabelSelector)
		wc.respondWatch()
		h.settle(t)
		assert.Equal(t, []string{"replace@12 [ns/b@11]"}, h.store.take())

		require.NoError(t, h.r.SetLabelSelector("tier in (db)"))
		h.lw.expectNoCall(t, time.Minute)
	})
}

// TestLabelAndShardSelectorsCombine: both selectors go on the request, and
// a change of either ends the watch.
// Diagram: step 1.
func TestLabelAndShardSelectorsCombine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{LabelSelector: "tier=web", ShardSelector: lowHalf})
		l := h.lw.expectList(t, "0", 500)
		assert.Equal(t, "tier=web", l.opts.LabelSelector)
		assert.Equal(t, lowHalf, l.opts.ShardSelector)
		l.respondList(podList("7"))
		h.lw.expectWatch(t, "7").respondWatch()
		h.settle(t)

		require.NoError(t, h.r.SetShardSelector(""))
		l = h.lw.expectList(t, "7", 0)

		assert.Equal(t, "tier=web", l.opts.LabelSelector, "a new shard keeps the label selector")
		assert.Equal(t, highHalf, l.opts.ShardSelector, "a shard widened to everything lists what it gained, the high half")
		l.respondList(podList("7"))
		h.lw.expectWatch(t, "7").respondWatch()
		h.settle(t)
	})
}

// TestSetLabelSelectorRefusesASelectorThatDoesNotParse: a bad selector is
// an error at once, and the Reflector keeps the one it had.
// Diagram: step 1. kube-apiserver: the label selector grammar.
func TestSetLabelSelectorRefusesASelectorThatDoesNotParse(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	r := reflector.New(srv.Resource(configMapsGVR), nil, &recordingStore{}, reflector.Options{LabelSelector: "tier=web", Logger: discard()})

	err := r.SetLabelSelector("tier in (web")

	require.Error(t, err)
	assert.Contains(t, err.Error(), `reflector: invalid label selector "tier in (web"`)
	assert.Equal(t, "tier=web", r.LabelSelector())
}

// TestBadLabelSelectorInOptionsFailsEveryList: a Reflector built with a
// label selector that does not parse never lists; ListAndWatch says why.
// Diagram: step 1.
func TestBadLabelSelectorInOptionsFailsEveryList(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	store := &recordingStore{}
	r := reflector.New(srv.Resource(configMapsGVR), nil, store, reflector.Options{LabelSelector: "a==b==c", Logger: discard()})

	err := r.ListAndWatch(context.Background())

	require.Error(t, err)
	assert.Contains(t, err.Error(), "reflector: invalid label selector")
	assert.Empty(t, store.take(), "nothing reached the Store")
}

// TestLabelSelectorGoesOnTheStreamingList: with UseWatchList the streaming
// list carries the selector too, and its initial events are checked like a
// list's items.
// Diagram: steps 1-2. client-go: the watch-list with ListOptions.LabelSelector.
func TestLabelSelectorGoesOnTheStreamingList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{UseWatchList: true, LabelSelector: "tier=web"})

		c := expectWatchList(t, h, "")
		assert.Equal(t, "tier=web", c.opts.LabelSelector)
		w := c.respondWatch()
		w.Add(labelledPod("a", "3", "web"))
		w.Add(labelledPod("b", "4", "db"))
		w.Action(watch.Bookmark, initialEventsEnd("5"))
		h.settle(t)

		assert.Equal(t, []string{"replace@5 [ns/a@3]"}, h.store.take())
	})
}
