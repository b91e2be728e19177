#!/usr/bin/env bash
# Two revisions of openmarket side by side, in one run, on the same machine: validate of a
# 100,000-row CSV, a first import of 500 products × 3 small photos into a fresh sandbox
# (--jobs 4), images shrink of the sample photos, and a sync of 5,000 unchanged rows (the
# same sheet imported again: the shop read, every row compared, nothing sent). Rounds alternate between the two
# builds and their order (A B, B A, A B, …) so that a noisy neighbour or a slowing machine hits both; the table
# shows the median.
#   Benchmarks/compare-revisions.sh BEFORE [AFTER]   (AFTER defaults to the working tree)
# Each revision is built in release in a git worktree under $WORK (default /tmp/openmarket-compare).
# Writes Benchmarks/results/compare-revisions.md. KINDS="sync" runs only those lines.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: Benchmarks/compare-revisions.sh BEFORE [AFTER]}
after=${2:-}
ROUNDS=${ROUNDS:-3}
work=${WORK:-/tmp/openmarket-compare}
mkdir -p "$work"
source scripts/lib/sandbox.sh
source scripts/lib/revision.sh
trap 'stop_sandboxes' EXIT

bin_a=$(release_binary "$before")
bin_b=$(release_binary "$after")
label_a=$(git rev-parse --short "$before")
label_b=${after:+$(git rev-parse --short "$after")}
label_b=${label_b:-"$(git rev-parse --short HEAD) (tree)"}

cp samples/images/TEA-003/1.jpg "$work/a.jpg"
cp samples/images/SNK-002/1.jpg "$work/b.jpg"
cp samples/images/TEA-004/1.jpg "$work/c.jpg"
awk 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= 500; i++) printf "B%d,Benchmark product %d,%d,KRW,%d,a.jpg;b.jpg;c.jpg\n", i, i, 1000 + i, i % 9 }' >"$work/import.csv"
awk 'BEGIN { print "key,name,price,currency,stock,images"
  for (i = 1; i <= 5000; i++) printf "S%d,Synced product %d,%d,KRW,%d,a.jpg\n", i, i, 1000 + i, i % 9 }' >"$work/sync.csv"
awk 'BEGIN { print "key,name,description,price,currency,discounted_price,stock,images"
  for (i = 1; i <= 100000; i++) printf "SKU-%07d,\"상품 %d, 녹차 라떼\",\"Row %d, with commas\",%d,KRW,0,%d,a.jpg;b.jpg\n", i, i, i, 1000 + i % 900, i % 50 }' >"$work/validate.csv"
# One name per photo: images shrink refuses two inputs that would write the same output name.
mkdir -p "$work/photos"
for f in samples/images/*/1.jpg; do cp "$f" "$work/photos/$(basename "$(dirname "$f")").jpg"; done
photos=$(ls "$work"/photos/*.jpg)

measure() {  # binary kind → "seconds peakKB"
  local bin=$1 kind=$2
  case $kind in
    validate) /usr/bin/time -f "%e %M" -o "$work/time" "$bin" validate "$work/validate.csv" >/dev/null 2>&1 || true ;;
    import)
      rm -rf "$work/data" "$work/report" "$work/state" "$work/journal"
      start_sandbox "$bin_b" "$work/data"
      XDG_STATE_HOME="$work/state" /usr/bin/time -f "%e %M" -o "$work/time" "$bin" import "$work/import.csv" --server "$url" \
        --identifier "$identifier" --secret "$secret" --jobs 4 --no-cache --quiet --report "$work/report" --journal "$work/journal" >/dev/null 2>&1
      kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true ;;
    sync)
      rm -rf "$work/data" "$work/report" "$work/state" "$work/journal"
      start_sandbox "$bin_b" "$work/data"
      local shop=(--server "$url" --identifier "$identifier" --secret "$secret" --jobs 4 --quiet --journal "$work/journal")
      # The shop made once (not measured), then the same sheet again: nothing to send.
      XDG_STATE_HOME="$work/state" "$bin" import "$work/sync.csv" "${shop[@]}" --report "$work/report-setup" >/dev/null 2>&1 || true
      XDG_STATE_HOME="$work/state" /usr/bin/time -f "%e %M" -o "$work/time" "$bin" import "$work/sync.csv" "${shop[@]}" \
        --report "$work/report" >/dev/null 2>&1
      rm -rf "$work/report-setup"
      kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true ;;
    shrink)
      rm -rf "$work/shrunk"
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e %M" -o "$work/time" "$bin" images shrink $photos --out "$work/shrunk" --jobs 2 >/dev/null 2>&1 ;;
  esac
  cat "$work/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

row() { printf '| %-44s | %12s | %12s | %8s |\n' "$@"; }
{
  echo "openmarket $label_a (A) and $label_b (B), side by side, $ROUNDS alternating rounds, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "benchmark (median of $ROUNDS)" "A seconds / MB" "B seconds / MB" "B ÷ A"
  row "---" "---:" "---:" "---:"
  for kind in ${KINDS:-validate import shrink sync}; do
    : >"$work/a.txt"; : >"$work/b.txt"
    # A B, then B A: whichever runs second in a pair is not always the same one (a machine
    # that slows down over the minutes made the second of each pair look slower: 1.10 for a
    # change that measured 1.01 the other way round).
    for round in $(seq "$ROUNDS"); do
      if [ $((round % 2)) -eq 1 ]; then
        measure "$bin_a" "$kind" >>"$work/a.txt"; measure "$bin_b" "$kind" >>"$work/b.txt"
      else
        measure "$bin_b" "$kind" >>"$work/b.txt"; measure "$bin_a" "$kind" >>"$work/a.txt"
      fi
    done
    sa=$(cut -d' ' -f1 "$work/a.txt" | median); sb=$(cut -d' ' -f1 "$work/b.txt" | median)
    ma=$(cut -d' ' -f2 "$work/a.txt" | median); mb=$(cut -d' ' -f2 "$work/b.txt" | median)
    case $kind in
      validate) name="validate 100,000 CSV rows" ;;
      import) name="import 500 products × 3 photos, --jobs 4" ;;
      shrink) name="images shrink of the $(echo "$photos" | wc -w) sample photos" ;;
      sync) name="sync of 5,000 unchanged rows (import again)" ;;
    esac
    row "$name" "$sa / $(awk -v k="$ma" 'BEGIN{printf "%.0f", k/1024}')" "$sb / $(awk -v k="$mb" 'BEGIN{printf "%.0f", k/1024}')" \
      "$(awk -v a="$sa" -v b="$sb" 'BEGIN{printf "%.2f", b/a}')"
  done
} | tee Benchmarks/results/compare-revisions.md
