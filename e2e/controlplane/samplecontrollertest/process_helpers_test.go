package samplecontrollertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// The Lease timings of the replicas run as processes: a killed replica's
// buckets are free LeaseDuration after its last renewal.
const (
	procLeaseDuration = 4 * time.Second
	procRenewDeadline = 2 * time.Second
	procRetryPeriod   = 500 * time.Millisecond
)

// buildSampleController builds cmd/samplecontroller of the main module into
// a directory of tb's, and returns the binary's path.
func buildSampleController(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "samplecontroller")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/samplecontroller")
	cmd.Dir = testenv.RepoRoot(tb)
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "go build ./cmd/samplecontroller:\n%s", out)
	return bin
}

// plane is one control plane the process tests run on.
type plane struct {
	name string
	cp   *controlplane.ControlPlane
	// filters says whether the server answers shard selectors (the gate
	// is on) or ignores them (off: every replica receives every Foo).
	filters bool
}

// bothPlanes returns the shared control plane (gate on) and the gate-off
// one, the Foo CRD installed on each.
func bothPlanes(tb testing.TB) []plane {
	tb.Helper()
	ps := []plane{{"gate-on", testenv.ControlPlane(tb), true}, {"gate-off", testenv.GateOff(tb), false}}
	for _, p := range ps {
		testenv.InstallFooCRDOn(tb, p.cp)
	}
	return ps
}

// replicaProcess is one cmd/samplecontroller process.
type replicaProcess struct {
	name           string
	journal, stats string
	stderr         string
	cmd            *exec.Cmd
	done           chan struct{} // closed when the process has exited
	mu             sync.Mutex    // guards exitErr
	exitErr        error
	// warm: started with --warm-buckets, it caches its runner-up buckets too.
	warm bool
}

// procRing is a ring's settings, shared by its processes.
type procRing struct {
	bin, kubeconfig, ns, ring string
}

// start starts one replica of the ring named name, with the test Lease
// timings and --simulate-deployments; it is SIGKILLed when tb ends, if it
// still runs.
func (r procRing) start(tb testing.TB, name string) *replicaProcess {
	tb.Helper()
	return r.startWith(tb, name)
}

// startWith is start with more flags, such as --lease-namespace.
func (r procRing) startWith(tb testing.TB, name string, extra ...string) *replicaProcess {
	tb.Helper()
	return startProcess(tb, name, r.bin, func(p *replicaProcess) []string {
		p.warm = slices.Contains(extra, "--warm-buckets")
		return append([]string{"--kubeconfig", r.kubeconfig, "--namespace", r.ns, "--simulate-deployments",
			"--ring", r.ring, "--identity", name,
			"--lease-duration", procLeaseDuration.String(), "--renew-deadline", procRenewDeadline.String(), "--retry-period", procRetryPeriod.String(),
			"--journal", p.journal, "--stats", p.stats, "--log-level", "warn"}, extra...)
	})
}

// startProcess starts the binary bin as the process name, with the flags
// args returns (given the process, whose journal and stats paths are
// chosen), its stderr to a file; it is SIGKILLed when tb ends, if it still
// runs, and its stderr's tail logged if tb failed.
func startProcess(tb testing.TB, name, bin string, args func(p *replicaProcess) []string) *replicaProcess {
	tb.Helper()
	dir := tb.TempDir()
	p := &replicaProcess{name: name, journal: filepath.Join(dir, "journal"), stats: filepath.Join(dir, "stats.json"),
		stderr: filepath.Join(dir, "stderr"), done: make(chan struct{})}
	stderr, err := os.Create(p.stderr)
	require.NoError(tb, err)
	p.cmd = exec.Command(bin, args(p)...)
	p.cmd.Stderr = stderr
	require.NoError(tb, p.cmd.Start())
	stderr.Close()
	go func() {
		err := p.cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	tb.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL) // also ends a stopped process
		<-p.done
		if tb.Failed() {
			b, _ := os.ReadFile(p.stderr)
			tb.Logf("%s's stderr (last 2000 bytes):\n%s", p.name, tail(string(b), 2000))
		}
	})
	return p
}

// startN starts replicas <ring>-0 ... <ring>-(n-1) of the ring: each ring
// has its own identities, so rendezvous hashing splits the buckets
// differently from one ring to the next.
func (r procRing) startN(tb testing.TB, n int, extra ...string) []*replicaProcess {
	var ps []*replicaProcess
	for i := range n {
		ps = append(ps, r.startWith(tb, r.ring+"-"+strconv.Itoa(i), extra...))
	}
	return ps
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (p *replicaProcess) signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	require.NoError(tb, p.cmd.Process.Signal(sig), "signal %v to %s", sig, p.name)
}

