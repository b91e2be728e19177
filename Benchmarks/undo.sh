#!/usr/bin/env bash
# Undo against import, side by side: an import of ROWS products (one photo each) into a
# sandbox whose every request takes LATENCY ms, then `undo` of that run (every product
# deleted), timed alike. With BASE=REV, the same two steps with that revision's build too
# (a git worktree under $WORK), so that the ratio before and after shows in one run. ROUNDS
# times each, alternating the builds.
#   Benchmarks/undo.sh            ROWS=200 LATENCY=25 ROUNDS=3 BASE=d0baf6a Benchmarks/undo.sh
# Writes Benchmarks/results/undo.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-200}
LATENCY=${LATENCY:-25}
BASE=${BASE:-}
ROUNDS=${ROUNDS:-1}
work=${WORK:-/tmp/openmarket-undo-bench}
rm -rf "$work/run" && mkdir -p "$work/run"
source scripts/lib/sandbox.sh
source scripts/lib/revision.sh
trap 'stop_sandboxes' EXIT


cp samples/images/TEA-003/1.jpg "$work/run/a.jpg"
awk -v n="$ROWS" 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= n; i++) printf "U%d,Undo product %d,%d,KRW,%d,a.jpg\n", i, i, 1000 + i, i % 9 }' >"$work/run/products.csv"

row() { printf '| %-22s | %8s | %8s | %7s | %-40s |\n' "$@"; }
measure() {  # label bin → one table row per step
  local label=$1 bin=$2 data="$work/run/data-$RANDOM" state="$work/run/state-$RANDOM" report="$work/run/report-$RANDOM"
  start_sandbox "$bin" "$data" --latency "$LATENCY"
  local start end import_s undo_s
  start=$(date +%s.%N)
  XDG_STATE_HOME="$state" "$bin" import "$work/run/products.csv" --server "$url" --identifier "$identifier" --secret "$secret" \
    --no-cache --quiet --report "$report" >"$work/run/import.out" 2>&1 || { cat "$work/run/import.out" >&2; exit 1; }
  end=$(date +%s.%N)
  import_s=$(echo "$end - $start" | bc)
  start=$(date +%s.%N)
  XDG_STATE_HOME="$state" "$bin" undo "$report" --server "$url" --identifier "$identifier" --secret "$secret" \
    --quiet >"$work/run/undo.out" 2>&1 || { cat "$work/run/undo.out" >&2; exit 1; }
  end=$(date +%s.%N)
  undo_s=$(echo "$end - $start" | bc)
  left=$(curl -s "$url/api/products?page_no=1&items_per_page=1" | grep -o '"totalCount":[0-9]*' | cut -d: -f2)
  row "$label" "$(printf %.2f "$import_s")" "$(printf %.2f "$undo_s")" "$(echo "scale=2; $undo_s / $import_s" | bc)" \
    "$(grep -o '^[0-9]* rows: .*' "$work/run/undo.out" | head -1 | cut -c1-40) (left: $left)"
  kill "$sandbox_pid" 2>/dev/null || true
}

bin=$(release_binary "")
base_bin=""
[ -n "$BASE" ] && base_bin=$(release_binary "$BASE")
{
  echo "Import of $ROWS products (one photo each) and undo of that run, sandbox latency $LATENCY ms a request, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "build" "import s" "undo s" "undo ÷ import" "undo's summary"
  row "---" "---:" "---:" "---:" "---"
  for _ in $(seq "$ROUNDS"); do
    [ -n "$base_bin" ] && measure "$(git rev-parse --short "$BASE")" "$base_bin"
    measure "$(git rev-parse --short HEAD) (tree)" "$bin"
  done
} | tee Benchmarks/results/undo.md
