#!/usr/bin/env bash
# Phone photos (HEIC, 12 MP) under the server's 300 KB limit, side by side in one run:
#   openmarket images shrink IN.heic                     (one step: libheif decode, Lanczos, quality search)
#   heif-convert IN.heic IN.jpg, then openmarket on the JPEG   (what a merchant does today: convert first)
#   ImageMagick: convert IN.heic -resize 2048x2048\> -define jpeg:extent=300kb OUT
# each tool on all cores (openmarket --jobs, the others xargs -P). The inputs: COUNT
# photo-like 4032×3024 pictures (fractal plasma and sensor noise) written as HEIC by
# libheif's x265 encoder (through ImageMagick) at quality 90, as an iPhone writes them.
# Quality is what the buyer sees: butteraugli (lower is closer) of every output against
# the HEIC decoded by heif-convert and fitted to 2048 px with Lanczos.
# Times: the best of ROUNDS rounds, the tools alternating within each round.
# Needs: imagemagick libheif-examples butteraugli. Called by shrink.sh; runs alone too.
# Writes Benchmarks/results/shrink-heic.md.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${HEIC_COUNT:-8}
ROUNDS=${ROUNDS:-2}
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
IM=$(command -v convert-im6.q16 || command -v magick || true)
for tool in "$IM" heif-convert butteraugli identify; do
  [ -n "$tool" ] && command -v "$tool" >/dev/null || {
    echo "needs: apt-get install -y imagemagick libheif-examples butteraugli" >&2; exit 2; }
done
export IM

mkdir -p "$work/in" "$work/ref"
for i in $(seq -w 1 "$COUNT"); do
  "$IM" -seed "$i" -size 4032x3024 plasma:fractal -blur 0x1 -attenuate 0.6 +noise Gaussian -quality 90 "$work/in/IMG_$i.heic"
  heif-convert "$work/in/IMG_$i.heic" "$work/ref/full-$i.png" >/dev/null
  "$IM" "$work/ref/full-$i.png" -resize '2048x2048>' "$work/ref/IMG_$i.png"
  rm "$work/ref/full-$i.png"
done

if [ -n "${BIN:-}" ]; then bin=$BIN; else
  swift build -c release --product openmarket >/dev/null
  bin=$(swift build -c release --show-bin-path)
fi
export bin

time_it() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN{print (a == "" || b < a) ? b : a}'; }

run_om() { rm -rf "$work/om"; "$bin/openmarket" images shrink "$work"/in/*.heic --out "$work/om" --jobs "$cores"; }
run_two() {
  rm -rf "$work/two" "$work/two-jpeg"; mkdir -p "$work/two-jpeg"
  ls "$work"/in/*.heic | xargs -P "$cores" -I{} sh -c 'heif-convert "{}" "$0/$(basename "{}" .heic).jpg" >/dev/null' "$work/two-jpeg"
  "$bin/openmarket" images shrink "$work"/two-jpeg/*.jpg --out "$work/two" --jobs "$cores"
}
run_im() {
  rm -rf "$work/im"; mkdir -p "$work/im"
  ls "$work"/in/*.heic | xargs -P "$cores" -I{} sh -c '"$IM" "{}" -resize 2048x2048\> -define jpeg:extent=300kb "$0/$(basename "{}" .heic).jpg" 2>/dev/null' "$work/im"
}

declare -A seconds
for round in $(seq "$ROUNDS"); do
  for tool in om two im; do
    t=$(time_it "run_$tool")
    seconds[$tool]=$(min "${seconds[$tool]:-}" "$t")
  done
done

# "bytes butteraugli" of one output against its reference (scaled up to it when smaller).
score() {
  local f=$1 b ref rd od in
  b=$(basename "$f" .jpg); ref="$work/ref/$b.png"
  rd=$(identify -format '%wx%h' "$ref"); od=$(identify -format '%wx%h' "$f")
  in=$f
  if [ "$rd" != "$od" ]; then in="$work/up-$(basename "$(dirname "$f")")-$b.png"; "$IM" "$f" -resize "${rd}!" "$in"; fi
  echo "$(stat -c %s "$f") $(butteraugli "$ref" "$in")"
}
export -f score
export work

row() { printf '| %-58s | %7s | %8s | %9s | %10s | %11s |\n' "$@"; }
summarise() { # tool label
  local dir=$work/$1 scores
  scores=$(ls "$dir"/*.jpg | xargs -P "$cores" -I{} bash -c 'score "$@"' _ {})
  row "$2" "${seconds[$1]}" "$(awk -v n="$COUNT" -v t="${seconds[$1]}" 'BEGIN{printf "%.2f", n/t}')" \
      "$(echo "$scores" | awk '{if ($1 > m) m = $1} END{print m}')" \
      "$(echo "$scores" | awk '$1 > 307200' | wc -l)" \
      "$(echo "$scores" | awk '{s += $2; n++} END{printf "%.2f", s/n}')"
}

{
  echo "HEIC photos under 307,200 bytes, $cores cores, $(date -u +%Y-%m-%dT%H:%MZ): $COUNT photo-like 4032×3024 HEIC files (x265 q90, $(du -sh "$work/in" | cut -f1) in all). Seconds: best of $ROUNDS rounds."
  echo
  row "tool" "seconds" "images/s" "largest B" "over limit" "butteraugli"
  row "---" "---:" "---:" "---:" "---:" "---:"
  summarise om "openmarket images shrink IN.heic (--jobs $cores)"
  summarise two "heif-convert to JPEG (-P $cores), then openmarket on it"
  summarise im "ImageMagick -define jpeg:extent (-P $cores)"
  echo
  awk -v a="${seconds[two]}" -v b="${seconds[om]}" -v c="${seconds[im]}" 'BEGIN{
    printf "openmarket on the HEIC directly: %.1f× the two-step path, %.1f× ImageMagick.\n", a/b, c/b }'
  echo "butteraugli: mean over the photos, each output against the HEIC decoded by heif-convert and fitted to 2048 px with Lanczos; lower is closer."
} | tee Benchmarks/results/shrink-heic.md
