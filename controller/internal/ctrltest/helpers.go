package ctrltest

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
	CMGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	Quiet = slog.New(slog.DiscardHandler)
)

// ExampleCM is the example object of ConfigMaps served without a scheme.
func ExampleCM() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	return u
}

func NewCM(ns, name string) *unstructured.Unstructured {
	u := ExampleCM()
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// Req builds the Request for ns/name.
func Req(ns, name string) controller.Request {
	return controller.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

// NewServer returns a fakeapi server closed at the end of the test.
func NewServer(t *testing.T) *fakeapi.Server {
	t.Helper()
	s := fakeapi.New(fakeapi.Options{})
	t.Cleanup(s.Close)
	return s
}

func Create(t *testing.T, s *fakeapi.Server, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := s.Resource(CMGVR).Namespace(obj.GetNamespace()).Create(context.Background(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}

// RunInformer runs an informer over the server's ConfigMaps until the end of
// the test.
func RunInformer(t *testing.T, s *fakeapi.Server) informer.SharedIndexInformer {
	t.Helper()
	inf := informer.NewSharedIndexInformer(s.Resource(CMGVR), ExampleCM(), 0, nil, informer.WithLogger(Quiet))
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

// Start runs c.Start until the end of the test and returns a channel that
// receives Start's result.
func Start(t *testing.T, c *controller.Controller) <-chan error {
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

// Call is one Reconcile seen by a recorder: when (since the recorder was
// made) and for what.
type Call struct {
	At  time.Duration
	Req controller.Request
}

// Recorder is a Reconciler spy: it records every call and answers with the
// next scripted outcome (the zero Result once the script runs out).
type Recorder struct {
	began time.Time

	mu     sync.Mutex // guards calls, script and logf
	Calls  []Call
	Script []Outcome
	logf   func(string, ...any) // if set, told of every call
}

// Narrate logs every Reconcile from now on, with its outcome, to t.
func (r *Recorder) Narrate(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logf = t.Logf
}

type Outcome struct {
	Result controller.Result
	Err    error
	Panic  any
}

func (o Outcome) String() string {
	switch {
	case o.Panic != nil:
		return fmt.Sprintf("panic(%v)", o.Panic)
	case o.Err != nil && o.Result.RequeueAfter > 0:
		return fmt.Sprintf("error %q and RequeueAfter %v", o.Err, o.Result.RequeueAfter)
	case o.Err != nil:
		return fmt.Sprintf("error %q", o.Err)
	case o.Result.RequeueAfter > 0:
		return fmt.Sprintf("RequeueAfter %v", o.Result.RequeueAfter)
	}
	return "success"
}

func NewRecorder(script ...Outcome) *Recorder {
	return &Recorder{began: time.Now(), Script: script}
}

func (r *Recorder) Reconcile(_ context.Context, rq controller.Request) (controller.Result, error) {
	r.mu.Lock()
	r.Calls = append(r.Calls, Call{At: time.Since(r.began), Req: rq})
	var next Outcome
	if len(r.Script) > 0 {
		next, r.Script = r.Script[0], r.Script[1:]
	}
	if r.logf != nil {
		r.logf("%10v  Reconcile(%s) -> %s", time.Since(r.began), rq, next)
	}
	r.mu.Unlock()
	if next.Panic != nil {
		panic(next.Panic)
	}
	return next.Result, next.Err
}

// Reset forgets the calls seen so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Calls = nil
}

// Times returns when the calls happened, since the recorder was made, as
// durations print ("0s", "5ms", "1h0m0.005s"): a failed comparison then
// reads as times, not as nanoseconds.
func (r *Recorder) Times() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ts []string
	for _, c := range r.Calls {
		ts = append(ts, c.At.String())
	}
	return ts
}

// Requests returns the requests reconciled, sorted.
func (r *Recorder) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.Calls {
		out = append(out, c.Req.String())
	}
	slices.Sort(out)
	return out
}

// Drain empties a queue that nothing else reads and returns its Requests,
// sorted.
func Drain(q workqueue.RateLimitingInterface[controller.Request]) []string {
	var out []string
	for q.Len() > 0 {
		item, _ := q.Get()
		q.Done(item)
		out = append(out, item.String())
	}
	slices.Sort(out)
	return out
}

// LogBuffer is a concurrency-safe buffer for a text slog handler.
type LogBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *LogBuffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
