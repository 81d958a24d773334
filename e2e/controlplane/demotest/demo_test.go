package demotest

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
)

// wait bounds every wait on the demo; limit bounds the whole run.
const (
	wait  = 60 * time.Second
	limit = 3 * time.Minute
)

// output collects a process's lines and lets a test wait for one.
type output struct {
	mu      sync.Mutex // guards lines and done
	lines   []string
	done    bool
	changed chan struct{} // signalled (without blocking) after every line
}

func (o *output) read(sc *bufio.Scanner) {
	for sc.Scan() {
		o.mu.Lock()
		o.lines = append(o.lines, sc.Text())
		o.mu.Unlock()
		o.signal()
	}
	o.mu.Lock()
	o.done = true
	o.mu.Unlock()
	o.signal()
}

func (o *output) signal() {
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

func (o *output) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.lines, "\n")
}

// waitFor waits until cond holds for the output so far; it fails the test
// if the output ends first or after wait.
func (o *output) waitFor(t *testing.T, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		text := o.text()
		if cond(text) {
			return
		}
		o.mu.Lock()
		done := o.done
		o.mu.Unlock()
		if done {
			t.Fatalf("the demo ended before %s; it printed:\n%s", what, text)
		}
		select {
		case <-o.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s; the demo printed:\n%s", wait, what, text)
		}
	}
}

// stepTags are the narration's tags, one per step of the diagram (4 and 5
// share one), then the Reconcile's result and its writes.
var stepTags = []string{
	"[1 list&watch]", "[2 → DeltaFIFO]", "[3 pop]", "[4/5 indexer]", "[6 handler]",
	"[7 enqueue]", "[8 get key]", "[9 lister get]", "[reconcile]", "[API write]",
}

// hasLine reports whether a line of text starts with tag and mentions key.
func hasLine(text, tag, key string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, tag) && strings.Contains(line, key) {
			return true
		}
	}
	return false
}

// TestDemoNarratesAFooCreatedWithKubectl: the demo, pointed at the control
// plane's kubeconfig with the Foo CRD installed, runs the sample controller
// and narrates a Foo created with kubectl through all nine steps; SIGINT
// stops it cleanly.
// Diagram: steps 1-9 against kube-apiserver. client-go: none (the demo).
func TestDemoNarratesAFooCreatedWithKubectl(t *testing.T) {
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, demoBinary, "--kubeconfig", testenv.ControlPlane(t).KubeconfigPath,
		"--namespace", ns, "--no-color")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out := &output{changed: make(chan struct{}, 1)}
	require.NoError(t, cmd.Start())
	read := make(chan struct{})
	go func() {
		defer close(read)
		out.read(bufio.NewScanner(stdout))
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a no-op once it has exited

	out.waitFor(t, "the banner", func(s string) bool { return strings.Contains(s, "the Foo CRD is installed") })
	_, err = testenv.KubectlStdin(t, fmt.Sprintf(`apiVersion: samplecontroller.k8s.io/v1alpha1
kind: Foo
metadata:
  name: example
  namespace: %s
spec:
  deploymentName: web
  replicas: 2
`, ns), "apply", "-f", "-")
	require.NoError(t, err)
	foo := "Foo " + ns + "/example"
	out.waitFor(t, "every step for the Foo", func(s string) bool {
		return strings.Contains(s, "[9 lister get]   "+foo) &&
			strings.Contains(s, "CREATE Deployment "+ns+"/web") &&
			strings.Contains(s, "[reconcile]")
	})
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	<-read
	err = cmd.Wait()

	text := out.text()
	t.Logf("the demo printed:\n%s\nstderr: %q", text, stderr.String())
	assert.NoError(t, err, "a clean exit on SIGINT; stderr: %s", stderr.String())
	for _, tag := range stepTags {
		assert.True(t, hasLine(text, tag, ns+"/example"), "a line %s about %s/example", tag, ns)
	}
	assert.Contains(t, text, "Bye.")
}
