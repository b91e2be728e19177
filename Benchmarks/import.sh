#!/usr/bin/env bash
# openmarket import of 500 products with 3 already-small images each into a sandbox on this
# machine, at --jobs 1, 4 and 8, side by side with a shell peer that posts the same rows with
# curl -F through xargs -P 8; then peak RSS of a 50,000-row dry run, to show memory stays flat.
# Writes Benchmarks/results/import.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-500}
BIG=${BIG:-50000}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT
swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)/openmarket

# Three small photos (under the limit: uploaded as they are).
cp samples/images/TEA-003/1.jpg "$work/a.jpg"
cp samples/images/SNK-002/1.jpg "$work/b.jpg"
cp samples/images/TEA-004/1.jpg "$work/c.jpg"
manifest() {  # rows file
  awk -v n="$1" 'BEGIN { print "key,name,price,currency,stock,images"
    for (i = 1; i <= n; i++) printf "B%d,Benchmark product %d,%d,KRW,%d,a.jpg;b.jpg;c.jpg\n", i, i, 1000 + i, i % 9 }' >"$2"
}
count() { curl -s "$1/api/products?items_per_page=1" | grep -o '"totalCount":[0-9]*' | cut -d: -f2; }

manifest "$ROWS" "$work/products.csv"
row() { printf '| %-34s | %6s | %8s | %10s | %12s | %9s |\n' "$@"; }
{
  echo "Import of $ROWS products × 3 small images into a local sandbox, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "client" "rows" "seconds" "products/s" "peak RSS MB" "on server"
  row "---" "---:" "---:" "---:" "---:" "---:"
  for jobs in 1 4 8; do
    start_sandbox "$bin" "$work/data-$jobs"
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" import "$work/products.csv" --server "$url" --identifier "$identifier" \
      --secret "$secret" --jobs "$jobs" --no-cache --quiet --report "$work/report-$jobs" --journal "$work/journal-$jobs" >/dev/null 2>&1
    read -r seconds kb <"$work/time"
    row "openmarket import --jobs $jobs" "$ROWS" "$seconds" "$(awk -v n="$ROWS" -v s="$seconds" 'BEGIN{printf "%.1f", n/s}')" \
      "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')" "$(count "$url")"
  done
  start_sandbox "$bin" "$work/data-peer"
  awk -F, -v s="$secret" 'NR > 1 { printf "{\"name\":\"%s\",\"description\":\"\",\"price\":%s,\"currency\":\"%s\",\"stock\":%s,\"secret\":\"%s\"}\n", $2, $3, $4, $5, s }' \
    "$work/products.csv" >"$work/params"
  start=$(date +%s.%N)
  xargs -P 8 -d '\n' -I{} curl -s -o /dev/null -H "identifier: $identifier" -F "params={};type=application/json" \
    -F "images=@$work/a.jpg" -F "images=@$work/b.jpg" -F "images=@$work/c.jpg" "$url/api/products" <"$work/params"
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
  row "curl -F through xargs -P 8" "$ROWS" "$seconds" "$(awk -v n="$ROWS" -v s="$seconds" 'BEGIN{printf "%.1f", n/s}')" "n/a" "$(count "$url")"
  echo
  echo "Peak RSS of a dry run (validation, photo preparation, no writes):"
  echo
  printf '| %8s | %8s | %12s |\n' "rows" "seconds" "peak RSS MB"
  printf '| %8s | %8s | %12s |\n' "---:" "---:" "---:"
  for n in "$ROWS" "$BIG"; do
    manifest "$n" "$work/dry.csv"
    start_sandbox "$bin" "$work/data-dry-$n"
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" import "$work/dry.csv" --server "$url" --identifier "$identifier" --secret "$secret" \
      --dry-run --no-cache --quiet --report "$work/report-dry-$n" --journal "$work/journal-dry-$n" >/dev/null 2>&1
    read -r seconds kb <"$work/time"
    printf '| %8s | %8s | %12s |\n' "$n" "$seconds" "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')"
  done
} | tee Benchmarks/results/import.md
