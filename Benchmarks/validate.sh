#!/usr/bin/env bash
# openmarket validate on generated CSVs (the same rows as JSON arrays, and as a supplier's sheet read
# through a feed file: their headers, a cost made into a price) of 100,000 and 1,000,000 rows (images are checked
# by their first bytes, never decoded): rows per second and peak RSS (GNU time), to show
# speed and that memory stays flat. JSON Lines too (the JSON rows one a line). With BASE=REV, every
# file is read by that revision's build too (a git worktree under $WORK), on the same file right
# after: the ratio shows in one run. ROWS="100000 1000000" by default; each file is read ROUNDS
# times (3) by each build, the median time shown.
#   BASE=a787f3f ROWS=300000 Benchmarks/validate.sh
# FORMATS="csv json" reads only those (csv supplier json jsonl by default). CPU µs/row is the median
# of user + system time over the rows (all threads).
# Writes Benchmarks/results/validate.md.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)
BASE=${BASE:-}
ROWS=${ROWS:-100000 1000000}
FORMATS=${FORMATS:-csv supplier json jsonl}
ROUNDS=${ROUNDS:-3}
base_bin=""
if [ -n "$BASE" ]; then
  source scripts/lib/revision.sh
  base_bin=$(work=${WORK:-/tmp/openmarket-compare} && mkdir -p "$work" && release_binary "$BASE")
fi

cp samples/images/TEA-003/1.jpg "$work/a.jpg"
cp samples/images/TEA-002/1.jpg "$work/b.jpg"
generate() {  # rows file
  awk -v n="$1" 'BEGIN {
    print "key,name,description,price,currency,discounted_price,stock,images"
    for (i = 1; i <= n; i++) {
      cur = (i % 3 == 0) ? "USD" : "KRW"
      price = (cur == "USD") ? sprintf("%d.%02d", i % 500, i % 100) : sprintf("\"%d,%03d\"", 1 + i % 900, i % 1000)
      printf "SKU-%07d,\"상품 %d, 녹차 라떼\",\"Row %d: a description with, commas and \"\"quotes\"\"\",%s,%s,0,%d,a.jpg;b.jpg\n", i, i, i, price, cur, i % 50
    }
  }' >"$2"
}

generate_json() {  # rows file: the same rows as a JSON array
  awk -v n="$1" 'BEGIN {
    print "["
    for (i = 1; i <= n; i++) {
      cur = (i % 3 == 0) ? "USD" : "KRW"
      price = (cur == "USD") ? sprintf("\"%d.%02d\"", i % 500, i % 100) : sprintf("\"%d,%03d\"", 1 + i % 900, i % 1000)
      printf "{\"key\": \"SKU-%07d\", \"name\": \"상품 %d, 녹차 라떼\", \"description\": \"Row %d: a description with, commas and \\\"quotes\\\"\", \"price\": %s, \"currency\": \"%s\", \"discounted_price\": 0, \"stock\": %d, \"images\": [\"a.jpg\", \"b.jpg\"]}%s\n", i, i, i, price, cur, i % 50, (i < n) ? "," : ""
    }
    print "]"
  }' >"$2"
}

generate_supplier() {  # rows file: the same rows in a supplier's columns, a cost instead of the price
  generate "$1" "$2.tmp"
  { echo "상품코드,상품명,상세설명,공급가,통화,할인,재고수량,이미지"; tail -n +2 "$2.tmp"; } >"$2"
  rm -f "$2.tmp"
}
cat >"$work/feed.toml" <<'EOF'
[columns]
key = "상품코드"
name = "상품명"
description = "상세설명"
cost = "공급가"
currency = "통화"
discounted_price = "할인"
stock = "재고수량"
images = "이미지"
[prices]
markup_percent = 30
[[prices.rules]]
when = { "통화" = "USD" }
markup_percent = 15
EOF

row() { printf '| %12s | %8s | %9s | %10s | %10s | %12s | %11s | %9s |\n' "$@"; }
{
  echo "openmarket validate, generated CSV, JSON and a supplier's CSV through a feed (the same rows), $(nproc) cores, median of $ROUNDS, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "rows" "MB" "seconds" "rows/s" "CPU µs/row" "peak RSS MB" "exit code" "÷ tree"
  row "---:" "---:" "---:" "---:" "---:" "---:" "---:" "---:"
  for format in $FORMATS; do
  for n in $ROWS; do
    feed=()
    case "$format" in
      csv) generate "$n" "$work/p.csv" ;;
      supplier) generate_supplier "$n" "$work/p.supplier"; feed=(--feed "$work/feed.toml" --delimiter ,) ;;
      json) generate_json "$n" "$work/p.json" ;;
      jsonl) generate_json "$n" "$work/p.json"; sed -e '1d;$d' -e 's/},$/}/' "$work/p.json" >"$work/p.jsonl"; rm -f "$work/p.json" ;;
    esac
    file="$work/p.$format"
    mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN{printf "%.0f", b/1048576}')
    # ROUNDS rounds (3 by default), the builds one after the other in each (this machine is noisy:
    # the two builds see the same moment); the median time and the highest peak of each build,
    # and with BASE the ratio of the medians (how many times faster this tree is).
    builds=("$bin/openmarket" ${base_bin:+"$base_bin"})
    declare -A times=() cpus=() kb=() codes=()
    for _ in $(seq "$ROUNDS"); do
      for b in "${!builds[@]}"; do
        set +e
        /usr/bin/time -f "%e %M %U %S" -o "$work/time" "${builds[$b]}" validate "$file" "${feed[@]}" >"$work/out.$b" 2>&1
        codes[$b]=$?
        set -e
        read -r one peak user system <"$work/time"
        times[$b]="${times[$b]:-} $one"
        cpus[$b]="${cpus[$b]:-} $(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')"
        [ "$peak" -gt "${kb[$b]:-0}" ] && kb[$b]=$peak
      done
    done
    median() { printf '%s\n' $1 | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
    tree_seconds=$(median "${times[0]}")
    for b in "${!builds[@]}"; do
      seconds=$(median "${times[$b]}")
      label="$format $n"
      ratio=""
      if [ "$b" -gt 0 ]; then label="$label ($BASE)"; ratio=$(awk -v s="$seconds" -v t="$tree_seconds" 'BEGIN{printf "%.2f", s/t}'); fi
      cpu=$(median "${cpus[$b]}")
      row "$label" "$mb" "$seconds" "$(awk -v n="$n" -v s="$seconds" 'BEGIN{printf "%d", n/s}')" "$(awk -v n="$n" -v c="$cpu" 'BEGIN{printf "%.2f", c * 1e6 / n}')" "$(awk -v k="${kb[$b]}" 'BEGIN{printf "%.1f", k/1024}')" "${codes[$b]}" "$ratio"
      tail -1 "$work/out.$b" >&2
    done
    unset times kb codes
    rm -f "$file"
  done
  done
} | tee Benchmarks/results/validate.md
