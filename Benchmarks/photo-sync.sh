#!/usr/bin/env bash
# A sync of an unchanged sheet in which every row has a photo of its own (ROWS rows, photos of
# 1-1.9 MB copied from samples/), against a sandbox on this machine: every photo read and
# hashed again (--no-cache) side by side with photos known by their fingerprint (the default),
# with the photos in memory (just written) and out of it (evicted with posix_fadvise DONTNEED,
# as after a reboot or on a large catalog). "disk MB" is what the kernel read from disk for
# the run (/usr/bin/time %I). Writes Benchmarks/results/photo-sync.md.
# BIN=path/to/openmarket uses a built binary instead of building in release.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-2000}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT
if [ -z "${BIN:-}" ]; then
  swift build -c release --product openmarket >/dev/null
  BIN=$(swift build -c release --show-bin-path)/openmarket
fi
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"

photos=(samples/images/TEA-001/1.jpg samples/images/KIT-002/1.jpg samples/images/GFT-001/1.jpg
        samples/images/BAG-001/1.jpg samples/images/CUP-002/1.jpg)
mkdir -p "$work/photos"
{
  echo "key,name,price,currency,stock,images"
  for i in $(seq "$ROWS"); do
    cp "${photos[$((i % ${#photos[@]}))]}" "$work/photos/p$i.jpg"
    echo "P$i,Photo product $i,$((1000 + i)),KRW,$((i % 9)),photos/p$i.jpg"
  done
} >"$work/products.csv"
cp "$work/products.csv" "$work/products-copy.csv"
photo_mb=$(du -sm "$work/photos" | cut -f1)
sleep 2  # a photo younger than 2 s is never trusted by its fingerprint

evict() {  # drop the photos from the page cache (clean pages only: nothing is lost)
  python3 - "$work/photos" <<'EOF'
import os, sys
for name in os.listdir(sys.argv[1]):
    fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
EOF
}
row() { printf '| %-54s | %6s | %8s | %8s | %9s |\n' "$@"; }
run() {  # label file extra-args...
  local label=$1 file=$2; shift 2
  /usr/bin/time -f "%e %I %M" -o "$work/time" "$BIN" import "$file" --server "$url" --identifier "$identifier" \
    --secret "$secret" --quiet --report "$work/report-$RANDOM" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  read -r seconds blocks kb <"$work/time"
  row "$label" "$(grep -o '^[0-9]* rows' "$work/out" | cut -d' ' -f1)" "$seconds" \
    "$(awk -v b="$blocks" 'BEGIN{printf "%.0f", b*512/1048576}')" "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')"
  grep -o '^[0-9]* rows: .*' "$work/out" >>"$work/summaries"
}

{
  echo "Sync of $ROWS unchanged rows, each with its own photo ($photo_mb MB of photos), local sandbox, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "run" "rows" "seconds" "disk MB" "peak RSS MB"
  row "---" "---:" "---:" "---:" "---:"
  start_sandbox "$BIN" "$work/data"
  run "first import (creates every product)" "$work/products.csv"
  run "sync, photos in memory, every photo read (--no-cache)" "$work/products-copy.csv" --no-cache
  run "sync, photos in memory, known by fingerprint" "$work/products-copy.csv"
  evict
  run "sync, photos on disk, every photo read (--no-cache)" "$work/products-copy.csv" --no-cache
  evict
  run "sync, photos on disk, known by fingerprint" "$work/products-copy.csv"
  echo
  echo "Summaries, in order:"
  echo
  sed 's/^/    /' "$work/summaries"
} | tee Benchmarks/results/photo-sync.md
