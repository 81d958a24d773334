package samplecontrollertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// BenchmarkShardTakeover measures, on kube-apiserver with the gate on and off, where
// a SIGKILLed replica's takeover time goes: three cmd/samplecontroller
// replicas share -shard.foos Foos (Lease 4 s, renew deadline 2 s, retry
// 500 ms), one is killed, and the survivors' journals give, for the killed
// replica's Foos, the first reconcile by a survivor after the kill
// (first-ms: LeaseDuration, a retry period, and the relist of the widened
// share, or with --warm-buckets the confirming list of the gained buckets)
// and the last (takeover-ms: the first plus the reconciles). The bound
// docs/sharding.md sets is takeover-ms ≤ LeaseDuration + 2 s. On each
// plane (gate on, gate off) the replicas run cold, then warm
// (--warm-buckets) over the same Foos; heap-MB is the largest live heap of
// the three before the kill; -shard.modes picks the planes and modes to
// run. It runs once whatever b.N: run it with -benchtime 1x.
//
//	cd e2e/controlplane && go test ./samplecontrollertest -run '^$' -bench ShardTakeover -benchtime 1x -timeout 60m -shard.foos 20000
func BenchmarkShardTakeover(b *testing.B) {
	bin := buildSampleController(b)
	for _, p := range bothPlanes(b) {
		if !strings.Contains(*benchModes, p.name+"/") {
			continue
		}
		ns := testenv.NamespaceOn(b, p.cp)
		c := testenv.ClientOf(b, p.cp, sc.NewScheme())
		created := time.Now()
		buckets := createFoos(b, c, ns, *benchFoos)
		b.Logf("%s: created %d Foos in %v", p.name, *benchFoos, time.Since(created).Round(time.Millisecond))

		for _, mode := range []struct {
			name  string
			flags []string
		}{{"cold", nil}, {"warm", []string{"--warm-buckets"}}} {
			if !slices.Contains(strings.Split(*benchModes, ","), p.name+"/"+mode.name) {
				continue
			}
			var took, first []time.Duration
			var heap uint64
			for k := range *benchKills {
				to := killTakeover(b, procRing{bin, p.cp.KubeconfigPath, ns, fmt.Sprintf("take-%s-%d", mode.name, k)}, c, buckets, mode.flags...)
				earliest := firstReconcileOfLost(to)
				b.Logf("%s, %s, kill %d: %d Foos taken over: the first reconciled by a survivor %v after the kill, the last %v; largest heap before the kill %.1f MB",
					p.name, mode.name, k, len(to.lost), earliest.Round(time.Millisecond), to.took.Round(time.Millisecond), float64(to.heap)/1e6)
				took, first = append(took, to.took), append(first, earliest)
				heap = max(heap, to.heap)
			}
			slices.Sort(took)
			slices.Sort(first)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			prefix := p.name + "-" + mode.name
			b.ReportMetric(ms(took[len(took)/2]), prefix+"-takeover-ms")
			b.ReportMetric(ms(first[len(first)/2]), prefix+"-first-ms")
			b.ReportMetric(float64(heap)/1e6, prefix+"-heap-MB")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// firstReconcileOfLost is how long after the kill a survivor first
// reconciled one of the killed replica's Foos.
func firstReconcileOfLost(to killResult) time.Duration {
	isLost := map[string]bool{}
	for _, key := range to.lost {
		isLost[key] = true
	}
	earliest := time.Duration(0)
	for _, run := range to.runs {
		if run.OK && isLost[run.Key] && run.End > to.killed.UnixNano() {
			if at := time.Duration(run.End - to.killed.UnixNano()); earliest == 0 || at < earliest {
				earliest = at
			}
		}
	}
	return earliest
}
