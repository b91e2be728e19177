#!/usr/bin/env bash
# GET /api/products/{id} per second against the sandbox: openmarket's libcurl
# client (one share handle, N threads) side by side with curl through xargs -P,
# in the same run, on the same URLs. Prints a table and writes it to
# Benchmarks/results/client-throughput.md.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${REQUESTS:-3000}
PRODUCTS=${PRODUCTS:-100}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT

swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)
# The driver lives in the benchmarks package (Benchmarks/Package.swift).
swift build -c release --package-path Benchmarks --product openmarket-bench-client >/dev/null
bench_bin=$(swift build -c release --package-path Benchmarks --show-bin-path)

start_sandbox "$bin/openmarket" "$work/data"

# A catalog of small products to read back.
printf '\xff\xd8\xff\xe0fake-but-jpeg-by-magic' >"$work/a.jpg"
for i in $(seq "$PRODUCTS"); do
  curl -s -H "identifier: $identifier" \
    -F "params={\"name\":\"Bench product $i\",\"description\":\"d\",\"price\":1000,\"currency\":\"KRW\",\"secret\":\"$secret\"};type=application/json" \
    -F "images=@$work/a.jpg" "$url/api/products" | grep -o '"id":[0-9]*,"images"' | grep -o '[0-9]*' >>"$work/ids"
done
for i in $(seq "$REQUESTS"); do sed -n "$(( (i - 1) % PRODUCTS + 1 ))p" "$work/ids"; done >"$work/ids-all"
sed "s|^|$url/api/products/|" "$work/ids-all" >"$work/urls"

row() { printf '| %-34s | %7s | %9s | %8s | %11s |\n' "$@"; }
{
  echo "Client throughput, GET detail, $REQUESTS requests over $PRODUCTS products, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "client" "workers" "seconds" "req/s" "connections"
  row "---" "---:" "---:" "---:" "---:"
  for workers in 1 4 16; do
    read -r done seconds connections < <("$bench_bin/openmarket-bench-client" "$url" "$work/ids" "$workers" "$REQUESTS")
    row "openmarket (libcurl, shared)" "$workers" "$(printf %.2f "$seconds")" "$(awk -v n="$done" -v s="$seconds" 'BEGIN{printf "%d", n/s}')" "$connections"
    for batch in 1 50; do
      start=$(date +%s.%N)
      xargs -P "$workers" -n "$batch" curl -s <"$work/urls" >/dev/null
      end=$(date +%s.%N)
      seconds=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b-a}')
      label="curl via xargs -P (-n $batch)"
      [ "$batch" = 1 ] && conns="$REQUESTS" || conns="~$(( REQUESTS / batch ))"
      row "$label" "$workers" "$(printf %.2f "$seconds")" "$(awk -v n="$REQUESTS" -v s="$seconds" 'BEGIN{printf "%d", n/s}')" "$conns"
    done
  done
} | tee Benchmarks/results/client-throughput.md
