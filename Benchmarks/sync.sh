#!/usr/bin/env bash
# Sync of a 10,000-row sheet in which 1 % of the rows changed (a price each), against a
# sandbox on this machine, side by side with what a tool without sync does: send every row
# again (a full re-import into a fresh account, --mode create). Requests are counted by the
# sandbox (GET /sandbox/requests), by method. Also: a sync of the unchanged sheet.
# Writes Benchmarks/results/sync.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000}
CHANGED=${CHANGED:-$((ROWS / 100))}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT
swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)/openmarket
export XDG_STATE_HOME="$work/state"

cp samples/images/TEA-003/1.jpg "$work/a.jpg"
manifest() {  # rows changed file: the first `changed` rows have a new price
  awk -v n="$1" -v c="$2" 'BEGIN { print "key,name,price,currency,stock,images"
    for (i = 1; i <= n; i++) printf "S%d,Sync product %d,%d,KRW,%d,a.jpg\n", i, i, (i <= c ? 1100 : 1000) + i, i % 9 }' >"$3"
}
requests() { curl -s "$url/sandbox/requests"; }
method() { echo "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2 || true; }
delta() { local a b; a=$(method "$1" "$3"); b=$(method "$2" "$3"); echo $(( ${b:-0} - ${a:-0} )); }
row() { printf '| %-44s | %6s | %8s | %6s | %6s | %6s | %9s |\n' "$@"; }
run() {  # label file extra-args...
  local label=$1 file=$2; shift 2
  local before after
  before=$(requests)
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" import "$file" --server "$url" --identifier "$identifier" \
    --secret "$secret" --no-cache --quiet --report "$work/report-$RANDOM" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  after=$(requests)
  read -r seconds kb <"$work/time"
  row "$label" "$(tail -n +1 "$work/out" | grep -o '^[0-9]* rows' | cut -d' ' -f1)" "$seconds" "$(delta "$before" "$after" GET)" \
    "$(delta "$before" "$after" POST)" "$(delta "$before" "$after" PATCH)" "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')"
  grep -o '^[0-9]* rows: .*' "$work/out" >>"$work/summaries"
}

manifest "$ROWS" 0 "$work/products.csv"
manifest "$ROWS" "$CHANGED" "$work/edited.csv"
{
  echo "Sync of $ROWS rows ($CHANGED changed) against a local sandbox, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "run" "rows" "seconds" "GET" "POST" "PATCH" "peak RSS MB"
  row "---" "---:" "---:" "---:" "---:" "---:" "---:"
  start_sandbox "$bin" "$work/data"
  run "first import (creates every product)" "$work/products.csv"
  run "sync, sheet unchanged (another file name)" "$work/products.csv" --journal "$work/other-journal"
  run "sync, $CHANGED rows with a new price" "$work/edited.csv"
  start_sandbox "$bin" "$work/data-full"
  run "full re-import: every row sent (--mode create)" "$work/edited.csv" --mode create
  echo
  echo "Summaries, in order:"
  echo
  sed 's/^/    /' "$work/summaries"
} | tee Benchmarks/results/sync.md
