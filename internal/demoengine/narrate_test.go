package demoengine

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/internal/pipelinetrace"
)

// narratedStream is a pipelinetrace.Stream narrated by n, as the world's
// is, without a page.
func narratedStream(n *narrator) *pipelinetrace.Stream {
	return pipelinetrace.NewStream(newStreamNarrator(n, newKindIndex(), nil, false).event)
}

// TestVerboseLogLinesShowTheirError: in verbose mode a log record prints
// with its error and attributes ("failed to list or watch" alone says
// nothing about why).
// Diagram: step 1. client-go: reflector.DefaultWatchErrorHandler's log line.
func TestVerboseLogLinesShowTheirError(t *testing.T) {
	var out bytes.Buffer
	n := &narrator{out: &out, verbose: true}
	logger := slog.New(narratedStream(n).Handler()).
		With(slog.String("reflector", "foos"), slog.String("type", "*samplecontroller.Foo"))

	logger.Warn("reflector: failed to list or watch", "err", errors.New(`Get "https://10.0.0.1/apis": dial tcp: connection refused`))
	logger.Error("reconcile failed; requeued with backoff", "err", errors.New("boom"), "retries", 2)

	assert.Contains(t, out.String(), `(log) reflector: failed to list or watch: Get "https://10.0.0.1/apis": dial tcp: connection refused`)
	assert.Contains(t, out.String(), "(log) reconcile failed; requeued with backoff: boom (retries=2)")
}

// TestLogLinesPrintWithTheirCause: in the deterministic transcript a
// controller's log line ("reconcile failed") is held with the workers'
// lines, after the watch event and the Reconcile that caused it, and a
// Reflector's with its informer's step 1 lines.
// Diagram: steps 1 and 8. client-go: none.
func TestLogLinesPrintWithTheirCause(t *testing.T) {
	var out bytes.Buffer
	n := &narrator{out: &out, verbose: true, buffered: true}
	h := narratedStream(n).Handler()
	controllerLog := slog.New(h).With("controller", "foo")
	reflectorLog := slog.New(h).With("reflector", "deployments", "type", "*samplecontroller.Deployment")

	reflectorLog.Info("reflector: starting")
	n.step(tagReconcile, "default/web: error: boom")
	controllerLog.Error("reconcile failed; requeued with backoff", "err", errors.New("boom"))
	n.line(stageReflector, laneOf("Deployment"), tagList, "Deployments: watch event MODIFIED default/web rv 7")
	n.flush()

	assert.Equal(t, ""+
		"                 (log) reflector: starting\n"+
		"[1 list&watch]   Deployments: watch event MODIFIED default/web rv 7\n"+
		"[reconcile]      default/web: error: boom\n"+
		"                 (log) reconcile failed; requeued with backoff: boom\n", out.String())
}

// TestUnchangedUpdatesNameTheirCause: an update with an unchanged
// resourceVersion is a relist's when the object last popped a Replaced
// delta, a resync's when it popped a Sync delta.
// Diagram: steps 3 and 6. client-go: DeltaFIFO Replaced versus Sync deltas.
func TestUnchangedUpdatesNameTheirCause(t *testing.T) {
	k := newKindIndex()

	k.popped("Foo", "default/a", []string{"Replaced"})
	k.popped("Foo", "default/b", []string{"Sync"})
	k.popped("Deployment", "default/a", []string{"Sync"})

	assert.Equal(t, "the relist found it unchanged", k.unchangedBy("Foo", "default/a"))
	assert.Equal(t, "a resync", k.unchangedBy("Foo", "default/b"))
	assert.Equal(t, "a resync", k.unchangedBy("Deployment", "default/a"), "kinds are told apart")
}
