#!/usr/bin/env bash
# Photo shrinking under the server's 300 KB limit, side by side in one run:
#   openmarket images shrink (all cores)
#   ImageMagick: convert IN -resize 2048x2048\> -define jpeg:extent=300kb OUT  (xargs -P cores)
#   the floor: djpeg -scale 1/2 IN | cjpeg -quality 85 > OUT                   (xargs -P cores)
#   decoding only, at the DCT scale openmarket decodes at: djpeg -scale S IN      (xargs -P cores)
# on two sets: 15 real photographs (1680–5640 px) from Debian's ukui-wallpapers and
# mate-backgrounds packages (fetched once with apt-get download into $PHOTOS), and
# COUNT generated photo-like JPEGs of 8–12 MP.
#
# Quality is what the buyer sees: butteraugli (lower is closer) of every output against
# the source resized with Lanczos to fit 2048 px (ImageMagick's own dimensions), a smaller
# output scaled up to them first. An output over the limit counts as a loss.
# The quality anchor: guetzli at its lowest quality (84) on the GUETZLI photos, and
# openmarket given guetzli's byte count as its limit.
#
# Times: the best of ROUNDS rounds, the tools alternating within each round.
# Needs: imagemagick libjpeg-turbo-progs butteraugli guetzli (apt-get install -y ...).
# Writes Benchmarks/results/shrink.md; then the HEIC rows (shrink-heic.sh, 12 MP phone photos
# against heif-convert + the JPEG path, and ImageMagick) to Benchmarks/results/shrink-heic.md.
# ONLY=heic runs the HEIC rows alone.
set -euo pipefail
if [ "${ONLY:-}" = heic ]; then exec "$(dirname "$0")/shrink-heic.sh"; fi
cd "$(dirname "$0")/.."
COUNT=${COUNT:-20}
ROUNDS=${ROUNDS:-2}
GUETZLI=${GUETZLI-"Dune Storm"}
cores=$(nproc)
work=${WORK:-$(mktemp -d)}
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
# The real ImageMagick (a "convert" earlier on PATH may be something else).
IM=$(command -v convert-im6.q16 || command -v magick || true)
for tool in "$IM" djpeg cjpeg butteraugli identify; do
  [ -n "$tool" ] && command -v "$tool" >/dev/null || {
    echo "needs: apt-get install -y imagemagick libjpeg-turbo-progs butteraugli guetzli" >&2; exit 2; }
done
export IM

source scripts/lib/photos.sh
fetch_photos "$work" || exit 2
mkdir -p "$work/real/in" "$work/generated/in"
for f in "${real[@]}"; do cp "$PHOTOS/$(basename "$f")" "$work/real/in/"; done