// kill SIGKILLs the process and waits until it is gone.
func (p *replicaProcess) kill(tb testing.TB) {
	tb.Helper()
	p.signal(tb, syscall.SIGKILL)
	<-p.done
}

// stop SIGTERMs the process and waits for its graceful exit, which must be
// a success.
func (p *replicaProcess) stop(tb testing.TB) {
	tb.Helper()
	p.signal(tb, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(wait):
		tb.Fatalf("%s did not stop within %v of SIGTERM", p.name, wait)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NoError(tb, p.exitErr, "%s exits 0 after SIGTERM", p.name)
}

// procStats is cmd/samplecontroller's --stats snapshot.
type procStats struct {
	Identity      string           `json:"identity"`
	Time          int64            `json:"time"`
	Held          []int            `json:"held"`
	Buckets       int              `json:"buckets"`
	Leading       bool             `json:"leading"`
	Foos          int              `json:"foos"`
	Deployments   int              `json:"deployments"`
	BytesReceived map[string]int64 `json:"bytesReceived"`
	HeapLiveBytes uint64           `json:"heapLiveBytes"`
}

// readStats returns the process's last snapshot (ok false: none yet).
func (p *replicaProcess) readStats(tb testing.TB) (procStats, bool) {
	tb.Helper()
	b, err := os.ReadFile(p.stats)
	if errors.Is(err, os.ErrNotExist) {
		return procStats{}, false
	}
	require.NoError(tb, err)
	var s procStats
	require.NoError(tb, json.Unmarshal(b, &s), "%s's stats are whole JSON (written by rename)", p.name)
	return s, true
}

// procRun is one Foo reconcile of cmd/samplecontroller's --journal.
type procRun struct {
	Replica string `json:"replica"`
	Key     string `json:"key"`
	Start   int64  `json:"start"`
	End     int64  `json:"end"`
	OK      bool   `json:"ok"`
	Writes  int    `json:"writes"`
	Error   string `json:"error"`
}

// readJournal returns the process's journal so far. A process killed in
// the middle of writing a line could leave it torn: a last line that is
// not JSON is ignored.
func (p *replicaProcess) readJournal(tb testing.TB) []procRun {
	tb.Helper()
	f, err := os.Open(p.journal)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(tb, err)
	defer f.Close()
	var runs []procRun
	s := bufio.NewScanner(f)
	for s.Scan() {
		var r procRun
		if err := json.Unmarshal(s.Bytes(), &r); err != nil {
			break
		}
		runs = append(runs, r)
	}
	require.NoError(tb, s.Err())
	return runs
}

// journals returns every process's journal, merged.
func journals(tb testing.TB, ps []*replicaProcess) []procRun {
	var all []procRun
	for _, p := range ps {
		all = append(all, p.readJournal(tb)...)
	}
	return all
}

// procOverlaps returns every pair of reconciles of one key by two replicas
// whose [start, end] intervals overlap: wall clock times of one machine.
func procOverlaps(runs []procRun) []string {
	byKey := map[string][]procRun{}
	for _, r := range runs {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	var out []string
	for key, rs := range byKey {
		for i, a := range rs {
			for _, b := range rs[i+1:] {
				if a.Replica != b.Replica && a.Start <= b.End && b.Start <= a.End {
					out = append(out, fmt.Sprintf("%s: %s [%d,%d] and %s [%d,%d]", key, a.Replica, a.Start, a.End, b.Replica, b.Start, b.End))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// procShareReport says what is wrong with the live processes' shares, as
// their stats show them ("" when nothing): each holds the buckets the ring
// of the live replicas gives it ([sharding.BucketOwners]), so every bucket
// is held by exactly one, and caches exactly their Foos (so the caches sum
// to all).
func procShareReport(tb testing.TB, live []*replicaProcess, buckets map[string]int, nBuckets int) string {
	var names []string
	for _, p := range live {
		names = append(names, p.name)
	}
	owners := sharding.BucketOwners(names, nBuckets)
	holders := map[int]string{}
	for _, p := range live {
		s, ok := p.readStats(tb)
		if !ok {
			return p.name + " has written no stats yet"
		}
		var owned []int
		for b, owner := range owners {
			if owner == p.name {
				owned = append(owned, b)
			}
		}
		if !slices.Equal(s.Held, owned) {
			return fmt.Sprintf("%s holds buckets %v, the ring of %v gives it %v", p.name, s.Held, names, owned)
		}
		cached := s.Held
		if p.warm {
			cached = append(slices.Clone(s.Held), sharding.RunnerUpBuckets(names, p.name, nBuckets)...)
		}
		want := 0
		for _, b := range buckets {
			if slices.Contains(cached, b) {
				want++
			}
		}
		if s.Foos != want {
			return fmt.Sprintf("%s holds buckets %v, caches buckets %v (%d Foos) and caches %d Foos", p.name, s.Held, cached, want, s.Foos)
		}
		for _, b := range s.Held {
			if h, ok := holders[b]; ok {
				return fmt.Sprintf("bucket %d held by %s and %s", b, h, p.name)
			}
			holders[b] = p.name
		}
	}
	if len(holders) != nBuckets {
		return fmt.Sprintf("%d of %d buckets held", len(holders), nBuckets)
	}
	return ""
}

// waitProcShares waits until procShareReport finds nothing wrong.
func waitProcShares(tb testing.TB, live []*replicaProcess, buckets map[string]int) {
	tb.Helper()
	waitUntil(tb, scaledWait(len(buckets)), "the replicas to split the buckets and their Foos", func() string {
		return procShareReport(tb, live, buckets, sharding.DefaultBuckets)
	})
}

// scaledWait is how long a wait on foos Foos may take: wait, plus 10 ms a
// Foo for the benchmark's thousands.
func scaledWait(foos int) time.Duration { return wait + time.Duration(foos)*10*time.Millisecond }

// waitUntil polls check every 100 ms until it returns "", and fails tb with
// its last answer after d.
func waitUntil(tb testing.TB, d time.Duration, what string, check func() string) {
	tb.Helper()
	waitUntilEvery(tb, d, 100*time.Millisecond, what, check)
}

// waitReady waits until every one of the n Foos of ns is ready. Each check
// lists them all, so it polls less often the more there are: listing 20,000
// Foos every 100 ms would keep kube-apiserver busy with nothing else.
func waitReady(tb testing.TB, c *client.Client, ns string, n int) {
	tb.Helper()
	every := max(100*time.Millisecond, time.Duration(n)*100*time.Microsecond)
	waitUntilEvery(tb, scaledWait(n), every, "every Foo ready", func() string { return notReady(tb, c, ns) })
}

// waitUntilEvery is waitUntil polling every interval.
func waitUntilEvery(tb testing.TB, d, interval time.Duration, what string, check func() string) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for {
		report := check()
		if report == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s: %s", d, what, report)
		}
		time.Sleep(interval)
	}
}

// createFoos creates n Foos of one replica in ns, eight at a time, and
// returns key → bucket from the uids the server gave them.
func createFoos(tb testing.TB, c *client.Client, ns string, n int) map[string]int {
	tb.Helper()
	foos := c.Resource(sc.FoosGVR).Namespace(ns)
	var mu sync.Mutex
	buckets := map[string]int{}
	errs := make(chan error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				replicas := int32(1)
				obj, err := foos.Create(context.Background(), &sc.Foo{
					TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind},
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("foo-%05d", i), Namespace: ns},
					Spec:       sc.FooSpec{DeploymentName: fmt.Sprintf("dep-%05d", i), Replicas: &replicas},
				}, metav1.CreateOptions{})
				if err != nil {
					errs <- err
					continue
				}
				m, err := meta.Accessor(obj)
				if err != nil {
					errs <- err
					continue
				}
				mu.Lock()
				buckets[ns+"/"+m.GetName()] = sharding.BucketOf(m.GetUID(), sharding.DefaultBuckets)
				mu.Unlock()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(tb, err, "create a Foo")
	}
	return buckets
}

// notReady returns "" once every Foo of ns has its spec.replicas available,
// with Ready true for its current generation, or says how many have not.
func notReady(tb testing.TB, c *client.Client, ns string) string {
	list, err := c.Resource(sc.FoosGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(tb, err)
	items, err := meta.ExtractList(list)
	require.NoError(tb, err)
	var behind []string
	for _, obj := range items {
		foo := obj.(*sc.Foo)
		want := int32(1)
		if foo.Spec.Replicas != nil {
			want = *foo.Spec.Replicas
		}
		if !available(want)(foo, false) {
			behind = append(behind, foo.Name)
		}
	}
	if len(behind) == 0 {
		return ""
	}
	sort.Strings(behind)
	return fmt.Sprintf("%d of %d Foos not ready, first %s", len(behind), len(items), strings.Join(behind[:min(3, len(behind))], ", "))
}
