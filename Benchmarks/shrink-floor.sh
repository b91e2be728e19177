#!/usr/bin/env bash
# images shrink against its floor, beside another revision, in one run: the 15 real photographs
# (scripts/lib/photos.sh) shrunk under 300 KB by this tree's openmarket, by BASE's (default
# d527670), and by the floor, the same job done once (issue 80): per photo, djpeg at the scale
# openmarket decodes at (full size up to 2048 px, else the smallest k/8 whose long edge reaches
# 2560 px) piped to one cjpeg -quality 85 -optimize, both cores (xargs -P). The old floor
# (djpeg -scale 1/2 | cjpeg -quality 85: half size whatever the photo, a smaller job) is kept
# as a row. Rounds alternate them and rotate their order; the table shows each one's median
# wall time, its CPU time (user + system) and its ratio to the floor, with the largest output
# and how many went over the limit.
# SCORE=1 adds butteraugli per photo (each output against the source fitted to 2048 px with
# Lanczos, as shrink.sh scores): this tree against BASE, so that speed is not bought with looks.
#   Benchmarks/shrink-floor.sh            ROUNDS=5 BASE=REV SCORE=1
# Needs: libjpeg-turbo-progs (djpeg, cjpeg); SCORE: imagemagick butteraugli.
# Writes Benchmarks/results/shrink-floor.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
BASE=${BASE:-d527670}
work=${WORK:-/tmp/openmarket-compare}
mkdir -p "$work"
cores=$(nproc)
for tool in djpeg cjpeg /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "needs: apt-get install -y libjpeg-turbo-progs time" >&2; exit 2; }
done
source scripts/lib/photos.sh
source scripts/lib/revision.sh
fetch_photos "$work" || exit 2
in="$work/floor-in"
rm -rf "$in"; mkdir -p "$in"
for f in "${real[@]}"; do cp "$PHOTOS/$(basename "$f")" "$in/"; done

bin_tree=$(release_binary "")
bin_base=$(release_binary "$BASE")
label_base=$(git rev-parse --short "$BASE")
label_tree="$(git rev-parse --short HEAD) (tree)"

