#!/usr/bin/env bash
# A big catalog at a distance, end to end: N products (100,000 by default) imported into a fresh
# sandbox 50 ms away (Benchmarks/delay-proxy.py in front of it: every request pays the round
# trip), then the same sheet again (an unchanged re-run: the shop read, every row compared,
# nothing sent), a 100-row price edit, an export of the shop with its photos, and the export
# imported back (nothing to send). Each step's wall time, rows per second and peak RSS (GNU time).
# With BASE=REV, the unchanged re-run and the export are run by that revision's build too (a git
# worktree under $COMPARE, /tmp/openmarket-compare), on the same shop (its export after the re-import, one export
# on disk at a time): the ratio shows in one run.
#   Benchmarks/scale.sh                 (N=100000 RTT=50; JOBS=N fixes --jobs, default: adaptive)
#   N=20000 BASE=d527670 Benchmarks/scale.sh
# Writes Benchmarks/results/scale.md (scale-N.md when N is not 100,000).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
RTT=${RTT:-50}
JOBS=${JOBS:-}
BASE=${BASE:-}
work=${WORK:-/tmp/openmarket-scale}
rm -rf "$work/run" && mkdir -p "$work/run"
run="$work/run"
source scripts/lib/sandbox.sh
proxy_pid=""
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; stop_sandboxes; }
trap cleanup EXIT

swift build -c release --product openmarket >/dev/null
bin="$(swift build -c release --show-bin-path)/openmarket"
base_bin=""
if [ -n "$BASE" ]; then
  source scripts/lib/revision.sh
  base_bin=$(work=${COMPARE:-/tmp/openmarket-compare} && mkdir -p "$work" && release_binary "$BASE")
fi

cp samples/images/TEA-003/1.jpg "$run/photo.jpg"
awk -v n="$N" 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= n; i++) printf "SC%07d,Scale product %d,%d,KRW,%d,photo.jpg\n", i, i, 1000 + i % 900, i % 50 }' >"$run/products.csv"
# The same sheet with 100 prices changed (every N/100th row).
awk -v n="$N" -F, 'BEGIN { OFS = "," } NR > 1 && (NR - 1) % int(n / 100) == 0 { $3 = $3 + 7 } { print }' \
  "$run/products.csv" >"$run/edited.csv"

start_sandbox "$bin" "$run/data"
python3 Benchmarks/delay-proxy.py 0 "${url##*:}" "$RTT" "$run/connections" >"$run/proxy.log" 2>&1 &
proxy_pid=$!
for _ in $(seq 50); do grep -q port "$run/proxy.log" && break; sleep 0.1; done
far="http://127.0.0.1:$(awk '/port/ { print $2 }' "$run/proxy.log")"
shop=(--server "$far" --identifier "$identifier" --secret "$secret" --quiet)
export XDG_STATE_HOME="$run/state" XDG_CACHE_HOME="$run/cache"

results="$run/rows.txt"
: >"$results"
step() {  # label rows binary args… → one line of the table
  local label=$1 rows=$2 binary=$3 status=0; shift 3
  /usr/bin/time -f "%e %M" -o "$run/time" "$binary" "$@" >"$run/step.log" 2>&1 || status=$?
  # GNU time puts "Command exited with non-zero status N" before its line when the step fails.
  read -r seconds peak < <(tail -1 "$run/time")
  local summary
  summary=$(grep -E '^[0-9,]+ rows?:|^Exported|products? written|^Wrote' "$run/step.log" | head -1)
  [ "$status" = 0 ] || summary="FAILED (exit $status): $(tail -1 "$run/step.log")"
  # Cut at 60 characters, not bytes: a cut through a Korean letter or a dash is no longer UTF-8.
  summary=$(printf '%s' "$summary" | python3 -c 'import sys; print(sys.stdin.read()[:60])')
  printf '| %-34s | %8s | %8.1f | %9.0f | %8.1f | %s |\n' "$label" "$rows" "$seconds" \
    "$(awk -v n="$rows" -v s="$seconds" 'BEGIN { print (s > 0 ? n / s : 0) }')" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$summary" | tee -a "$results"
}

printf '| %-34s | %8s | %8s | %9s | %8s | %s |\n' step rows seconds "rows/s" "peak MB" "summary"
printf '| %-34s | %8s | %8s | %9s | %8s | %s |\n' --- ---: ---: ---: ---: ---
step "import (first)" "$N" "$bin" import "$run/products.csv" "${shop[@]}" ${JOBS:+--jobs $JOBS} --report "$run/r1"
step "unchanged re-run" "$N" "$bin" import "$run/products.csv" "${shop[@]}" ${JOBS:+--jobs $JOBS} --report "$run/r2"
if [ -n "$base_bin" ]; then
  # The base build keeps its own state (its link store is read, never written by this one).
  cp -r "$run/state" "$run/state-base"
  XDG_STATE_HOME="$run/state-base" step "unchanged re-run ($BASE)" "$N" "$base_bin" import "$run/products.csv" "${shop[@]}" ${JOBS:+--jobs $JOBS} --report "$run/r2b"
fi
step "100-row edit" "$N" "$bin" import "$run/edited.csv" "${shop[@]}" ${JOBS:+--jobs $JOBS} --report "$run/r3"
# One export on disk at a time: at 100,000 products an export's photos are about 10 GB, beside the
# sandbox's own 13 GB (two exports at once filled a disk with 24 GB free).
step "export with photos" "$N" "$bin" export --out "$run/export" "${shop[@]}" ${JOBS:+--jobs $JOBS}
sheet=$(find "$run/export" -maxdepth 1 \( -name "*.csv" -o -name "*.xlsx" \) | head -1)
step "re-import of the export" "$N" "$bin" import "$sheet" "${shop[@]}" ${JOBS:+--jobs $JOBS} --report "$run/r4"
rm -rf "$run/export"
if [ -n "$base_bin" ]; then
  XDG_STATE_HOME="$run/state-base" step "export with photos ($BASE)" "$N" "$base_bin" export --out "$run/export-base" "${shop[@]}" ${JOBS:+--jobs $JOBS}
  rm -rf "$run/export-base"
fi

name=scale.md
[ "$N" = 100000 ] || name="scale-$N.md"
{
  echo "openmarket at a big catalog's scale: $N products, the sandbox ${RTT} ms away (delay proxy), --jobs ${JOBS:-adaptive}, release build, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  printf '| %-34s | %8s | %8s | %9s | %8s | %s |\n' step rows seconds "rows/s" "peak MB" "summary"
  printf '| %-34s | %8s | %8s | %9s | %8s | %s |\n' --- ---: ---: ---: ---: ---
  cat "$results"
} >"Benchmarks/results/$name"
echo "Written: Benchmarks/results/$name"
