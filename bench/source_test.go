package bench

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func receive(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.True(t, ok, "result channel closed")
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return watch.Event{}
	}
}

// TestListHandsOverThePreparedListOnce checks that the Source keeps no
// reference to a list once listed, so only the informer keeps the objects.
// Diagram: step 1. client-go: ListerWatcher.List
func TestListHandsOverThePreparedListOnce(t *testing.T) {
	ctx := testContext(t)
	src := NewSource(1)
	list := NewList(3, 7, func(i int) int { return i + 1 })
	src.SetList(list)

	got, err := src.List(ctx, metav1.ListOptions{})
	_, again := src.List(ctx, metav1.ListOptions{})

	require.NoError(t, err)
	assert.Same(t, list, got)
	assert.ErrorIs(t, again, ErrNoList)
	assert.Len(t, src.Listed(), 1, "one List call returned a list")
	assert.Equal(t, "7", list.ResourceVersion)
	assert.Equal(t, "3", list.Items[2].ResourceVersion)
	assert.Equal(t, Key(2), list.Items[2].Namespace+"/"+list.Items[2].Name)
}

// TestSendWaitsForAWatchAndGoesToTheNewest checks that an event sent before
// any watch is open is delivered once one opens, and that later events go to
// the newest watch.
// Diagram: step 1. client-go: ListerWatcher.Watch
func TestSendWaitsForAWatchAndGoesToTheNewest(t *testing.T) {
	ctx := testContext(t)
	src := NewSource(4)
	sent := make(chan error, 1)
	go func() { sent <- src.Send(ctx, watch.Event{Type: watch.Added, Object: NewObject(1, 1, 0)}) }()

	first, err := src.Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	ev := receive(t, first)
	require.NoError(t, <-sent)
	first.Stop()
	second, err := src.Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NoError(t, src.Send(ctx, watch.Event{Type: watch.Modified, Object: NewObject(1, 2, 0)}))

	assert.Equal(t, watch.Added, ev.Type)
	assert.Equal(t, watch.Modified, receive(t, second).Type)
	assert.Equal(t, 2, src.Watches())
}

// TestStopReleasesABlockedSendWithoutPanicking checks that stopping a watch
// whose buffer is full makes a waiting send fail instead of blocking or
// sending on a closed channel (whichever of the two comes first), and that
// the result channel is then closed.
// Diagram: step 1. client-go: watch.Interface.Stop
func TestStopReleasesABlockedSendWithoutPanicking(t *testing.T) {
	ctx := testContext(t)
	w := newWatcher(1)
	require.NoError(t, w.send(ctx, watch.Event{Type: watch.Added, Object: NewObject(1, 1, 0)}))
	blocked := make(chan error, 1)
	go func() { blocked <- w.send(ctx, watch.Event{Type: watch.Added, Object: NewObject(2, 1, 0)}) }()

	w.Stop()
	w.Stop()

	assert.ErrorIs(t, <-blocked, errWatchStopped)
	var left int
	for range w.ResultChan() {
		left++
	}
	assert.Equal(t, 1, left, "the event sent before Stop is still readable, then the channel closes")
}

// TestSendWaitsForANewWatchOnceTheOnlyOneStopped checks that Send does not
// write to a stopped watch: it waits for the next one, here until its
// context ends.
// Diagram: step 1. client-go: Reflector.watch (re-opening the watch)
func TestSendWaitsForANewWatchOnceTheOnlyOneStopped(t *testing.T) {
	src := NewSource(1)
	w, err := src.Watch(testContext(t), metav1.ListOptions{})
	require.NoError(t, err)
	w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()

	err = src.Send(ctx, watch.Event{Type: watch.Added, Object: NewObject(3, 1, 0)})

	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestWatchEndsWithItsContext checks that cancelling the Watch's context
// closes its result channel.
// Diagram: step 1. client-go: ListerWatcherWithContext.WatchWithContext
func TestWatchEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	src := NewSource(1)
	w, err := src.Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)

	cancel()

	select {
	case _, ok := <-w.ResultChan():
		assert.False(t, ok)
	case <-time.After(10 * time.Second):
		t.Fatal("result channel still open 10s after the context ended")
	}
}

// TestBreakWatchSendsExpired checks that BreakWatch ends the watch with the
// 410 Expired error that makes a Reflector list again.
// Diagram: step 1. client-go: Reflector.watch (isExpiredError)
func TestBreakWatchSendsExpired(t *testing.T) {
	ctx := testContext(t)
	src := NewSource(1)
	w, err := src.Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)

	require.NoError(t, src.BreakWatch(ctx))

	ev := receive(t, w)
	assert.Equal(t, watch.Error, ev.Type)
	assert.True(t, apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)))
}

// TestAppIndexFuncFilesByAppLabel checks the label index both indexers get.
// Diagram: step 5. client-go: IndexFunc
func TestAppIndexFuncFilesByAppLabel(t *testing.T) {
	labelled, err := AppIndexFunc(NewObject(7, 1, 1))
	unlabelled, err2 := AppIndexFunc(&metav1.PartialObjectMetadata{})
	_, bad := AppIndexFunc("not an object")

	require.NoError(t, err)
	require.NoError(t, err2)
	assert.Equal(t, []string{App(8)}, labelled)
	assert.Empty(t, unlabelled)
	assert.ErrorContains(t, bad, "bench: app index")
}
