package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/workqueue"
)

var (
	cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	quiet = slog.New(slog.DiscardHandler)
)

// exampleCM is the example object of ConfigMaps served without a scheme.
func exampleCM() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	return u
}

func newCM(ns, name string) *unstructured.Unstructured {
	u := exampleCM()
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// req builds the Request for ns/name.
func req(ns, name string) controller.Request {
	return controller.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

// newServer returns a fakeapi server closed at the end of the test.
func newServer(t *testing.T) *fakeapi.Server {
	t.Helper()
	s := fakeapi.New(fakeapi.Options{})
	t.Cleanup(s.Close)
	return s
}

func create(t *testing.T, s *fakeapi.Server, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := s.Resource(cmGVR).Namespace(obj.GetNamespace()).Create(context.Background(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}

// runInformer runs an informer over the server's ConfigMaps until the end of
// the test.
func runInformer(t *testing.T, s *fakeapi.Server) informer.SharedIndexInformer {
	t.Helper()
	inf := informer.NewSharedIndexInformer(s.Resource(cmGVR), exampleCM(), 0, nil, informer.WithLogger(quiet))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return inf
}

// start runs c.Start until the end of the test and returns a channel that
// receives Start's result.
func start(t *testing.T, c *controller.Controller) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		result <- c.Start(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return result
}

// call is one Reconcile seen by a recorder: when (since the recorder was
// made) and for what.
type call struct {
	at  time.Duration
	req controller.Request
}

// recorder is a Reconciler spy: it records every call and answers with the
// next scripted outcome (the zero Result once the script runs out).
type recorder struct {
	began time.Time

	mu     sync.Mutex // guards calls, script and logf
	calls  []call
	script []outcome
	logf   func(string, ...any) // if set, told of every call
}

// narrate logs every Reconcile from now on, with its outcome, to t.
func (r *recorder) narrate(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logf = t.Logf
}

type outcome struct {
	result controller.Result
	err    error
	panic  any
}

func (o outcome) String() string {
	switch {
	case o.panic != nil:
		return fmt.Sprintf("panic(%v)", o.panic)
	case o.err != nil && o.result.RequeueAfter > 0:
		return fmt.Sprintf("error %q and RequeueAfter %v", o.err, o.result.RequeueAfter)
	case o.err != nil:
		return fmt.Sprintf("error %q", o.err)
	case o.result.RequeueAfter > 0:
		return fmt.Sprintf("RequeueAfter %v", o.result.RequeueAfter)
	}
	return "success"
}

func newRecorder(script ...outcome) *recorder {
	return &recorder{began: time.Now(), script: script}
}

func (r *recorder) Reconcile(_ context.Context, rq controller.Request) (controller.Result, error) {
	r.mu.Lock()
	r.calls = append(r.calls, call{at: time.Since(r.began), req: rq})
	var next outcome
	if len(r.script) > 0 {
		next, r.script = r.script[0], r.script[1:]
	}
	if r.logf != nil {
		r.logf("%10v  Reconcile(%s) -> %s", time.Since(r.began), rq, next)
	}
	r.mu.Unlock()
	if next.panic != nil {
		panic(next.panic)
	}
	return next.result, next.err
}

// times returns when the calls happened, since the recorder was made, as
// durations print ("0s", "5ms", "1h0m0.005s"): a failed comparison then
// reads as times, not as nanoseconds.
func (r *recorder) times() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ts []string
	for _, c := range r.calls {
		ts = append(ts, c.at.String())
	}
	return ts
}

// requests returns the requests reconciled, sorted.
func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, c.req.String())
	}
	slices.Sort(out)
	return out
}

// drain empties a queue that nothing else reads and returns its Requests,
// sorted.
func drain(q workqueue.RateLimitingInterface[controller.Request]) []string {
	var out []string
	for q.Len() > 0 {
		item, _ := q.Get()
		q.Done(item)
		out = append(out, item.String())
	}
	slices.Sort(out)
	return out
}

// logBuffer is a concurrency-safe buffer for a text slog handler.
type logBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
