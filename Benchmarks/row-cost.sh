#!/usr/bin/env bash
# What a row costs the client as the sheet grows: an import of 2,000 and of 20,000 products
# (3 small photos each, the same three files) into a fresh local sandbox (no latency, so the
# client's own cost shows), without strace: client CPU milliseconds a row (user + sys), peak
# RSS, and products a second. ROUNDS runs of each (2), the median CPU and the highest peak.
# Memory should not follow the sheet: the 20,000-row peak over the 2,000-row one is the ratio
# that matters (#57: at most 1.25, and at most 300 MB). Syscalls a row: Benchmarks/per-row.sh.
#   Benchmarks/row-cost.sh        (SIZES="2000 20000" ROUNDS=2)
# Writes Benchmarks/results/row-cost.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-2000 20000}
ROUNDS=${ROUNDS:-2}
work=${WORK:-/tmp/openmarket-row-cost}
mkdir -p "$work"
source scripts/lib/sandbox.sh
source scripts/lib/revision.sh
source scripts/lib/rows.sh
trap 'stop_sandboxes' EXIT
bin=$(release_binary "")

sample_photos "$work"
row() { printf '| %-8s | %10s | %9s | %11s | %12s |\n' "$@"; }
{
  echo "What a row costs as the sheet grows: import of N products × 3 photos into a local sandbox, release build $(git rev-parse --short HEAD), $(nproc) cores, median of $ROUNDS, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "rows" "CPU ms/row" "peak MB" "products/s" "peak ÷ first"
  row "---:" "---:" "---:" "---:" "---:"
  first=""
  for n in $SIZES; do
    product_sheet "$n" "$work/import.csv" R "a.jpg;b.jpg;c.jpg"
    cpus=() rates=() peak=0
    for _ in $(seq "$ROUNDS"); do
      rm -rf "$work/data" "$work/state" "$work/report"
      start_sandbox "$bin" "$work/data"
      XDG_STATE_HOME="$work/state" /usr/bin/time -f "%U %S %M %e" -o "$work/time" \
        "$bin" import "$work/import.csv" --server "$url" --identifier "$identifier" --secret "$secret" --jobs 4 --no-cache --quiet \
        --report "$work/report" >"$work/out" 2>&1 || true
      kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
      grep -q "$n rows: $n created" "$work/out" || { echo "the import did not make every row:" >&2; tail -5 "$work/out" >&2; }
      read -r user sys kb wall <"$work/time"
      cpus+=("$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { printf "%.2f", (u + s) * 1000 / n }')")
      rates+=("$(awk -v w="$wall" -v n="$n" 'BEGIN { printf "%.0f", n / w }')")
      [ "$kb" -gt "$peak" ] && peak=$kb
    done
    median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
    mb=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
    [ -n "$first" ] || first=$mb
    row "$n" "$(median "${cpus[@]}")" "$mb" "$(median "${rates[@]}")" "$(awk -v a="$mb" -v b="$first" 'BEGIN { printf "%.2f", a / b }')"
  done
} | tee Benchmarks/results/row-cost.md
