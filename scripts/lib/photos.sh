# Real photographs for the benchmarks: 15 photographs (1680–5640 px) from Debian's
# ukui-wallpapers and mate-backgrounds packages (photographs, not renders), fetched once with
# apt-get download into $PHOTOS. Source this file, then call `fetch_photos WORKDIR`; it sets
# the array `real` (the packages' paths) and fails with a message when it cannot fetch them.
PHOTOS=${PHOTOS:-${XDG_CACHE_HOME:-$HOME/.cache}/openmarket-bench/photos}
real=(mate/nature/LadyBird.jpg mate/nature/Wood.jpg mate/abstract/Elephants.jpg mate/nature/Blinds.jpg
      mate/nature/Storm.jpg firstgeneration.jpg string.jpg the-mouse.jpg 2004default.jpg rhythm.jpg
      mate/nature/Dune.jpg mate/nature/RainDrops.jpg mate/nature/TwoWings.jpg
      mate/abstract/Elephants_3840x2160.jpg mate/abstract/Elephants_5640x3172.jpg)

fetch_photos() {
  local work=$1
  [ "$(ls "$PHOTOS"/*.jpg 2>/dev/null | wc -l)" -ge ${#real[@]} ] && return 0
  echo "fetching photographs from ukui-wallpapers and mate-backgrounds into $PHOTOS" >&2
  mkdir -p "$PHOTOS" "$work/debs"
  (cd "$work/debs" && apt-get download ukui-wallpapers mate-backgrounds >/dev/null 2>&1) || {
    echo "cannot apt-get download ukui-wallpapers mate-backgrounds" >&2; return 2; }
  for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/debs/x"; done
  for f in "${real[@]}"; do cp "$work/debs/x/usr/share/backgrounds/$f" "$PHOTOS/"; done
}
