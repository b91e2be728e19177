#!/usr/bin/env bash
# Export at the import's pace: ROWS products × 3 photos imported into a sandbox that answers
# after LATENCY ms (50), then the same catalog exported with its photos (--images originals), by
# the same build, ROUNDS times (2). #57's bar: the export takes at most 1.2× the import.
#   Benchmarks/export-vs-import.sh      (ROWS=1000 LATENCY=50 ROUNDS=2)
# Writes Benchmarks/results/export-vs-import.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000}
LATENCY=${LATENCY:-50}
ROUNDS=${ROUNDS:-2}
work=${WORK:-/tmp/openmarket-export-vs-import}
rm -rf "$work"; mkdir -p "$work"
source scripts/lib/sandbox.sh
source scripts/lib/revision.sh
source scripts/lib/rows.sh
trap 'stop_sandboxes' EXIT
bin=$(release_binary "")
sample_photos "$work"
product_sheet "$ROWS" "$work/import.csv" E "a.jpg;b.jpg;c.jpg"
row() { printf '| %5s | %10s | %10s | %8s | %14s |\n' "$@"; }
{
  echo "$ROWS products × 3 photos at $LATENCY ms a request: import, then export of the same catalog with its photos; release build $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "round" "import s" "export s" "ratio" "export peak MB"
  row "---:" "---:" "---:" "---:" "---:"
  for round in $(seq "$ROUNDS"); do
    rm -rf "$work/data" "$work/state" "$work/report" "$work/out"
    start_sandbox "$bin" "$work/data" --latency "$LATENCY"
    start=$(date +%s.%N)
    XDG_STATE_HOME="$work/state" "$bin" import "$work/import.csv" --server "$url" --identifier "$identifier" --secret "$secret" \
      --no-cache --quiet --report "$work/report" >"$work/import.out" 2>&1 || true
    import_s=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    grep -q "$ROWS rows: $ROWS created" "$work/import.out" || { echo "the import did not make every row:" >&2; tail -3 "$work/import.out" >&2; }
    start=$(date +%s.%N)
    XDG_STATE_HOME="$work/state" /usr/bin/time -f "%M" -o "$work/time" "$bin" export --out "$work/out" --images originals \
      --server "$url" --identifier "$identifier" --secret "$secret" --quiet >"$work/export.out" 2>&1 || true
    export_s=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    photos=$(find "$work/out" -type f \( -name '*.jpg' -o -name '*.png' \) | wc -l)
    [ "$photos" -ge $((ROWS * 3)) ] || { echo "the export has $photos photos for $ROWS × 3:" >&2; tail -3 "$work/export.out" >&2; }
    kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
    row "$round" "$import_s" "$export_s" "$(awk -v a="$export_s" -v b="$import_s" 'BEGIN { printf "%.2f", a / b }')" \
      "$(awk -v k="$(cat "$work/time")" 'BEGIN { printf "%.0f", k / 1024 }')"
  done
  echo
  echo "Export: $(tail -2 "$work/export.out" | head -1)"
} | tee Benchmarks/results/export-vs-import.md
