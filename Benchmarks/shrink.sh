#!/usr/bin/env bash
# Photo shrinking under the server's 300 KB limit, side by side in one run:
#   openmarket images shrink (all cores)
#   ImageMagick: convert IN -resize 2048x2048\> -define jpeg:extent=300kb OUT  (xargs -P cores)
#   the floor: djpeg -scale 1/2 IN | cjpeg -quality 85 > OUT                   (xargs -P cores)
# on 20 photo-like JPEGs of 8–12 MP, with output sizes and quality (PSNR and
# SSIM against the source scaled to the same dimensions) of openmarket's output
# and ImageMagick's. Needs: imagemagick, libjpeg-turbo-progs, python3 with numpy.
# Writes Benchmarks/results/shrink.md.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-20}
cores=$(nproc)
work=${WORK:-$(mktemp -d)}
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
command -v convert >/dev/null && command -v djpeg >/dev/null || {
  echo "needs: apt-get install -y imagemagick libjpeg-turbo-progs" >&2; exit 2; }

swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)

# Photo-like inputs: fractal plasma (smooth areas and detail) plus sensor noise, 8–12 MP, quality 92.
mkdir -p "$work/in"
sizes=(3264x2448 3456x2592 3600x2700 3840x2880 4000x3000)
for i in $(seq -w 1 "$COUNT"); do
  f="$work/in/photo-$i.jpg"
  [ -f "$f" ] && continue
  size=${sizes[$(( 10#$i % ${#sizes[@]} ))]}
  convert -seed "$i" -size "$size" plasma:fractal -blur 0x1 -attenuate 0.6 +noise Gaussian -quality 92 "$f"
done
in_bytes=$(du -cb "$work"/in/*.jpg | tail -1 | cut -f1)

# Seconds a command takes (its own output discarded).
time_it() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}'; }

rm -rf "$work/om" "$work/im" "$work/floor"; mkdir -p "$work/om" "$work/im" "$work/floor"
t_om=$(time_it "$bin/openmarket" images shrink "$work"/in/*.jpg --out "$work/om" --jobs "$cores")
t_im=$(time_it sh -c "ls '$work'/in/*.jpg | xargs -P $cores -I{} sh -c 'convert \"{}\" -resize 2048x2048\\> -define jpeg:extent=300kb \"$work/im/\$(basename \"{}\")\"'")
t_floor=$(time_it sh -c "ls '$work'/in/*.jpg | xargs -P $cores -I{} sh -c 'djpeg -scale 1/2 \"{}\" | cjpeg -quality 85 > \"$work/floor/\$(basename \"{}\")\"'")

bytes() { du -cb "$1"/*.jpg | tail -1 | cut -f1; }
max_bytes() { stat -c %s "$1"/*.jpg | sort -n | tail -1; }

# Quality: each output against the source resized to the output's own dimensions with
# ImageMagick's default filter (Lanczos, the filter ImageMagick's own output also uses, so
# the reference leans its way). Then again at ImageMagick's dimensions (the output scaled up
# with Lanczos where it is smaller), so that an output with fewer pixels is not favoured:
# what it lost in detail counts.
quality() {
  local dir=$1 psnr_sum=0 ssim_sum=0 psnr2_sum=0 ssim2_sum=0 n=0
  for f in "$dir"/*.jpg; do
    src="$work/in/$(basename "$f")"
    dims=$(identify -format '%wx%h' "$f")
    convert "$src" -resize "${dims}!" "$work/ref.png"
    p=$(compare -metric PSNR "$work/ref.png" "$f" null: 2>&1 | cut -d' ' -f1 || true)
    s=$(python3 Benchmarks/ssim.py "$work/ref.png" "$f")
    big=$(identify -format '%wx%h' "$work/im/$(basename "$f")")
    convert "$src" -resize "${big}!" "$work/ref2.png"
    convert "$f" -resize "${big}!" "$work/up.png"
    p2=$(compare -metric PSNR "$work/ref2.png" "$work/up.png" null: 2>&1 | cut -d' ' -f1 || true)
    s2=$(python3 Benchmarks/ssim.py "$work/ref2.png" "$work/up.png")
    psnr_sum=$(awk -v a="$psnr_sum" -v b="$p" 'BEGIN{print a+b}')
    ssim_sum=$(awk -v a="$ssim_sum" -v b="$s" 'BEGIN{print a+b}')
    psnr2_sum=$(awk -v a="$psnr2_sum" -v b="$p2" 'BEGIN{print a+b}')
    ssim2_sum=$(awk -v a="$ssim2_sum" -v b="$s2" 'BEGIN{print a+b}')
    n=$((n + 1))
  done
  awk -v p="$psnr_sum" -v s="$ssim_sum" -v p2="$psnr2_sum" -v s2="$ssim2_sum" -v n="$n" \
    'BEGIN{printf "%.2f %.4f %.2f %.4f", p/n, s/n, p2/n, s2/n}'
}
q_om=$(quality "$work/om")
q_im=$(quality "$work/im")
dims_om=$(identify -format '%wx%h\n' "$work"/om/*.jpg | sort | uniq -c | sort -rn | head -1 | awk '{print $2}')
dims_im=$(identify -format '%wx%h\n' "$work"/im/*.jpg | sort | uniq -c | sort -rn | head -1 | awk '{print $2}')

row() { printf '| %-46s | %8s | %9s | %10s | %12s | %10s | %9s | %6s | %9s | %6s |\n' "$@"; }
read -r om_p om_s om_p2 om_s2 <<<"$q_om"
read -r im_p im_s im_p2 im_s2 <<<"$q_im"
rate() { awk -v n="$COUNT" -v t="$1" 'BEGIN{printf "%.2f", n/t}'; }
{
  echo "Shrink under 307,200 bytes: $COUNT JPEGs of 8–12 MP ($(awk -v b="$in_bytes" 'BEGIN{printf "%.0f", b/1048576}') MB in all), $cores cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "tool" "seconds" "images/s" "total KB" "largest B" "typical px" "PSNR dB" "SSIM" "PSNR @IM" "SSIM @IM"
  row "---" "---:" "---:" "---:" "---:" "---:" "---:" "---:" "---:" "---:"
  row "openmarket images shrink (--jobs $cores)" "$t_om" "$(rate "$t_om")" "$(( $(bytes "$work/om") / 1024 ))" "$(max_bytes "$work/om")" "$dims_om" "$om_p" "$om_s" "$om_p2" "$om_s2"
  row "ImageMagick convert -define jpeg:extent (-P $cores)" "$t_im" "$(rate "$t_im")" "$(( $(bytes "$work/im") / 1024 ))" "$(max_bytes "$work/im")" "$dims_im" "$im_p" "$im_s" "$im_p2" "$im_s2"
  row "floor: djpeg -scale 1/2, cjpeg -q 85 (-P $cores)" "$t_floor" "$(rate "$t_floor")" "$(( $(bytes "$work/floor") / 1024 ))" "$(max_bytes "$work/floor")" "n/a" "n/a" "n/a" "n/a" "n/a"
  echo
  echo "PSNR and SSIM: against the source scaled to each output's own dimensions; \"@IM\": at ImageMagick's dimensions, each output scaled up to them first."
  echo "Dimensions openmarket chose: $(identify -format '%wx%h\n' "$work"/om/*.jpg | sort | uniq -c | sort -rn | awk '{printf "%s×%s ", $1, $2}')"
  awk -v om="$t_om" -v im="$t_im" -v fl="$t_floor" 'BEGIN{printf "openmarket vs ImageMagick: %.1f× the throughput; vs the floor: %.2f× its time\n", im/om, om/fl}'
} | tee Benchmarks/results/shrink.md