# Photo-like inputs: fractal plasma (smooth areas and detail) plus sensor noise, 8–12 MP, quality 92.
sizes=(3264x2448 3456x2592 3600x2700 3840x2880 4000x3000)
for i in $(seq -w 1 "$COUNT"); do
  f="$work/generated/in/photo-$i.jpg"
  [ -f "$f" ] && continue
  size=${sizes[$(( 10#$i % ${#sizes[@]} ))]}
  "$IM" -seed "$i" -size "$size" plasma:fractal -blur 0x1 -attenuate 0.6 +noise Gaussian -quality 92 "$f"
done

# BIN: a folder holding an openmarket built elsewhere (otherwise a release build here).
if [ -n "${BIN:-}" ]; then bin=$BIN; else
  swift build -c release --product openmarket >/dev/null
  bin=$(swift build -c release --show-bin-path)
fi

# Seconds a command takes (its own output discarded).
time_it() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN{print (a == "" || b < a) ? b : a}'; }

run_om() { rm -rf "$2"; "$bin/openmarket" images shrink "$1"/*.jpg --out "$2" --jobs "$cores" > "$2.log"; }
run_im() { rm -rf "$2"; mkdir -p "$2"; ls "$1"/*.jpg | xargs -P "$cores" -I{} sh -c '"$IM" "{}" -resize 2048x2048\> -define jpeg:extent=300kb "$0/$(basename "{}")" 2>/dev/null' "$2"; }
# The DCT scale openmarket decodes at (JPEGCodec.decodeSize): full size up to 2048 px, else the
# smallest k/8 whose long edge is still at least 2560 px. "scale file" per line.
decode_scales() {
  for f in "$1"/*.jpg; do
    long=$(identify -format '%[fx:max(w,h)]' "$f" 2>/dev/null)
    k=8
    if [ "$long" -gt 2048 ]; then
      for c in 1 2 3 4 5 6 7 8; do [ $(( (long * c + 7) / 8 )) -ge 2560 ] && { k=$c; break; }; done
    fi
    echo "$k/8 $f"
  done
}
run_decode() { xargs -P "$cores" -n 2 sh -c 'djpeg -dct int -scale "$0" "$1" > /dev/null' < "$1/../decode.scales"; }
run_floor() { rm -rf "$2"; mkdir -p "$2"; ls "$1"/*.jpg | xargs -P "$cores" -I{} sh -c 'djpeg -scale 1/2 "{}" | cjpeg -quality 85 > "$0/$(basename "{}")"' "$2"; }

# butteraugli of each output against the source fitted to 2048 px with Lanczos:
# "name dimensions bytes score" per line, sorted by name.
score_one() {
  local f=$1 set=$2 b ref rd od in
  b=$(basename "$f" .jpg); ref="$set/ref/$b.png"
  [ -f "$ref" ] || "$IM" "$set/in/$b.jpg" -resize '2048x2048>' "$ref" 2>/dev/null
  rd=$(identify -format '%wx%h' "$ref" 2>/dev/null); od=$(identify -format '%wx%h' "$f" 2>/dev/null)
  in=$f
  if [ "$rd" != "$od" ]; then in="$set/up-$b.png"; "$IM" "$f" -resize "${rd}!" "$in" 2>/dev/null; fi
  echo "$b $od $(stat -c %s "$f") $(butteraugli "$ref" "$in")"
}
export -f score_one
scores() { mkdir -p "$2/ref"; ls "$1"/*.jpg | xargs -P "$cores" -I{} bash -c 'score_one "$@"' _ {} "$2" | sort; }

declare -A seconds
for set in real generated; do
  decode_scales "$work/$set/in" > "$work/$set/decode.scales"
  for round in $(seq "$ROUNDS"); do
    for tool in om im floor decode; do
      t=$(time_it "run_$tool" "$work/$set/in" "$work/$set/$tool")
      seconds[$set-$tool]=$(min "${seconds[$set-$tool]:-}" "$t")
    done
  done
  scores "$work/$set/om" "$work/$set" > "$work/$set/om.scores"
  scores "$work/$set/im" "$work/$set" > "$work/$set/im.scores"
done

limit=307200
summary_row() { printf '| %-10s | %-46s | %8s | %9s | %10s | %10s | %11s | %13s |\n' "$@"; }
summarise() { # set tool label
  local set=$1 tool=$2 label=$3 n t
  n=$(ls "$work/$set/in"/*.jpg | wc -l); t=${seconds[$set-$tool]}
  local largest over mean closer="" 
  largest=$(stat -c %s "$work/$set/$tool"/*.jpg | sort -n | tail -1)
  over=$(stat -c %s "$work/$set/$tool"/*.jpg | awk -v l=$limit '$1 > l' | wc -l)
  if [ -f "$work/$set/$tool.scores" ]; then
    mean=$(awk '{s+=$4; n++} END{printf "%.2f", s/n}' "$work/$set/$tool.scores")
    if [ "$tool" = om ]; then
      closer=$(paste "$work/$set/om.scores" "$work/$set/im.scores" | awk -v l=$limit '{w += ($4 < $8 || $7 > l)} END{print w "/" NR}')
    fi
  else mean="n/a"; fi
  summary_row "$set" "$label" "$t" "$(awk -v n="$n" -v t="$t" 'BEGIN{printf "%.2f", n/t}')" "$largest" "$over" "$mean" "${closer:-}"
}
ratio() { awk -v a="${seconds[$1-im]}" -v b="${seconds[$1-om]}" 'BEGIN{printf "%.1f", a/b}'; }

guetzli_rows() {
  [ -n "$GUETZLI" ] || { echo "(guetzli not run this time: GUETZLI was empty; GUETZLI=\"Dune Storm\" runs it, about 5 minutes)"; return; }
  command -v guetzli >/dev/null || { echo "(guetzli not run: apt-get install -y guetzli)"; return; }
  echo "| photo | guetzli q84 bytes | guetzli butteraugli | guetzli seconds | openmarket at that size: butteraugli | openmarket seconds |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  mkdir -p "$work/guetzli"
  for b in $GUETZLI; do
    local ref="$work/real/ref/$b.png" g="$work/guetzli/$b.jpg" s e gs size om os
    s=$(date +%s.%N); guetzli --quality 84 "$ref" "$g"; e=$(date +%s.%N)
    gs=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.0f", b-a}')
    size=$(stat -c %s "$g")
    rm -rf "$work/guetzli/om"
    os=$(time_it "$bin/openmarket" images shrink "$work/real/in/$b.jpg" --out "$work/guetzli/om" --max-bytes "$size")
    om=$(score_one "$work/guetzli/om/$b.jpg" "$work/real" | cut -d' ' -f4)
    echo "| $b | $size | $(butteraugli "$ref" "$g") | $gs | $om | $os |"
  done
}

{
  echo "Shrink under 307,200 bytes, $cores cores, $(date -u +%Y-%m-%dT%H:%MZ): 15 real photographs (Debian ukui-wallpapers, mate-backgrounds; 1680–5640 px) and $COUNT generated photo-like JPEGs of 8–12 MP. Seconds: best of $ROUNDS rounds."
  echo
  summary_row "set" "tool" "seconds" "images/s" "largest B" "over limit" "butteraugli" "closer than IM"
  summary_row "---" "---" "---:" "---:" "---:" "---:" "---:" "---:"
  for set in real generated; do
    summarise "$set" om "openmarket images shrink (--jobs $cores)"
    summarise "$set" im "ImageMagick -define jpeg:extent (-P $cores)"
    summarise "$set" floor "floor: djpeg -scale 1/2, cjpeg -q 85 (-P $cores)"
    t=${seconds[$set-decode]}; n=$(ls "$work/$set/in"/*.jpg | wc -l)
    summary_row "$set" "decoding only, at openmarket's scales (-P $cores)" "$t" "$(awk -v n="$n" -v t="$t" 'BEGIN{printf "%.2f", n/t}')" "" "" "n/a" ""
  done
  echo
  echo "openmarket vs ImageMagick, throughput: $(ratio real)× on the real photographs, $(ratio generated)× on the generated ones."
  for set in real generated; do
    awk -v set="$set" -v im="${seconds[$set-im]}" -v d="${seconds[$set-decode]}" -v om="${seconds[$set-om]}" 'BEGIN{
      printf "%s: 6× ImageMagick would be %.2f s; decoding the photos alone takes %.2f s (%.0f %% of that), openmarket all of its work %.2f s.\n", set, im/6, d, 100*d/(im/6), om }'
  done
  echo "butteraugli: mean over the set, each output against the source fitted to 2048 px with Lanczos (a smaller output scaled up to it); lower is closer. \"closer than IM\": photos where openmarket's output is closer than ImageMagick's, or ImageMagick's is over the limit."
  echo
  echo "Per photo (real set):"
  echo
  echo "| photo | source px | openmarket px | q | chroma | KB | butteraugli | ImageMagick px | q | KB | butteraugli | closer |"
  echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  paste -d' ' "$work/real/om.scores" "$work/real/im.scores" | while read -r b od ob os _ id ib is; do
    src=$(identify -format '%wx%h' "$work/real/in/$b.jpg" 2>/dev/null)
    line=$(grep "^$b.jpg:" "$work/real/om.log" | head -1)
    q=$(grep -o ' q[0-9]*' <<<"$line" | tr -d ' q'); chroma=$(grep -o '4:[024]:[024]' <<<"$line" || echo grey)
    iq=$(identify -format '%Q' "$work/real/im/$b.jpg" 2>/dev/null)
    closer=$(awk -v a="$os" -v b="$is" -v ib="$ib" -v l=$limit 'BEGIN{print (ib > l) ? "openmarket (IM over the limit)" : (a < b ? "openmarket" : "ImageMagick")}')
    echo "| $b | $src | $od | $q | $chroma | $((ob / 1024)) | $os | $id | $iq | $((ib / 1024)) | $is | $closer |"
  done
  echo
  echo "The quality anchor, guetzli (q84, its lowest) on the 2048 px reference, and openmarket with guetzli's size as its limit:"
  echo
  guetzli_rows
} | tee Benchmarks/results/shrink.md

BIN=$bin Benchmarks/shrink-heic.sh