run_tree() { rm -rf "$1"; "$bin_tree" images shrink "$in"/*.jpg --out "$1" --jobs "$cores" >"$1.log"; }
run_base() { rm -rf "$1"; "$bin_base" images shrink "$in"/*.jpg --out "$1" --jobs "$cores" >"$1.log"; }
run_floor() { rm -rf "$1"; mkdir -p "$1"; ls "$in"/*.jpg | xargs -P "$cores" -I{} sh -c 'djpeg -scale 1/2 "{}" | cjpeg -quality 85 > "$0/$(basename "{}")"' "$1"; }
# What the floor's time is made of: decoding alone, at half size as it decodes, and at the DCT
# scale openmarket decodes at (JPEGCodec.decodeSize: full size up to 2048 px, else the smallest
# k/8 whose long edge is at least 2560 px).
for f in "$in"/*.jpg; do
  long=$( { djpeg -scale 1/8 "$f" || true; } | head -c 64 | tr -s ' \n' ' ' | awk '{print ($2 > $3 ? $2 : $3) * 8}')
  k=8
  if [ "$long" -gt 2048 ]; then for c in 1 2 3 4 5 6 7 8; do [ $(( (long * c + 7) / 8 )) -ge 2560 ] && { k=$c; break; }; done; fi
  echo "$k/8 $f"
done >"$work/floor.scales"
run_floor_ours() { rm -rf "$1"; mkdir -p "$1"; xargs -P "$cores" -n 2 sh -c 'djpeg -scale "$1" "$2" | cjpeg -quality 85 -optimize > "$0/$(basename "$2")"' "$1" < "$work/floor.scales"; }
run_decode_half() { ls "$in"/*.jpg | xargs -P "$cores" -I{} sh -c 'djpeg -scale 1/2 "{}" > /dev/null'; }
run_decode_ours() { xargs -P "$cores" -n 2 sh -c 'djpeg -scale "$0" "$1" > /dev/null' < "$work/floor.scales"; }
export -f run_tree run_base run_floor run_floor_ours run_decode_half run_decode_ours
export bin_tree bin_base in cores work

# "wall cpu" of one run.
measure() {
  /usr/bin/time -f "%e %U %S" -o "$work/floor.time" bash -c "$1 $2" >/dev/null 2>&1
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$work/floor.time"
}
declare -A walls cpus
tools=(tree base floor_ours floor decode_half decode_ours)
for round in $(seq "$ROUNDS"); do
  for k in 0 1 2 3 4 5; do
    tool=${tools[$(( (k + round) % 6 ))]}
    read -r wall cpu < <(measure "run_$tool" "$work/floor-out-$tool")
    walls[$tool]+="$wall "; cpus[$tool]+="$cpu "
  done
done
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | awk '{a[NR]=$1} END{print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
limit=307200
floor_wall=$(median "${walls[floor_ours]}")
row() {
  local tool=$1 label=$2 wall cpu largest over
  wall=$(median "${walls[$tool]}"); cpu=$(median "${cpus[$tool]}")
  largest=""; over=""
  if [ -d "$work/floor-out-$tool" ]; then
    largest=$(stat -c %s "$work/floor-out-$tool"/*.jpg | sort -n | tail -1)
    over=$(stat -c %s "$work/floor-out-$tool"/*.jpg | awk -v l=$limit '$1 > l' | wc -l)
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$wall" "$cpu" \
    "$(awk -v a="$wall" -v b="$floor_wall" 'BEGIN{printf "%.2f", a/b}')" "$largest" "$over" "${walls[$tool]% }"
}

score_rows() {
  [ "${SCORE:-}" = 1 ] || return 0
  local IM
  IM=$(command -v convert-im6.q16 || command -v magick || true)
  [ -n "$IM" ] && command -v butteraugli >/dev/null || { echo "(SCORE=1 needs imagemagick and butteraugli)"; return; }
  mkdir -p "$work/floor-ref"
  echo
  echo "butteraugli per photo (lower is closer), each output against the source fitted to 2048 px with Lanczos:"
  echo
  echo "| photo | $label_tree px | KB | butteraugli | $label_base px | KB | butteraugli |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  local f b ref rd line tool od img s t=0 u=0
  for f in "$in"/*.jpg; do
    b=$(basename "$f" .jpg); ref="$work/floor-ref/$b.png"
    [ -f "$ref" ] || "$IM" "$f" -resize '2048x2048>' "$ref"
    rd=$(identify -format '%wx%h' "$ref")
    line="| $b"
    for tool in tree base; do
      img="$work/floor-out-$tool/$b.jpg"; od=$(identify -format '%wx%h' "$img")
      if [ "$od" != "$rd" ]; then "$IM" "$img" -resize "${rd}!" "$work/floor-up.png"; img="$work/floor-up.png"; fi
      s=$(butteraugli "$ref" "$img")
      line+=" | $od | $(( $(stat -c %s "$work/floor-out-$tool/$b.jpg") / 1024 )) | $s"
      if [ "$tool" = tree ]; then t=$(awk -v a="$t" -v b="$s" 'BEGIN{print a+b}'); else u=$(awk -v a="$u" -v b="$s" 'BEGIN{print a+b}'); fi
    done
    echo "$line |"
  done
  echo "| mean | | | $(awk -v a="$t" 'BEGIN{printf "%.3f", a/15}') | | | $(awk -v a="$u" 'BEGIN{printf "%.3f", a/15}') |"
}

{
  echo "images shrink of the 15 real photographs (1680–5640 px) under 307,200 bytes against the floor, $cores cores, $(date -u +%Y-%m-%dT%H:%MZ); median of $ROUNDS alternating rounds."
  echo
  echo "| tool | wall s | CPU s | × floor | largest B | over limit | every round's wall s |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
  row tree "openmarket $label_tree (--jobs $cores)"
  row base "openmarket $label_base (--jobs $cores)"
  row floor_ours "floor: djpeg at openmarket's scale, cjpeg -q 85 -optimize (-P $cores)"
  row floor "old floor: djpeg -scale 1/2, cjpeg -q 85 (-P $cores)"
  row decode_half "decoding alone at half size, as the floor (-P $cores)"
  row decode_ours "decoding alone at openmarket's scales (-P $cores)"
  echo
  echo "The floor decodes at openmarket's scale and encodes once at one quality, with no size limit and no resize to 2048 px (its largest output above); the old floor decoded at half size whatever the photo. openmarket fits each photo under the limit at 2048 px: it decodes (at least 2560 px on the long edge, then Lanczos-3 to 2048), encodes a band sample in up to three subsamplings, then the whole photo once or twice."
  score_rows
} | tee Benchmarks/results/shrink-floor.md
