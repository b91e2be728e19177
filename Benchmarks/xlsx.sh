#!/usr/bin/env bash
# Reading Excel workbooks: `openmarket validate` (stream the sheet, check every row, images
# checked by their first bytes) against Python's openpyxl in read-only mode (Debian
# python3-openpyxl; iterating every row's values, nothing else) on the same files, in the
# same run. Two workbooks per size: one written by openpyxl in its normal mode (shared
# strings, as Excel saves them) and one by libxlsxwriter (inline strings, as openmarket's
# export and report write them). Rows per second and peak RSS (GNU time), at 10,000 and
# 100,000 rows, to show speed and that memory stays flat; each pair runs ROUNDS times,
# alternating, and the median time is shown. Writes Benchmarks/results/xlsx.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"10000 100000"}
ROUNDS=${ROUNDS:-3}          # each pair is run this many times, alternating; the median is shown
PY=${PY:-/usr/bin/python3}   # Debian's python3, which has python3-openpyxl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${BIN:-}" ]; then
  swift build -c release --product openmarket >/dev/null
  BIN=$(swift build -c release --show-bin-path)
fi
"$PY" -c "import openpyxl" 2>/dev/null || { echo "needs python3-openpyxl (apt-get install -y python3-openpyxl)" >&2; exit 1; }

cp samples/images/TEA-003/1.jpg "$work/a.jpg"
cp samples/images/TEA-002/1.jpg "$work/b.jpg"
generate() {  # rows file.csv
  awk -v n="$1" 'BEGIN {
    print "key,name,description,price,currency,discounted_price,stock,images"
    for (i = 1; i <= n; i++) {
      cur = (i % 3 == 0) ? "USD" : "KRW"
      price = (cur == "USD") ? sprintf("%d.%02d", i % 500, 1 + i % 99) : sprintf("%d", 1000 + i % 90000)
      printf "%07d,\"상품 %d, 녹차 라떼\",\"Row %d: a description with, commas and \"\"quotes\"\"\",%s,%s,0,%d,a.jpg;b.jpg\n", i, i, i, price, cur, i % 50
    }
  }' >"$2"
}
cat >"$work/openpyxl-write.py" <<'PY'
import csv, sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Products"
ws.append(["Product list (generated)"])
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    for i, row in enumerate(csv.reader(f)):
        if i > 0:
            row[3] = float(row[3]) if "." in row[3] else int(row[3])
            row[5] = int(row[5]); row[6] = int(row[6])
        ws.append(row)
wb.save(sys.argv[2])
PY
cat >"$work/openpyxl-read.py" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
rows = 0
for values in wb.worksheets[0].iter_rows(values_only=True):
    rows += 1
print(rows)
PY

row() { printf '| %-42s | %8s | %7s | %9s | %11s | %11s |\n' "$@"; }
time_one() {  # file-for-times command...: appends "seconds kb"
  local times=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  cat "$work/time" >>"$times"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {  # label rows times-file
  local label=$1 rows=$2
  local seconds kb
  seconds=$(cut -d' ' -f1 "$3" | median)
  kb=$(cut -d' ' -f2 "$3" | sort -n | tail -1)
  row "$label" "$rows" "$seconds" "$(awk -v r="$rows" -v s="$seconds" 'BEGIN{printf "%.0f", r/(s>0?s:0.001)}')" \
    "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')" "$(awk -v s="$seconds" -v b="${base:-$seconds}" 'BEGIN{printf "%.1f×", b/s}')"
  echo "$rows $seconds $kb $label" >>"$work/numbers"
}

{
  echo "Reading workbooks: openmarket validate against openpyxl read-only, $(nproc) cores, median of $ROUNDS, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "reader, workbook" "rows" "seconds" "rows/s" "peak RSS MB" "vs openpyxl"
  row "---" "---:" "---:" "---:" "---:" "---:"
  for n in $SIZES; do
    generate "$n" "$work/rows.csv"
    "$PY" "$work/openpyxl-write.py" "$work/rows.csv" "$work/shared.xlsx"
    "$BIN/openmarket" validate "$work/rows.csv" --format xlsx --out "$work/inline.xlsx" >/dev/null
    for kind in shared inline; do
      rm -f "$work/peer" "$work/ours"
      for ((round = 0; round < ROUNDS; round++)); do
        time_one "$work/peer" "$PY" "$work/openpyxl-read.py" "$work/$kind.xlsx"
        time_one "$work/ours" "$BIN/openmarket" validate "$work/$kind.xlsx" --images "$work"
        # The rows were read and checked, every one of them.
        grep -q "^$kind.xlsx: $n rows, $n valid" "$work/out" || { echo "validate did not read $n valid rows:" >&2; cat "$work/out" >&2; exit 1; }
      done
      base=""
      measure "openpyxl read-only, $kind strings" "$n" "$work/peer"
      base=$(tail -1 "$work/numbers" | cut -d' ' -f2)
      measure "openmarket validate, $kind strings" "$n" "$work/ours"
    done
    ls -l "$work"/shared.xlsx "$work"/inline.xlsx | awk '{print "    " $9 ": " $5 " bytes"}' | sed "s|$work/|$n rows, |" >>"$work/sizes"
  done
  echo
  echo "Workbook sizes:"
  echo
  cat "$work/sizes"
} | tee Benchmarks/results/xlsx.md
