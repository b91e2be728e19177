#!/usr/bin/env bash
# openmarket export of a sandbox catalog at 2,000 and 20,000 products (--images none,
# then thumbnails): products per second and peak RSS (GNU time), side by side with the
# peer: a sequential page-by-page shell loop with curl and jq (list pages, then each
# product's detail, then its thumbnails). The sandbox runs on the same 2 cores.
# The peer runs at 2,000 products (at 20,000 too with PEER_FULL=1: it takes minutes).
# Needs: curl, jq, GNU time, ImageMagick (convert) for the seed photo.
# Writes Benchmarks/results/export.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"2000 20000"}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT

swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)

start_sandbox "$bin/openmarket" "$work/data"

# One small real photo (about 25 KB), used by every seeded product.
convert -size 480x360 plasma:fractal -quality 82 "$work/photo.jpg"
seeded=0
seed_to() {  # total
  local target=$1
  [ "$target" -le "$seeded" ] && return
  awk -v from="$((seeded + 1))" -v to="$target" 'BEGIN {
    print "key,name,description,price,currency,discounted_price,stock,images"
    for (i = from; i <= to; i++)
      printf "B%06d,Bench product %d,\"Seeded for the export benchmark, row %d\",%d,KRW,%d,%d,photo.jpg\n", i, i, i, 1000 + i, (i % 4 == 0) ? 100 : 0, i % 9
  }' >"$work/seed-$target.csv"
  "$bin/openmarket" import "$work/seed-$target.csv" --images "$work" --server "$url" --identifier "$identifier" \
    --secret "$secret" --jobs 8 --quiet --no-cache --report "$work/seed-report" --journal "$work/seed-journal" >"$work/seed.log" 2>&1 \
    || { cat "$work/seed.log"; exit 1; }
  seeded=$target
}

peer() {  # out mode
  local out=$1 mode=$2 page=1
  mkdir -p "$out"
  : >"$out/ids"
  while :; do
    curl -sf "$url/api/products?page_no=$page&items_per_page=100" >"$out/page.json"
    jq -r '.pages[].id' "$out/page.json" >>"$out/ids"
    [ "$(jq -r .hasNext "$out/page.json")" = true ] || break
    page=$((page + 1))
  done
  while read -r id; do
    curl -sf "$url/api/products/$id" >"$out/$id.json"
    if [ "$mode" = thumbnails ]; then
      jq -r '.images[].thumbnail_url' "$out/$id.json" | while read -r thumb; do
        curl -sf -o "$out/$id-$(basename "$thumb")" "$thumb"
      done
    fi
  done <"$out/ids"
}

measure() {  # label command... ; prints "seconds rssMB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/$label.log" 2>&1 || { cat "$work/$label.log" >&2; exit 1; }
  awk '{printf "%s %.1f\n", $1, $2 / 1024}' "$work/time"
}

declare -A ratio_2000=()
row() { printf '| %8s | %10s | %-26s | %8s | %10s | %11s | %8s |\n' "$@"; }
{
  echo "openmarket export of a sandbox catalog, $(nproc) cores, sandbox on the same machine, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "products" "images" "exporter" "seconds" "products/s" "peak RSS MB" "vs peer"
  row "---:" "---" "---" "---:" "---:" "---:" "---:"
  for n in $SIZES; do
    seed_to "$n"
    # Thumbnails are made by the sandbox on first request: warm them for both sides.
    "$bin/openmarket" export --server "$url" --out "$work/warm-$n" --images thumbnails --quiet >/dev/null 2>&1
    rm -rf "$work/warm-$n"
    for mode in none thumbnails; do
      read -r s rss < <(measure "om-$n-$mode" "$bin/openmarket" export --server "$url" --out "$work/om-$n-$mode" --images "$mode" --quiet)
      rows=$(($(wc -l <"$work/om-$n-$mode/products.csv") - 1))
      [ "$rows" = "$n" ] || { echo "export wrote $rows rows, expected $n" >&2; exit 1; }
      om_rate=$(awk -v n="$n" -v s="$s" 'BEGIN{printf "%.0f", n/s}')
      peer_rate=""
      if [ "$n" -le 2000 ] || [ "${PEER_FULL:-0}" = 1 ]; then
        read -r ps prss < <(measure "peer-$n-$mode" bash -c "$(declare -f peer); url=$url; peer $work/peer-$n-$mode $mode")
        peer_rate=$(awk -v n="$n" -v s="$ps" 'BEGIN{printf "%.0f", n/s}')
        row "$n" "$mode" "curl + jq, sequential" "$ps" "$peer_rate" "$prss" "1.0×"
        rm -rf "$work/peer-$n-$mode"
        ratio=$(awk -v a="$om_rate" -v b="$peer_rate" 'BEGIN{printf "%.1f×", a/b}')
      else
        ratio="(peer at 2000: ${ratio_2000[$mode]:-n/a})"
      fi
      row "$n" "$mode" "openmarket export --jobs 4" "$s" "$om_rate" "$rss" "$ratio"
      if [ "$n" -le 2000 ]; then ratio_2000[$mode]=$ratio; fi
      rm -rf "$work/om-$n-$mode"
    done
  done
} | tee Benchmarks/results/export.md
