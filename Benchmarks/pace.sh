#!/usr/bin/env bash
# The server's pace, found: openmarket import with its default (the number of writes in flight
# found while the run goes) against sandboxes that push back, side by side with fixed --jobs:
#   - a server that allows R requests a second (sandbox --rate-limit R: 429 with Retry-After);
#   - a busy server that serves W requests at once, L ms each (sandbox --workers W --latency L):
#     more in flight only queues, so its best throughput needs about W in flight.
# N products with one small photo each, release build, loopback.
#   Benchmarks/pace.sh          (N=200 R=20 W=4 L=40)
# Writes Benchmarks/results/pace.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
R=${R:-20}
W=${W:-4}
L=${L:-40}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT
swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)/openmarket
cp samples/images/TEA-003/1.jpg "$work/p.jpg"
awk -v n="$N" 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= n; i++) printf "P%d,Paced product %d,%d,KRW,%d,p.jpg\n", i, i, 1000 + i, i % 9 }' >"$work/products.csv"

start() {  # sandbox options… → a fresh sandbox with those faults
  start_sandbox "$bin" "$work/data-$RANDOM" "$@"
}
run() {  # label jobs-flag… → a row: seconds, products/s, failed rows, in flight
  local label=$1; shift
  local started ended seconds summary
  started=$(date +%s.%N)
  XDG_STATE_HOME="$work/state-$RANDOM" "$bin" import "$work/products.csv" --server "$url" --identifier "$identifier" \
    --secret "$secret" --no-cache --quiet --report "$work/report-$RANDOM" "$@" >"$work/run.log" 2>&1 || true
  ended=$(date +%s.%N)
  seconds=$(awk -v a="$started" -v b="$ended" 'BEGIN{printf "%.2f", b-a}')
  summary=$(grep -E '^[0-9]+ rows?:' "$work/run.log" | head -1 || true)
  failed=$(echo "$summary" | grep -o '[0-9]* failed' | cut -d' ' -f1 || true)
  flight=$(echo "$summary" | grep -o '[0-9–]* in flight' || true)
  printf '| %-46s | %8s | %10s | %6s | %-16s |\n' "$label" "$seconds" "$(awk -v n="$N" -v s="$seconds" 'BEGIN{printf "%.1f", n/s}')" \
    "${failed:-0}" "${flight:-?}"
  kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
}
{
  echo "openmarket import of $N products × 1 photo against servers that push back, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  printf '| %-46s | %8s | %10s | %6s | %-16s |\n' "server, client" "seconds" "products/s" "failed" "in flight"
  printf '| %-46s | %8s | %10s | %6s | %-16s |\n' "---" "---:" "---:" "---:" "---"
  start --rate-limit "$R"; run "--rate-limit $R; default (found)"
  start --rate-limit "$R"; run "--rate-limit $R; --jobs 8" --jobs 8
  for jobs in 2 4 8 16; do
    start --workers "$W" --latency "$L"; run "--workers $W --latency $L; --jobs $jobs" --jobs "$jobs"
  done
  start --workers "$W" --latency "$L"; run "--workers $W --latency $L; default (found)"
  start; run "no limit (loopback); default (found)"
} | tee Benchmarks/results/pace.md
