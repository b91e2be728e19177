#!/usr/bin/env bash
# A sharded import side by side: ROWS products × 3 real photographs (15 Debian wallpapers,
# 1680–5640 px, each row a distinct triple; fetched once as Benchmarks/shrink.sh does) imported
# by 1, 2 and 4 `openmarket import --shard I/N --run R` processes at once into a sandbox whose
# every request takes LATENCY ms, the state in a throwaway PostgreSQL. Cold: no photo cache
# (every photo prepared); warm: the cache filled by an earlier run (what a second account of
# the same catalog, or a shard started again, finds). Wall time is the slowest shard's; CPU is
# user + system of all shards, per photo.
#   Benchmarks/shards.sh        ROWS=60 LATENCY=25 Benchmarks/shards.sh
# Writes Benchmarks/results/shards.md. Needs postgresql (scripts/install-deps --tests), runs as root or not.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-60}
LATENCY=${LATENCY:-25}
work=${WORK:-/tmp/openmarket-shards-bench}
rm -rf "$work/run" && mkdir -p "$work/run"
source scripts/lib/sandbox.sh

pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pg_dir="$work/run/pg"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() { as_pg "$pg_bin/pg_ctl" stop -D "$pg_dir/data" -m fast >/dev/null 2>&1 || true; stop_sandboxes; }
trap cleanup EXIT
mkdir -p "$pg_dir" && [ "$(id -u)" = 0 ] && chown postgres "$pg_dir"
as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U openmarket --auth=trust -E UTF8 --no-sync --locale=C >/dev/null
pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$pg_bin/pg_ctl" start -D "$pg_dir/data" -w -l "$pg_dir/log" -o "-p $pg_port -h 127.0.0.1 -k $pg_dir -c fsync=off" >/dev/null
state="postgresql://openmarket@127.0.0.1:$pg_port/postgres"

source scripts/lib/photos.sh
fetch_photos "$work/run" || exit 2
# Each row its own three photographs.
photo_sheet "$work/run/products.csv" "$ROWS" S "Shard product" || exit 2

swift build -c release --product openmarket >/dev/null
bin="$(swift build -c release --show-bin-path)/openmarket"

row() { printf '| %6s | %-5s | %8s | %8s | %10s | %14s | %-34s |\n' "$@"; }
measure() {  # shards cache → one row
  local n=$1 cache=$2 data="$work/run/data-$n-$cache" run="r$n-$cache-$RANDOM"
  start_sandbox "$bin" "$data" --latency "$LATENCY"
  local cache_args=(--no-cache) start end
  [ "$cache" = warm ] && cache_args=()
  start=$(date +%s.%N)
  local pids=()
  for i in $(seq 0 $((n - 1))); do
    HOME="$work/run/home-$run-$i" XDG_CACHE_HOME="$work/run/cache" /usr/bin/time -f "%U %S" -o "$work/run/time-$run-$i" \
      "$bin" import "$work/run/products.csv" --shard "$i/$n" --run "$run" --state "$state" "${cache_args[@]}" --quiet \
      --server "$url" --identifier "$identifier" --secret "$secret" --report "$work/run/report-$run-$i" >"$work/run/out-$run-$i" 2>&1 &
    pids+=($!)
  done
  # The shards only: a bare `wait` would wait for the sandbox too.
  wait "${pids[@]}"
  end=$(date +%s.%N)
  local wall cpu products
  wall=$(echo "$end - $start" | bc)
  cpu=$(cat "$work/run/time-$run-"* | awk '{ s += $1 + $2 } END { printf "%.2f", s }')
  products=$(curl -s "$url/api/products?page_no=1&items_per_page=1" | grep -o '"totalCount":[0-9]*' | cut -d: -f2)
  row "$n" "$cache" "$(printf %.2f "$wall")" "$(echo "scale=1; $ROWS / $wall" | bc)" "$cpu" \
    "$(echo "scale=3; $cpu / ($ROWS * 3)" | bc)" "$products products, $(grep -h -o '^[0-9]* rows' "$work/run/out-$run-"* | tr '\n' ' ')"
  kill "$sandbox_pid" 2>/dev/null || true
}

# The cache warmed once, outside the table (the same photographs, prepared for another sandbox).
start_sandbox "$bin" "$work/run/data-warmup"
HOME="$work/run/home-warmup" XDG_CACHE_HOME="$work/run/cache" "$bin" import "$work/run/products.csv" --quiet \
  --server "$url" --identifier "$identifier" --secret "$secret" --report "$work/run/report-warmup" >/dev/null 2>&1
kill "$sandbox_pid" 2>/dev/null || true

{
  echo "Sharded import of $ROWS products × 3 real photographs (1680–5640 px), sandbox latency $LATENCY ms a request, state in PostgreSQL, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "shards" "cache" "wall s" "rows/s" "CPU s" "CPU s / photo" "what the shards did"
  row "---:" "---" "---:" "---:" "---:" "---:" "---"
  for cache in cold warm; do
    for n in 1 2 4; do measure "$n" "$cache"; done
  done
} | tee Benchmarks/results/shards.md
