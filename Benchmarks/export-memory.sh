#!/usr/bin/env bash
# Does an export's memory grow with the shop? One sandbox, seeded to each of SIZES products
# (default "5000 40000") with a camera-sized photo each (made 1400×1000 by ImageMagick, kept
# under 300 KB by the import: about 290 KB a product, 11 GB at 40,000), exported with its
# photos at each size, on loopback and, with RTT=50, through Benchmarks/delay-proxy.py that
# far away, by the account that imported them (its link store gives the key column, as a
# merchant's export has it). Prints seconds, products/s, the reads in flight, the keys written
# and peak RSS (GNU time), and each peak against the first size's.
# Writes Benchmarks/results/export-memory.md.
# Needs: GNU time, ImageMagick (convert), python3; about 1.5 × (largest size × 290 KB) of disk.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"5000 40000"}
RTT=${RTT:-}
work=$(mktemp -d)
proxy_pid=""
source scripts/lib/sandbox.sh
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; stop_sandboxes; rm -rf "$work"' EXIT

swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)/openmarket
start_sandbox "$bin" "$work/data"
server=$url
if [ -n "$RTT" ]; then
  python3 Benchmarks/delay-proxy.py 0 "${url##*:}" "$RTT" "$work/connections" >"$work/proxy.log" 2>&1 &
  proxy_pid=$!
  for _ in $(seq 50); do grep -q port "$work/proxy.log" && break; sleep 0.1; done
  server="http://127.0.0.1:$(awk '/port/ { print $2 }' "$work/proxy.log")"
fi
convert -size 1400x1000 plasma:fractal -quality 92 "$work/photo.jpg"

seeded=0
seed_to() {  # total: the products seeded on loopback, the photo prepared once (the cache)
  awk -v from="$((seeded + 1))" -v to="$1" 'BEGIN {
    print "key,name,description,price,currency,discounted_price,stock,images"
    for (i = from; i <= to; i++)
      printf "B%06d,Bench product %d,\"Seeded for the export memory benchmark, row %d\",%d,KRW,0,%d,photo.jpg\n", i, i, i, 1000 + i, i % 9
  }' >"$work/seed.csv"
  "$bin" import "$work/seed.csv" --images "$work" --server "$url" \
    --identifier "$identifier" --secret "$secret" --jobs 8 --quiet --report "$work/seed-report" --journal "$work/seed-journal" \
    >"$work/seed.log" 2>&1 || { tail -20 "$work/seed.log"; exit 1; }
  seeded=$1
}

export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
row() { printf '| %8s | %8s | %10s | %8s | %8s | %11s | %9s |\n' "$@"; }
{
  echo "openmarket export with photos, memory against the shop's size: $(nproc) cores, the sandbox ${RTT:-0} ms away, release build, $(date -u +%Y-%m-%dT%H:%MZ) (tree $(git rev-parse --short HEAD))"
  echo
  row "products" "seconds" "products/s" "in flight" "keys" "peak RSS MB" "÷ first"
  row "---:" "---:" "---:" "---:" "---:" "---:" "---:"
  first=""
  for n in $SIZES; do
    seed_to "$n"
    rm -rf "$work/out"
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" export --out "$work/out" --server "$server" --identifier "$identifier" \
      --secret "$secret" >"$work/export.log" 2>&1 || { tail -20 "$work/export.log" >&2; exit 1; }
    read -r seconds kb <"$work/time"
    rows=$(($(wc -l <"$work/out/products.csv") - 1))
    [ "$rows" = "$n" ] || { echo "export wrote $rows rows, expected $n" >&2; exit 1; }
    keys=$(awk -F, 'NR > 1 && $2 != ""' "$work/out/products.csv" | wc -l)
    flight=$(grep -o 'up to [0-9]* reads' "$work/export.log" | awk '{ print $3 }')
    mb=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
    [ -n "$first" ] || first=$mb
    row "$n" "$seconds" "$(awk -v n="$n" -v s="$seconds" 'BEGIN { printf "%d", n / s }')" "$flight" "$keys" "$mb" \
      "$(awk -v a="$mb" -v b="$first" 'BEGIN { printf "%.2f", a / b }')"
    rm -rf "$work/out"
  done
} | tee Benchmarks/results/export-memory.md
