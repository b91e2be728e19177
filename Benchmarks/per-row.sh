#!/usr/bin/env bash
# What one row costs the client, not the wall time: an import of ROWS products (3 small photos
# each, the same three files) into a fresh local sandbox (no latency, so the client's own cost
# shows), under `strace -f -c` for the system calls and GNU time for CPU and peak memory.
# Prints syncs (fsync + fdatasync), futex, pwrite64, openat, unlink and fchown a row, CPU
# milliseconds a row (user + sys) and peak RSS. With BASE=REV, that revision's build on the same
# sheet right after (a git worktree under $WORK): the ratio shows in one run.
#   ROWS=500 BASE=a787f3f Benchmarks/per-row.sh
# Writes Benchmarks/results/per-row.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-500}
BASE=${BASE:-}
work=${WORK:-/tmp/openmarket-per-row}
mkdir -p "$work"
source scripts/lib/sandbox.sh
source scripts/lib/revision.sh
source scripts/lib/rows.sh
trap 'stop_sandboxes' EXIT
command -v strace >/dev/null || { echo "needs strace (apt install strace)" >&2; exit 1; }

bin=$(release_binary "")
base_bin=""
[ -z "$BASE" ] || base_bin=$(release_binary "$BASE")

sample_photos "$work"
product_sheet "$ROWS" "$work/import.csv" R "a.jpg;b.jpg;c.jpg"

row() { printf '| %-22s | %7s | %7s | %7s | %7s | %7s | %7s | %8s | %8s |\n' "$@"; }
per() { awk -v c="${1:-0}" -v n="$ROWS" 'BEGIN { printf "%.2f", c / n }'; }
calls() { awk -v s="$1" '$NF == s { n = $4 } END { print n + 0 }' "$work/strace.txt"; }

{
  echo "What a row costs the client: import of $ROWS products × 3 photos into a local sandbox, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "build" "syncs" "futex" "pwrite" "openat" "unlink" "fchown" "CPU ms" "peak MB"
  row "---" "---:" "---:" "---:" "---:" "---:" "---:" "---:" "---:"
  for build in "$bin" ${base_bin:+"$base_bin"}; do
    rm -rf "$work/data" "$work/state" "$work/report"
    start_sandbox "$bin" "$work/data"
    XDG_STATE_HOME="$work/state" strace -f -c -o "$work/strace.txt" /usr/bin/time -f "%U %S %M" -o "$work/time" \
      "$build" import "$work/import.csv" --server "$url" --identifier "$identifier" --secret "$secret" --jobs 4 --no-cache --quiet \
      --report "$work/report" >"$work/out" 2>&1 || true
    kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
    grep -q "$ROWS rows: $ROWS created" "$work/out" || { echo "the import did not make every row:" >&2; tail -5 "$work/out" >&2; }
    read -r user sys kb <"$work/time"
    syncs=$(( $(calls fsync) + $(calls fdatasync) ))
    label=$([ "$build" = "$bin" ] && echo "$(git rev-parse --short HEAD) (tree)" || echo "$BASE")
    # strace -f follows time's child: the counts are the import's (time itself makes a handful).
    row "$label" "$(per "$syncs")" "$(per "$(calls futex)")" "$(per "$(calls pwrite64)")" "$(per "$(calls openat)")" \
      "$(per "$(calls unlink)")" "$(per "$(calls fchown)")" "$(awk -v u="$user" -v s="$sys" -v n="$ROWS" 'BEGIN { printf "%.2f", (u + s) * 1000 / n }')" \
      "$(awk -v k="$kb" 'BEGIN { printf "%.0f", k / 1024 }')"
  done
  echo
  echo "Calls a row (strace -f -c); CPU is user + sys of the import under strace (strace slows system calls: compare rows, not absolute times)."
} | tee Benchmarks/results/per-row.md
