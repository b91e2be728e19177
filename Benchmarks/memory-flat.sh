#!/usr/bin/env bash
# Memory against the shop's size: an all-unchanged re-run of SMALL rows against a shop of SMALL
# products, and of BIG rows against a shop of BIG (5,000 and 50,000 by default), by this tree
# and by BASE (d527670 by default), in alternating rounds on the same two shops. Each line:
# wall time and peak RSS (GNU time); the last lines the ratio BIG ÷ SMALL of each build's peak
# (the goal: at most 1.25). The two shops are made once (a first import, photos shrunk once)
# and kept under $WORK between runs.
#   Benchmarks/memory-flat.sh                  (SMALL=5000 BIG=50000 ROUNDS=2 BASE=d527670)
#   SMALL=2000 BIG=20000 ROUNDS=1 Benchmarks/memory-flat.sh
# Writes Benchmarks/results/memory-flat.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SMALL=${SMALL:-5000}
BIG=${BIG:-50000}
ROUNDS=${ROUNDS:-2}
BASE=${BASE:-d527670}
work=${WORK:-/tmp/openmarket-memory}
mkdir -p "$work"
source scripts/lib/sandbox.sh
trap stop_sandboxes EXIT

bin=$(work=${COMPARE:-/tmp/openmarket-compare} && source scripts/lib/revision.sh && release_binary "")
base_bin=$(work=${COMPARE:-/tmp/openmarket-compare} && mkdir -p "$work" && source scripts/lib/revision.sh && release_binary "$BASE")
cp samples/images/TEA-003/1.jpg "$work/photo.jpg"

sheet() {  # N → products-N.csv: N products, each with the one photo
  [ -f "$work/products-$1.csv" ] || awk -v n="$1" 'BEGIN { print "key,name,price,currency,stock,images"
    for (i = 1; i <= n; i++) printf "MF%07d,Memory product %d,%d,KRW,%d,photo.jpg\n", i, i, 1000 + i % 900, i % 50 }' >"$work/products-$1.csv"
}

# One sandbox per shop; its first import makes the products (kept for the next run of this script).
declare -A url id secret
for n in "$SMALL" "$BIG"; do
  sheet "$n"
  start_sandbox "$bin" "$work/shop-$n"
  url[$n]=$url id[$n]=$identifier secret[$n]=$secret
  if [ ! -d "$work/state-$n" ]; then
    echo "making a shop of $n products (once)…" >&2
    XDG_STATE_HOME="$work/state-$n" XDG_CACHE_HOME="$work/cache" "$bin" import "$work/products-$n.csv" --server "$url" \
      --identifier "$identifier" --secret "$secret" --quiet --jobs 8 >"$work/made-$n.log" 2>&1
  fi
  # The base build keeps a state of its own (a copy), never written by this tree's.
  rm -rf "$work/state-$n-base" && cp -r "$work/state-$n" "$work/state-$n-base"
done

results="$work/rows.txt"
: >"$results"
run() {  # label n binary state → one line
  local label=$1 n=$2 binary=$3 state=$4
  XDG_STATE_HOME="$state" XDG_CACHE_HOME="$work/cache" /usr/bin/time -f "%e %M" -o "$work/time" "$binary" import "$work/products-$n.csv" \
    --server "${url[$n]}" --identifier "${id[$n]}" --secret "${secret[$n]}" --quiet >"$work/step.log" 2>&1 || true
  read -r seconds peak <"$work/time"
  local summary
  summary=$(grep -E '^[0-9,]+ rows?:' "$work/step.log" | head -1 | cut -c1-50)
  echo "$label $n $seconds $peak" >>"$results"
  printf '| %-22s | %8s | %8.2f | %8.1f | %s |\n' "$label" "$n" "$seconds" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$summary"
}

# A sandbox listens on a new port each time, so each state first links its products again by
# name (a run that adopts, not an unchanged one): once per build and shop, not counted.
for n in "$SMALL" "$BIG"; do
  for pair in "$bin:$work/state-$n" "$base_bin:$work/state-$n-base"; do
    XDG_STATE_HOME="${pair#*:}" XDG_CACHE_HOME="$work/cache" "${pair%%:*}" import "$work/products-$n.csv" --server "${url[$n]}" \
      --identifier "${id[$n]}" --secret "${secret[$n]}" --quiet >/dev/null 2>&1 || true
  done
done

table() {
  printf '| %-22s | %8s | %8s | %8s | %s |\n' build "shop" seconds "peak MB" summary
  printf '| %-22s | %8s | %8s | %8s | %s |\n' --- ---: ---: ---: ---
  for round in $(seq "$ROUNDS"); do
    for n in "$SMALL" "$BIG"; do
      run "this tree" "$n" "$bin" "$work/state-$n"
      run "$BASE" "$n" "$base_bin" "$work/state-$n-base"
    done
  done
}
body=$(table)
# Medians of the peaks, and each build's BIG ÷ SMALL.
median() {  # build n → the median peak in KB of that build's runs against that shop
  awk -v build="$1" -v n="$2" '($1 == "this" ? "this tree" : $1) == build && ($1 == "this" ? $3 : $2) == n { print ($1 == "this" ? $5 : $4) }' "$results" |
    sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratios=$(for build in "this tree" "$BASE"; do
  s=$(median "$build" "$SMALL"); g=$(median "$build" "$BIG")
  awk -v b="$build" -v s="$s" -v g="$g" 'BEGIN { printf "| %-22s | %8.1f | %8.1f | %6.2f |\n", b, s / 1024, g / 1024, g / s }'
done)
{
  echo "Peak memory of an all-unchanged re-run against the shop's size: $SMALL and $BIG products (as many rows), a local sandbox, release builds, $(nproc) cores, $ROUNDS alternating rounds, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "$body"
  echo
  printf '| %-22s | %8s | %8s | %6s |\n' "build (median peak)" "MB $SMALL" "MB $BIG" "÷"
  printf '| %-22s | %8s | %8s | %6s |\n' --- ---: ---: ---:
  echo "$ratios"
} | tee Benchmarks/results/memory-flat.md
