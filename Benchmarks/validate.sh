#!/usr/bin/env bash
# openmarket validate on generated CSVs (and the same rows as JSON arrays) of 100,000 and 1,000,000 rows (images are checked
# by their first bytes, never decoded): rows per second and peak RSS (GNU time), to show
# speed and that memory stays flat. Writes Benchmarks/results/validate.md.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build -c release --product openmarket >/dev/null
bin=$(swift build -c release --show-bin-path)

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

row() { printf '| %12s | %8s | %9s | %10s | %12s | %11s |\n' "$@"; }
{
  echo "openmarket validate, generated CSV and JSON (the same rows), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "rows" "MB" "seconds" "rows/s" "peak RSS MB" "exit code"
  row "---:" "---:" "---:" "---:" "---:" "---:"
  for format in csv json; do
  for n in 100000 1000000; do
    if [ "$format" = csv ]; then generate "$n" "$work/p.csv"; else generate_json "$n" "$work/p.json"; fi
    file="$work/p.$format"
    mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN{printf "%.0f", b/1048576}')
    set +e
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin/openmarket" validate "$file" >"$work/out" 2>&1
    code=$?
    set -e
    read -r seconds kb <"$work/time"
    row "$format $n" "$mb" "$seconds" "$(awk -v n="$n" -v s="$seconds" 'BEGIN{printf "%d", n/s}')" "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')" "$code"
    tail -1 "$work/out" >&2
    rm -f "$file"
  done
  done
} | tee Benchmarks/results/validate.md
