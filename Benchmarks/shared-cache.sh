#!/usr/bin/env bash
# The shared photo cache side by side: ROWS products × 3 real photographs (15 Debian wallpapers,
# 1680–5640 px, each row a distinct triple) imported into three shops, each from an empty home
# as a fresh pod has:
#   1. shop A with --cache s3://… (S3 on 127.0.0.1: moto, signatures checked): prepares every
#      photo and stores it there;
#   2. shop B with no shared cache: prepares every photo (what a second account costs today);
#   3. shop C with the shared cache: finds every photo there.
# CPU is user + system of the import. The goal (issue #44): 3 costs ≤ 0.3× the CPU of 2.
#   Benchmarks/shared-cache.sh        ROWS=60 Benchmarks/shared-cache.sh
# Writes Benchmarks/results/shared-cache.md. Needs moto[server] (scripts/install-deps --tests).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-60}
work=${WORK:-/tmp/openmarket-shared-cache-bench}
rm -rf "$work/run" && mkdir -p "$work/run"
source scripts/lib/sandbox.sh
source scripts/lib/photos.sh
fetch_photos "$work/run" || exit 2

moto_pid=
cleanup() { [ -n "$moto_pid" ] && kill "$moto_pid" 2>/dev/null || true; stop_sandboxes; }
trap cleanup EXIT
moto_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
INITIAL_NO_AUTH_ACTION_COUNT=4 moto_server -H 127.0.0.1 -p "$moto_port" >"$work/run/moto.log" 2>&1 &
moto_pid=$!
# Ready when it accepts a connection (a request would use up one of the unauthenticated calls).
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$moto_port") 2>/dev/null && break; sleep 0.1; done
# A user whose key signs every request (moto checks signatures after the first 4 calls), a bucket.
read -r key secret_key < <(python3 scripts/lib/s3-setup.py "http://127.0.0.1:$moto_port" openmarket-bench)
export AWS_ENDPOINT_URL="http://127.0.0.1:$moto_port" AWS_ACCESS_KEY_ID="$key" AWS_SECRET_ACCESS_KEY="$secret_key" AWS_REGION=us-east-1

# Each row its own three photographs.
photo_sheet "$work/run/products.csv" "$ROWS" C "Cached product" || exit 2

swift build -c release --product openmarket >/dev/null
bin="$(swift build -c release --show-bin-path)/openmarket"

row() { printf '| %-44s | %8s | %8s | %13s | %8s | %-60s |\n' "$@"; }
baseline=
measure() {  # label shop-name cache-args… → one row
  local label=$1 name=$2
  shift 2
  start_sandbox "$bin" "$work/run/shop-$name"
  local home="$work/run/home-$name" start end
  start=$(date +%s.%N)
  HOME="$home" XDG_CACHE_HOME="$home/cache" XDG_STATE_HOME="$home/state" XDG_CONFIG_HOME="$home/config" \
    /usr/bin/time -f "%U %S" -o "$work/run/time-$name" \
    "$bin" import "$work/run/products.csv" "$@" --quiet \
    --server "$url" --identifier "$identifier" --secret "$secret" --report "$work/run/report-$name" >"$work/run/out-$name" 2>&1
  end=$(date +%s.%N)
  local cpu wall ratio
  cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$work/run/time-$name")
  wall=$(echo "$end - $start" | bc)
  [ -z "$baseline" ] && [ "$name" = b ] && baseline=$cpu
  ratio="—"
  [ -n "$baseline" ] && ratio=$(echo "scale=3; $cpu / $baseline" | bc)
  row "$label" "$(printf %.2f "$wall")" "$cpu" "$(echo "scale=4; $cpu / ($ROWS * 3)" | bc)" "$ratio" \
    "$(grep -h -o -E '^[0-9]+ rows: [0-9]+ created|[0-9]+ found there, [0-9]+ prepared here and stored' "$work/run/out-$name" | paste -sd ';' -)"
  kill "$sandbox_pid" 2>/dev/null || true
}

{
  echo "Shared photo cache: $ROWS products × 3 real photographs (1680–5640 px), each import from an empty home, S3 = moto on 127.0.0.1 (signatures checked), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "import" "wall s" "CPU s" "CPU s / photo" "× B" "what it did"
  row "---" "---:" "---:" "---:" "---:" "---"
  measure "A: first account, --cache s3 (prepares, stores)" a --cache s3://openmarket-bench/photos
  measure "B: second account, no shared cache" b
  measure "C: third account, --cache s3 (finds them)" c --cache s3://openmarket-bench/photos
} | tee Benchmarks/results/shared-cache.md
