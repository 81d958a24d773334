package samplecontrollertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// startLeader starts one cmd/samplecontroller process with --leader-elect
// (and --warmup if warm) over the Foos of ns, its Lease in leaseNS, with the
// test Lease timings.
func startLeader(tb testing.TB, bin, kubeconfig, ns, leaseNS, name string, warm bool) *replicaProcess {
	tb.Helper()
	return startProcess(tb, name, bin, func(p *replicaProcess) []string {
		args := []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--simulate-deployments",
			"--leader-elect", "--identity", name, "--lease-namespace", leaseNS,
			"--lease-duration", procLeaseDuration.String(), "--renew-deadline", procRenewDeadline.String(), "--retry-period", procRetryPeriod.String(),
			"--journal", p.journal, "--stats", p.stats, "--log-level", "warn"}
		if warm {
			args = append(args, "--warmup")
		}
		return args
	})
}

// BenchmarkLeaderFailover measures a leader-elected cmd/samplecontroller's
// failover on kube-apiserver over -shard.foos Foos, cold (sources started
// when a replica wins) and warm (--warmup: started while it stands by).
// For each: a leader converges every Foo, a standby starts and fills its
// cache, the leader is SIGKILLed, and the standby's journal gives the time
// from the kill to its first reconcile (first-ms: LeaseDuration, a retry,
// and for a cold standby the start of its sources) and to the last Foo it
// reconciled (all-ms); its stats give its heap while standing by
// (standby-heap-MB). Lease 4 s, renew deadline 2 s, retry 500 ms.
// It runs once whatever b.N: run it with -benchtime 1x.
//
//	cd e2e/controlplane && go test ./samplecontrollertest -run '^$' -bench LeaderFailover -benchtime 1x -timeout 60m -shard.foos 20000
func BenchmarkLeaderFailover(b *testing.B) {
	bin := buildSampleController(b)
	cp := testenv.ControlPlane(b)
	testenv.InstallFooCRDOn(b, cp)
	ns := testenv.NamespaceOn(b, cp)
	c := testenv.ClientOf(b, cp, sc.NewScheme())
	created := time.Now()
	buckets := createFoos(b, c, ns, *benchFoos)
	b.Logf("created %d Foos in %v", len(buckets), time.Since(created).Round(time.Millisecond))
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

	for _, warm := range []bool{false, true} {
		mode := map[bool]string{false: "cold", true: "warm"}[warm]
		leaseNS := testenv.NamespaceOn(b, cp)
		leader := startLeader(b, bin, cp.KubeconfigPath, ns, leaseNS, mode+"-a", warm)
		waitUntil(b, scaledWait(len(buckets)), "the first replica to lead", func() string {
			if s, ok := leader.readStats(b); !ok || !s.Leading {
				return "not leading yet"
			}
			return ""
		})
		waitReady(b, c, ns, len(buckets))
		standby := startLeader(b, bin, cp.KubeconfigPath, ns, leaseNS, mode+"-b", warm)
		var heap uint64
		waitUntil(b, scaledWait(len(buckets)), "the standby's cache to fill", func() string {
			s, ok := standby.readStats(b)
			if !ok || s.Foos < len(buckets) || s.Deployments < len(buckets) {
				return fmt.Sprintf("standby caches %d Foos, %d Deployments", s.Foos, s.Deployments)
			}
			require.False(b, s.Leading, "the second replica stands by")
			heap = s.HeapLiveBytes
			return ""
		})
		time.Sleep(2 * time.Second) // a warm standby's queue fills from its cache
		s, _ := standby.readStats(b)
		heap = max(heap, s.HeapLiveBytes)

		killed := time.Now()
		leader.kill(b)
		var first, last int64
		waitUntil(b, scaledWait(len(buckets)), "the standby to reconcile every Foo", func() string {
			seen := map[string]bool{}
			first, last = 0, 0
			for _, run := range standby.readJournal(b) {
				if !run.OK || run.End <= killed.UnixNano() {
					continue
				}
				seen[run.Key] = true
				if first == 0 || run.End < first {
					first = run.End
				}
				last = max(last, run.End)
			}
			if len(seen) < len(buckets) {
				return fmt.Sprintf("%d of %d Foos reconciled by the new leader", len(seen), len(buckets))
			}
			return ""
		})
		firstAfter, lastAfter := time.Duration(first-killed.UnixNano()), time.Duration(last-killed.UnixNano())
		b.Logf("%s: %d Foos: the standby (heap %.1f MB) reconciled its first Foo %v after the leader's SIGKILL and its last %v after",
			mode, len(buckets), float64(heap)/1e6, firstAfter.Round(time.Millisecond), lastAfter.Round(time.Millisecond))
		b.ReportMetric(ms(firstAfter), mode+"-first-ms")
		b.ReportMetric(ms(lastAfter), mode+"-all-ms")
		b.ReportMetric(float64(heap)/1e6, mode+"-standby-heap-MB")
		standby.stop(b)
	}
	b.ReportMetric(0, "ns/op")
}
