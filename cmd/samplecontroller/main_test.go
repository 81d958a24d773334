package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// testDeadline bounds every wait on the real socket.
const testDeadline = 20 * time.Second

// --help describes every flag, and says what the exit statuses are.
// Diagram: none. client-go: sample-controller main.go's flags.
func TestHelpExplainsEveryFlag(t *testing.T) {
	var out strings.Builder

	err := run(t.Context(), []string{"--help"}, &out, io.Discard)

	require.NoError(t, err)
	var cfg config
	newFlagSet(&cfg).VisitAll(func(f *flag.Flag) {
		assert.Regexp(t, `(?m)^  -`+f.Name+`( |$)`, out.String(), "flag %s", f.Name)
		assert.NotEmpty(t, f.Usage, "flag %s has a description", f.Name)
	})
	assert.Contains(t, out.String(), "Exit status")
	assert.Contains(t, out.String(), "SIGTERM")
}

// A bad command line is a usage error (exit status 2) that says what is
// wrong; it starts nothing.
// Diagram: none. client-go: none.
func TestBadCommandLinesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "give exactly one of --kubeconfig and --server"},
		{[]string{"--server", "http://x", "--kubeconfig", "k"}, "give exactly one of --kubeconfig and --server"},
		{[]string{"--server", "http://x", "--identity", "a"}, "--identity needs --ring or --leader-elect"},
		{[]string{"--server", "http://x", "--ring", "r", "--leader-elect"}, "give at most one of --ring and --leader-elect"},
		{[]string{"--server", "http://x", "--warmup"}, "--warmup needs --leader-elect"},
		{[]string{"--server", "http://x", "--warm-buckets"}, "--warm-buckets needs --ring"},
		{[]string{"--server", "http://x", "--leader-elect", "--warm-buckets"}, "--warm-buckets needs --ring"},
		{[]string{"--server", "http://x", "--workers", "0"}, "--workers 0: want 1 or more"},
		{[]string{"--server", "http://x", "--ring", "r", "--warmup"}, "--warmup needs --leader-elect"},
		{[]string{"--server", "http://x", "--leader-elect", "--buckets", "4"}, "--buckets needs --ring"},
		{[]string{"--server", "http://x", "--leader-elect", "--identity", "Host_1"}, `--identity "Host_1": it is written in a Lease`},
		{[]string{"--server", "http://x", "--leader-elect", "--renew-deadline", "20s"}, "--renew-deadline 20s must be shorter than --lease-duration 15s"},
		{[]string{"--server", "http://x", "--ring", "r", "--buckets", "0"}, "--buckets 0: want 1 to 1024"},
		{[]string{"--server", "http://x", "--ring", "r", "--buckets", "100000"}, "--buckets 100000: want 1 to 1024"},
		{[]string{"--server", "http://x", "--ring", "r", "--identity", "host_1f2e"}, `--identity "host_1f2e": it ends the Lease name r-member-host_1f2e`},
		{[]string{"--server", "http://x", "--ring", "r", "--renew-deadline", "20s"}, "--renew-deadline 20s must be shorter than --lease-duration 15s"},
		{[]string{"--server", "http://x", "--log-level", "loud"}, `--log-level "loud"`},
		{[]string{"--server", "http://x", "extra"}, `unexpected argument "extra"`},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
	} {
		err := run(t.Context(), tc.args, io.Discard, io.Discard)

		var ue *usageError
		require.True(t, errors.As(err, &ue), "%v: %v", tc.args, err)
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
	}
}

// TestReplicaThatCannotJoinItsRingSaysSoAndExits: a --ring replica whose
// Leases the server refuses (403, as for a ServiceAccount without its
// Role) logs the refusal at ERROR every round, then gives up after twice
// --lease-duration plus --retry-period: run returns an error (exit status
// 1) naming the ring and the refusal, instead of waiting forever with no
// bucket while --log-level warn shows nothing.
// Diagram: steps 8-9 (who may run a key). client-go: none.
func TestReplicaThatCannotJoinItsRingSaysSoAndExits(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	require.NoError(t, sc.Register(srv))
	refuseLeases := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/leases") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,`+
				`"message":"leases.coordination.k8s.io is forbidden: User \"system:serviceaccount:demo:ctrl\" cannot get resource \"leases\" in API group \"coordination.k8s.io\""}`)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	})
	ts := httptest.NewServer(refuseLeases)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	var stderr syncBuffer
	done := make(chan error, 1)
	began := time.Now()

	go func() {
		done <- run(t.Context(), []string{"--server", ts.URL, "--namespace", "ns", "--ring", "r", "--identity", "a",
			"--lease-duration", "2s", "--renew-deadline", "1s", "--retry-period", "100ms", "--log-level", "warn"}, io.Discard, &stderr)
	}()

	var err error
	select {
	case err = <-done:
	case <-time.After(testDeadline):
		t.Fatal("the replica kept waiting to join")
	}
	t.Logf("run returned after %v: %v", time.Since(began).Round(100*time.Millisecond), err)
	require.Error(t, err)
	var ue *usageError
	assert.False(t, errors.As(err, &ue), "exit status 1, not 2")
	assert.Contains(t, err.Error(), "could not join ring r in 4.1s")
	assert.Contains(t, err.Error(), "forbidden")
	assert.GreaterOrEqual(t, time.Since(began), 4*time.Second)
	assert.Contains(t, stderr.String(), `level=ERROR msg="not in the ring yet: could not take the member Lease"`)
	assert.Contains(t, stderr.String(), `level=ERROR msg="could not join the ring: giving up"`)
}

