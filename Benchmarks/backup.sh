#!/usr/bin/env bash
# Backups that remember, against the peer: N products with 3 photos each in a sandbox, then
# NIGHTS nights in which 1 % of the products change (half of them a field, half deleted and
# made again with new photos). Each night: `openmarket backup` into one repository, and the
# peer's way — a fresh `openmarket export --images originals` backed up by restic (content-
# addressed, deduplicating, compressed). Reports the repository sizes against one export,
# and an unchanged night's backup against a full export.
# Goal (#28): repository ≤ restic's; an unchanged night ≥ 20× faster than an export.
# Defaults N=2000 NIGHTS=10 (minutes); N=10000 NIGHTS=30 is the issue's full size (an hour).
# Needs: restic, curl, GNU time. Writes Benchmarks/results/backup.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
NIGHTS=${NIGHTS:-10}
work=$(mktemp -d)
source scripts/lib/sandbox.sh
trap 'stop_sandboxes; rm -rf "$work"' EXIT
command -v restic >/dev/null || { echo "needs restic (apt-get install restic)" >&2; exit 1; }

swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)/openmarket
start_sandbox "$bin" "$work/data"
shop=(--server "$url" --identifier "$identifier" --secret "$secret")
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"

# Photos: one real JPEG (about 20 KB), made unique per product and photo by a trailer after
# its end marker (still the same picture; a different file, hashed differently).
convert -size 400x300 plasma:fractal -quality 80 "$work/base.jpg"
mkdir -p "$work/photos"
photo() {  # product version index -> path
  local f="$work/photos/$1-$2-$3.jpg"
  [ -f "$f" ] || { cat "$work/base.jpg"; printf 'openmarket benchmark %s %s %s' "$1" "$2" "$3"; } >"$f"
  echo "$f"
}
rows() {  # from to version price_bump -> CSV rows
  for i in $(seq "$1" "$2"); do
    printf 'K%06d,Product %d,"Backed up every night, row %d",%d,KRW,0,%d,%s;%s;%s\n' "$i" "$i" "$i" \
      $((1000 + i + $4)) $((i % 9)) "$(photo "$i" "$3" 1)" "$(photo "$i" "$3" 2)" "$(photo "$i" "$3" 3)"
  done
}
header="key,name,description,price,currency,discounted_price,stock,images"
import_rows() {  # file
  "$bin" import "$1" "${shop[@]}" --jobs 8 --quiet --no-cache --force --report "$work/import-report" >"$work/import.log" 2>&1 \
    || { tail -5 "$work/import.log" >&2; exit 1; }
}
{ echo "$header"; rows 1 "$N" 0 0; } >"$work/seed.csv"
import_rows "$work/seed.csv"

export RESTIC_PASSWORD=benchmark RESTIC_REPOSITORY="$work/restic"
restic init --quiet >/dev/null
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b - a}'; }
now() { date +%s.%N; }
changed=$((N / 100))
ours_total=0; export_total=0; restic_total=0
for night in $(seq 1 "$NIGHTS"); do
  if [ "$night" -gt 1 ]; then
    # 1 % of the products change: half a price, half deleted and made again with new photos.
    first=$(( (night * 37) % (N - changed) + 1 ))
    half=$((changed / 2))
    { echo "$header"; rows "$first" $((first + half - 1)) 0 "$night"; } >"$work/edit.csv"
    import_rows "$work/edit.csv"
    ids=$("$bin" list --all --format csv "${shop[@]}" 2>/dev/null | awk -F, -v a=$((first + half)) -v b=$((first + changed - 1)) \
      'NR > 1 { n = $2; sub(/^Product /, "", n); if (n + 0 >= a && n + 0 <= b) print $1 }')
    # shellcheck disable=SC2086
    [ -n "$ids" ] && "$bin" delete $ids "${shop[@]}" >/dev/null 2>&1
    { echo "$header"; rows $((first + half)) $((first + changed - 1)) "$night" 0; } >"$work/remade.csv"
    import_rows "$work/remade.csv"
  fi
  t0=$(now); "$bin" backup --repo "$work/repo" "${shop[@]}" >"$work/backup.log" 2>&1; t1=$(now)
  rm -rf "$work/export"
  "$bin" export --out "$work/export" --images originals --vendor me "${shop[@]}" --quiet >"$work/export.log" 2>&1; t2=$(now)
  restic backup --quiet "$work/export" >/dev/null; t3=$(now)
  ours_total=$(awk -v a="$ours_total" -v b="$(secs "$t0" "$t1")" 'BEGIN{print a + b}')
  export_total=$(awk -v a="$export_total" -v b="$(secs "$t1" "$t2")" 'BEGIN{print a + b}')
  restic_total=$(awk -v a="$restic_total" -v b="$(secs "$t2" "$t3")" 'BEGIN{print a + b}')
  echo "$(secs "$t1" "$t2")" >>"$work/export-times"
  echo "night $night: backup $(secs "$t0" "$t1") s, export $(secs "$t1" "$t2") s, restic $(secs "$t2" "$t3") s — $(tail -1 "$work/backup.log")" >&2
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# A full export: the median of the last three nights'.
export_seconds=$(tail -3 "$work/export-times" | median)
# An unchanged night (nothing changed since the last backup): the median of three.
for _ in 1 2 3; do
  t0=$(now); "$bin" backup --repo "$work/repo" "${shop[@]}" >"$work/backup.log" 2>&1; t1=$(now)
  secs "$t0" "$t1" >>"$work/unchanged-times"; echo >>"$work/unchanged-times"
done
unchanged=$(grep . "$work/unchanged-times" | median)
"$bin" check --repo "$work/repo" --read-data >"$work/check.log" 2>&1 || { cat "$work/check.log" >&2; exit 1; }

mb() { awk -v b="$(du -sb "$1" | cut -f1)" 'BEGIN{printf "%.1f", b / 1048576}'; }
row() { printf '| %-46s | %12s |\n' "$1" "$2"; }
{
  echo "Backups: $N products × 3 photos, $NIGHTS nights with 1 % changed each night (half a field, half deleted and made again with new photos), sandbox on the same $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "what" "value"
  row "---" "---:"
  row "one export (manifest + originals), MB" "$(mb "$work/export")"
  row "openmarket repository after $NIGHTS snapshots, MB" "$(mb "$work/repo")"
  row "restic repository (a fresh export each night), MB" "$(mb "$work/restic")"
  row "openmarket backups, all nights, s" "$ours_total"
  row "exports + restic, all nights, s" "$(awk -v a="$export_total" -v b="$restic_total" 'BEGIN{print a + b}')"
  row "full export (median of the last 3 nights), s" "$export_seconds"
  row "unchanged night: openmarket backup (median of 3), s" "$unchanged"
  row "unchanged night vs full export" "$(awk -v a="$export_seconds" -v b="$unchanged" 'BEGIN{printf "%.0f×", a / b}')"
  row "repository vs restic's size" "$(awk -v a="$(du -sb "$work/repo" | cut -f1)" -v b="$(du -sb "$work/restic" | cut -f1)" 'BEGIN{printf "%.2f", a / b}')"
  row "check --read-data" "$(tail -1 "$work/check.log")"
  row "snapshots in the repository" "$("$bin" snapshots --repo "$work/repo" --format json | grep -c '"id"')"
} | tee Benchmarks/results/backup.md
