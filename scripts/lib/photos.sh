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

# photo_sheet CSV ROWS KEY_PREFIX NAME_PREFIX: a sheet of ROWS products beside CSV, each with its
# own three photographs in images/ (the 15 photographs in turn, each file made distinct by a
# comment after its first marker, so that no two have one content).
photo_sheet() {
  local csv=$1 rows=$2 key=$3 name=$4 dir
  dir=$(dirname "$csv")
  local photos
  mapfile -t photos < <(ls "$PHOTOS"/*.jpg | head -15)
  [ "${#photos[@]}" -ge 15 ] || { echo "need 15 photographs in $PHOTOS (fetch_photos fetches them)" >&2; return 2; }
  mkdir -p "$dir/images"
  echo "key,name,price,currency,stock,images" >"$csv"
  local i j names src out
  for i in $(seq 1 "$rows"); do
    names=()
    for j in 0 1 2; do
      src=${photos[$(( (i * 3 + j) % 15 ))]}
      out="$dir/images/r$i-$j.jpg"
      { head -c 2 "$src"; printf '\xff\xfe\x00\x0drow %05d-%d' "$i" "$j"; tail -c +3 "$src"; } >"$out"
      names+=("images/r$i-$j.jpg")
    done
    echo "$key$i,$name $i,$((1000 + i)),KRW,$((i % 9)),$(IFS='|'; echo "${names[*]}")" >>"$csv"
  done
}
