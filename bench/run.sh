#!/usr/bin/env bash
# Runs the side-by-side benchmarks (informerlab against client-go) and prints
# benchstat's table: one row per scenario, client-go as the base column,
# informerlab's change against it in the "vs base" column.
#
#   ./run.sh                         # 5 passes, -benchtime 200ms, every benchmark (~18 min)
#   COUNT=10 ./run.sh                # more samples, tighter intervals
#   BENCH='Workqueue|Indexer' ./run.sh
#   BENCH_SMOKE=1 ./run.sh           # 100,000-object scenarios cut to 10,000
#   BENCH_LARGE=1 ./run.sh           # the Scale curves go on to 1,000,000 objects
#
# COUNT passes over the suite, one sample of every benchmark each. The raw
# results go to $OUT (default results.txt beside this script); rerun
# benchstat on them with: benchstat -col '/impl@(clientgo ours)' results.txt
# When the Scale benchmarks ran, cmd/charts redraws charts/*.svg from them.
set -euo pipefail
cd "$(dirname "$0")"

COUNT=${COUNT:-5}
BENCHTIME=${BENCHTIME:-200ms}
BENCH=${BENCH:-.}
OUT=${OUT:-results.txt}
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da

export PATH="$(go env GOPATH)/bin:$PATH"
if ! go version -m "$(command -v benchstat || echo /nonexistent)" 2>/dev/null | grep -q "$BENCHSTAT_VERSION"; then
  go install "golang.org/x/perf/cmd/benchstat@${BENCHSTAT_VERSION}"
fi

{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(go version | cut -d' ' -f3-)"
  echo "# cpus: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
# One test binary, run COUNT times over the whole suite rather than with
# -count: the samples of ours and client-go interleave, so a neighbour's load
# on a shared machine falls on both instead of on one block of samples.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/bench.test" .
for i in $(seq "$COUNT"); do
  echo "# pass $i of $COUNT, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT"
  "$bin/bench.test" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" \
    -test.benchmem -test.timeout 60m | tee -a "$OUT"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"

echo
benchstat -col '/impl@(clientgo ours)' "$OUT"

if grep -q '^BenchmarkScale' "$OUT"; then
  echo
  go run ./cmd/charts -in "$OUT" -out charts
fi