// A server URL or kubeconfig that cannot be used is an ordinary error
// (exit status 1) naming the flag.
// Diagram: none. client-go: none.
func TestUnusableServerIsAnError(t *testing.T) {
	err := run(t.Context(), []string{"--server", "127.0.0.1:8080"}, io.Discard, io.Discard)
	require.Error(t, err)
	assert.False(t, errors.As(err, new(*usageError)))
	assert.Contains(t, err.Error(), "samplecontroller: --server:")

	err = run(t.Context(), []string{"--kubeconfig", filepath.Join(t.TempDir(), "none")}, io.Discard, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "samplecontroller: --kubeconfig:")
}

// Bytes are counted by the resource a request's path names.
// Diagram: step 1. client-go: none.
func TestByteCountsByResource(t *testing.T) {
	var c byteCounts
	for _, tc := range []struct{ path, want string }{
		{"/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos", "foos"},
		{"/apis/samplecontroller.k8s.io/v1alpha1/foos", "foos"},
		{"/apis/apps/v1/namespaces/ns/deployments/web/status", "deployments"},
		{"/apis/coordination.k8s.io/v1/namespaces/default/leases/r-bucket-3", "leases"},
		{"/api/v1/namespaces/ns/events", "other"},
		{"/api/v1/namespaces/foos", "other"},
		{"/version", "other"},
	} {
		c.counter(tc.path).Add(1)

		assert.Equal(t, int64(1), c.snapshot()[tc.want], tc.path)
		c = byteCounts{}
	}
}

// One replica of a ring against fakeapi: it takes every bucket, caches
// and reconciles every Foo, journals each reconcile with the writes it
// made, and reports in its stats the buckets, the caches and the bytes it
// received; on cancel (SIGTERM) it releases its Leases and says so in a
// last snapshot.
// Diagram: steps 1-9, sharded. client-go: none.
func TestOneReplicaJournalsStatsAndReleasesOnStop(t *testing.T) {
	ts, c := serveFiveFoos(t)
	dir := t.TempDir()
	journalPath, statsPath := filepath.Join(dir, "journal"), filepath.Join(dir, "stats.json")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--server", ts.URL, "--namespace", "ns", "--simulate-deployments",
			"--ring", "r", "--identity", "a", "--lease-duration", "2s", "--renew-deadline", "1s", "--retry-period", "100ms",
			"--journal", journalPath, "--stats", statsPath, "--log-level", "error"}, io.Discard, io.Discard)
	}()
	t.Cleanup(cancel)

	snap := waitStats(t, statsPath, func(s statsSnapshot) bool {
		return len(s.Held) == 16 && s.Foos == 5 && s.Deployments == 5
	})
	lines := waitJournal(t, journalPath, func(ls []journalLine) bool {
		wrote := map[string]bool{}
		for _, l := range ls {
			if l.OK && l.Writes > 0 {
				wrote[l.Key] = true
			}
		}
		return len(wrote) == 5
	})
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(testDeadline):
		t.Fatal("the replica did not stop")
	}

	assert.Equal(t, "a", snap.Identity)
	assert.Equal(t, 16, snap.Buckets)
	assert.Positive(t, snap.BytesReceived["foos"])
	assert.Positive(t, snap.BytesReceived["deployments"])
	assert.Positive(t, snap.BytesReceived["leases"])
	assert.Positive(t, snap.HeapLiveBytes)
	for _, l := range lines {
		assert.Equal(t, "a", l.Replica)
		assert.LessOrEqual(t, l.Start, l.End)
		assert.True(t, strings.HasPrefix(l.Key, "ns/foo-"), l.Key)
	}
	last := readStats(t, statsPath)
	assert.Empty(t, last.Held, "the last snapshot shows the buckets released")
	leases, err := c.Resource(sc.LeasesGVR).Namespace("default").List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, l := range leases.(*unstructured.UnstructuredList).Items {
		holder, _, _ := unstructured.NestedString(l.Object, "spec", "holderIdentity")
		assert.Empty(t, holder, "Lease %s released", l.GetName())
	}
}

