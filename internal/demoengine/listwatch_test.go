package demoengine

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// drain reads a watch until its channel closes, failing after a deadline.
func drain(t *testing.T, w watch.Interface) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch did not end")
		}
	}
}

// TestWatchEndNamesWhoEndedIt: a watch whose Watch call's context ends (as
// on Ctrl-C, where the stream may end before the Reflector calls Stop) or
// that is stopped says nothing; only a watch the server closed is narrated
// as "connection closed by the server".
// Diagram: step 1. client-go: none.
func TestWatchEndNamesWhoEndedIt(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	var out bytes.Buffer
	n := &narrator{out: &out}
	lw := newNarratedLW(srv.Resource(configMapsGVR).Namespace("default"), "configmaps", newGate(nil), narratedStream(n))

	ctx, cancel := context.WithCancel(context.Background())
	cancelled, err := lw.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	require.NoError(t, err)
	cancel()
	drain(t, cancelled)
	stopped, err := lw.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	require.NoError(t, err)
	stopped.Stop()
	drain(t, stopped)
	assert.NotContains(t, out.String(), "closed by the server", "we ended those watches ourselves")

	byServer, err := lw.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	require.NoError(t, err)
	srv.CloseWatches()
	drain(t, byServer)
	assert.Contains(t, out.String(), "configmaps: the watch ended (connection closed by the server)")
}

// TestFailedListAndWatchShowTheError: a failed LIST, a refused WATCH and a
// watch ERROR event each show the server's code, reason and message, not
// only "failed".
// Diagram: step 1. client-go: none.
func TestFailedListAndWatchShowTheError(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	var out bytes.Buffer
	n := &narrator{out: &out}
	lw := newNarratedLW(srv.Resource(configMapsGVR).Namespace("default"), "configmaps", newGate(nil), narratedStream(n))
	require.NoError(t, srv.FailNext("list", 1, 503))
	require.NoError(t, srv.FailNext("watch", 1, 500))

	_, errList := lw.List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	_, errWatch := lw.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	w, err := lw.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	require.NoError(t, err)
	srv.InjectWatchError(&apierrors.NewResourceExpired("too old resource version: 1 (7)").ErrStatus)
	drain(t, w)

	require.Error(t, errList)
	require.Error(t, errWatch)
	assert.Contains(t, out.String(), `configmaps: LIST (resourceVersion="0") failed: 503 ServiceUnavailable: fakeapi: injected failure for list`)
	assert.Contains(t, out.String(), "configmaps: WATCH from rv 1 refused: 500 InternalError: Internal error occurred: fakeapi: injected failure for watch")
	assert.Contains(t, out.String(), "configmaps: watch ERROR event: 410 Expired: too old resource version: 1 (7)")
}
