#!/usr/bin/env bash
# The same 200,000 rows as openmarket's own columns in CSV, JSON Lines and JSON, and in
# Cafe24's product-file layout (read through the shipped map), validated by two revisions side
# by side, rounds alternating (A B, B A, …): each reader's and the map's cost per row, and
# memory. Cafe24's rows come twice: with plain descriptions (the same rows as the own-column
# file) and with HTML ones (as Cafe24 writes them).
#   Benchmarks/formats.sh BEFORE [AFTER]   (AFTER defaults to the working tree)
# Writes Benchmarks/results/formats.md.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: Benchmarks/formats.sh BEFORE [AFTER]}
after=${2:-}
ROUNDS=${ROUNDS:-5}
ROWS=${ROWS:-200000}
work=${WORK:-/tmp/openmarket-compare}
mkdir -p "$work"
source scripts/lib/revision.sh
bin_a=$(release_binary "$before")
bin_b=$(release_binary "$after")
label_a=$(git rev-parse --short "$before")
label_b=${after:+$(git rev-parse --short "$after")}
label_b=${label_b:-"$(git rev-parse --short HEAD) (tree)"}
# The rows' photos, beside the files (a missing photo fails every row: the run would measure errors).
cp samples/images/TEA-003/1.jpg "$work/a.jpg"
cp samples/images/TEA-002/1.jpg "$work/b.jpg"
awk -v n="$ROWS" 'BEGIN { print "key,name,description,price,sale_price,stock,images"
  for (i = 1; i <= n; i++) printf "SKU-%07d,\"상품 %d, 녹차 라떼\",\"Row %d\",%d,%d,%d,a.jpg;b.jpg\n", i, i, i, 2000 + i % 900, 1000 + i % 900, i % 50 }' >"$work/own.csv"
python3 - "$work" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/own.csv", encoding="utf-8")))
with open(sys.argv[1] + "/own.jsonl", "w", encoding="utf-8") as out:
    for row in rows: out.write(json.dumps(row, ensure_ascii=False) + "\n")
with open(sys.argv[1] + "/own.json", "w", encoding="utf-8") as out:
    json.dump(rows, out, ensure_ascii=False)
PY
cafe24() {  # description format → Cafe24's product file of the same rows
  awk -v n="$ROWS" -v form="$1" 'BEGIN { print "상품코드,자체 상품코드,진열상태,판매상태,상품명,상품 요약설명,상품 간략설명,상품 상세설명,모바일 상품 상세설명,소비자가,판매가,옵션사용,옵션입력,이미지등록(상세),이미지등록(추가),재고수량"
    for (i = 1; i <= n; i++) printf "P%08d,SKU-%07d,Y,Y,\"상품 %d, 녹차 라떼\",,,\"" form "\",,%d,%d,F,,a.jpg,b.jpg,%d\n", i, i, i, i, 2000 + i % 900, 1000 + i % 900, i % 50 }'
}
cafe24 "Row %d" >"$work/cafe24-plain.csv"
cafe24 "<p>Row %d</p>" >"$work/cafe24-html.csv"

measure() {  # binary file → "seconds cpu peakKB"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$1" validate "$work/$2" --currency KRW >/dev/null 2>&1 || true
  # The last line: GNU time puts "Command exited with non-zero status" before it when a row fails.
  tail -1 "$work/time" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
row() { printf '| %-40s | %16s | %16s | %8s |\n' "$@"; }
declare -A wall
{
  echo "openmarket $label_a (A) and $label_b (B), validate of $ROWS rows, $ROUNDS alternating rounds, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "file (median of $ROUNDS)" "A s / CPU s / MB" "B s / CPU s / MB" "B ÷ A"
  row "---" "---:" "---:" "---:"
  for file in own.csv own.jsonl own.json cafe24-plain.csv cafe24-html.csv; do
    : >"$work/pa.txt"; : >"$work/pb.txt"
    for round in $(seq "$ROUNDS"); do
      if [ $((round % 2)) = 1 ]; then measure "$bin_a" "$file" >>"$work/pa.txt"; measure "$bin_b" "$file" >>"$work/pb.txt"
      else measure "$bin_b" "$file" >>"$work/pb.txt"; measure "$bin_a" "$file" >>"$work/pa.txt"; fi
    done
    ma=$(cut -d' ' -f1 "$work/pa.txt" | median); mb=$(cut -d' ' -f1 "$work/pb.txt" | median)
    ca=$(cut -d' ' -f2 "$work/pa.txt" | median); cb=$(cut -d' ' -f2 "$work/pb.txt" | median)
    ka=$(cut -d' ' -f3 "$work/pa.txt" | median); kb=$(cut -d' ' -f3 "$work/pb.txt" | median)
    wall[a-$file]=$ma; wall[b-$file]=$mb
    row "$file" "$ma / $ca / $((ka / 1024))" "$mb / $cb / $((kb / 1024))" "$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.2f", b / a }')"
  done
  echo
  for side in a b; do
    label=$([ $side = a ] && echo "A" || echo "B")
    echo "$label: JSON Lines ÷ CSV $(awk -v x="${wall[$side-own.jsonl]}" -v o="${wall[$side-own.csv]}" 'BEGIN { printf "%.2f", x / o }'), JSON ÷ CSV $(awk -v x="${wall[$side-own.json]}" -v o="${wall[$side-own.csv]}" 'BEGIN { printf "%.2f", x / o }');"
    echo "$label: Cafe24's layout ÷ own columns, wall: plain $(awk -v x="${wall[$side-cafe24-plain.csv]}" -v o="${wall[$side-own.csv]}" 'BEGIN { printf "%.2f", x / o }'), HTML $(awk -v x="${wall[$side-cafe24-html.csv]}" -v o="${wall[$side-own.csv]}" 'BEGIN { printf "%.2f", x / o }')"
    echo
  done
} | tee Benchmarks/results/formats.md