func readStats(t *testing.T, path string) statsSnapshot {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var s statsSnapshot
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// waitStats waits until the stats file exists and cond holds for it.
func waitStats(t *testing.T, path string, cond func(statsSnapshot) bool) statsSnapshot {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	var s statsSnapshot
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			s = statsSnapshot{}
			require.NoError(t, json.Unmarshal(b, &s), "a snapshot is always whole")
			if cond(s) {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("stats never as wanted; last %+v", s)
	return s
}

// waitJournal waits until cond holds for the journal's lines.
func waitJournal(t *testing.T, path string, cond func([]journalLine) bool) []journalLine {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	var ls []journalLine
	for time.Now().Before(deadline) {
		ls = readJournal(t, path)
		if cond(ls) {
			return ls
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("journal never as wanted; %d lines", len(ls))
	return ls
}

func readJournal(t *testing.T, path string) []journalLine {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var ls []journalLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l journalLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		ls = append(ls, l)
	}
	require.NoError(t, sc.Err())
	return slices.Clip(ls)
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines and the test.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestLeaderElectedReplicasStandByAndTakeOverOnStop: two --leader-elect
// --warmup processes (run in this test) over one server: the first holds
// the Lease and reconciles every Foo; the second's stats say it stands by
// with every Foo cached, and its journal stays empty. When the leader stops
// it releases the Lease, and the standby's stats turn leading and its
// journal fills.
// Diagram: steps 1-5 on every replica, 6-9 on the leader. client-go: none; controller-runtime LeaderElection.
func TestLeaderElectedReplicasStandByAndTakeOverOnStop(t *testing.T) {
	ts, c := serveFiveFoos(t)
	type replica struct {
		journal, stats string
		cancel         context.CancelFunc
		done           chan error
	}
	start := func(id string) *replica {
		dir := t.TempDir()
		r := &replica{journal: filepath.Join(dir, "journal"), stats: filepath.Join(dir, "stats.json"), done: make(chan error, 1)}
		ctx, cancel := context.WithCancel(context.Background())
		r.cancel = cancel
		go func() {
			r.done <- run(ctx, []string{"--server", ts.URL, "--namespace", "ns", "--simulate-deployments",
				"--leader-elect", "--warmup", "--identity", id, "--lease-duration", "2s", "--renew-deadline", "1s", "--retry-period", "100ms",
				"--journal", r.journal, "--stats", r.stats, "--log-level", "error"}, io.Discard, io.Discard)
		}()
		t.Cleanup(cancel)
		return r
	}
	stop := func(r *replica) {
		r.cancel()
		select {
		case err := <-r.done:
			require.NoError(t, err)
		case <-time.After(testDeadline):
			t.Fatal("the replica did not stop")
		}
	}
	wroteAll := func(ls []journalLine) bool {
		wrote := map[string]bool{}
		for _, l := range ls {
			if l.OK && l.Writes > 0 {
				wrote[l.Key] = true
			}
		}
		return len(wrote) == 5
	}

	a := start("a")
	waitStats(t, a.stats, func(s statsSnapshot) bool { return s.Leading && s.Foos == 5 })
	waitJournal(t, a.journal, wroteAll)
	b := start("b")
	standby := waitStats(t, b.stats, func(s statsSnapshot) bool { return s.Foos == 5 && s.Deployments == 5 })
	assert.False(t, standby.Leading, "b stands by")
	assert.Empty(t, readJournal(t, b.journal), "a standby reconciles nothing")

	// Scale every Foo while no one leads: b applies it once it leads.
	stop(a)
	for i := range 5 {
		_, err := c.Resource(sc.FoosGVR).Namespace("ns").Patch(t.Context(), fmt.Sprintf("foo-%d", i), types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	waitStats(t, b.stats, func(s statsSnapshot) bool { return s.Leading })
	waitJournal(t, b.journal, wroteAll)
	stop(b)
	lease, err := c.Resource(sc.LeasesGVR).Namespace("ns").Get(t.Context(), sc.DefaultLeaderLease, metav1.GetOptions{})
	require.NoError(t, err)
	holder, _, _ := unstructured.NestedString(lease.(*unstructured.Unstructured).Object, "spec", "holderIdentity")
	assert.Empty(t, holder, "the last leader released the Lease")
}

// serveFiveFoos serves a fakeapi with the sample resources over HTTP until
// the test ends, with five Foos foo-0..foo-4 (Deployments dep-0..dep-4, one
// replica each) in namespace ns, and returns it and a client of it.
func serveFiveFoos(t *testing.T) (*httptest.Server, *client.Client) {
	t.Helper()
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	require.NoError(t, sc.Register(srv))
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	c, err := client.New(&client.Config{Server: ts.URL}, sc.NewScheme())
	require.NoError(t, err)
	for i := range 5 {
		replicas := int32(1)
		_, err := c.Resource(sc.FoosGVR).Namespace("ns").Create(t.Context(), &sc.Foo{
			TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("foo-%d", i), Namespace: "ns"},
			Spec:       sc.FooSpec{DeploymentName: fmt.Sprintf("dep-%d", i), Replicas: &replicas},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	return ts, c
}
