#!/usr/bin/env bash
# kill -9 at random moments during an import of ROWS products (2,000), ROUNDS times (10), each
# run started again on the same sheet, then one run to the end: every row must be one product,
# none twice, and that last run must make only what the killed ones had not. With the group
# commit of #57 (a create's journal line riding on its durable pending link, the link after the
# answer and the run record's created line synced with the next durable change), this is the
# promise checked: a kill loses and doubles nothing.
# The sandbox answers after LATENCY ms (20) and drops DROP of the answers (0.05: a write done
# whose answer is lost), so that each run is killed with writes in flight and answers unknown.
#   Benchmarks/kill-import.sh           (ROWS=2000 ROUNDS=10 SEED=1 LATENCY=20 DROP=0.05)
# Writes Benchmarks/results/kill-import.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-2000}
ROUNDS=${ROUNDS:-10}
SEED=${SEED:-1}
LATENCY=${LATENCY:-20}
DROP=${DROP:-0.05}
work=${WORK:-/tmp/openmarket-kill-import}
rm -rf "$work"; mkdir -p "$work"
source scripts/lib/sandbox.sh
source scripts/lib/revision.sh
source scripts/lib/rows.sh
trap 'stop_sandboxes' EXIT
bin=$(release_binary "")
sample_photos "$work"
product_sheet "$ROWS" "$work/import.csv" K "a.jpg;b.jpg"
start_sandbox "$bin" "$work/data" --latency "$LATENCY" --drop-rate "$DROP"
products() {  # every product's name, one a line (a dropped answer is asked again)
  python3 - "$url" <<'PY'
import json, sys, time, urllib.request
url, page = sys.argv[1], 1
while True:
    for attempt in range(50):
        try:
            with urllib.request.urlopen(f"{url}/api/products?page_no={page}&items_per_page=500", timeout=10) as answer:
                data = json.load(answer)
            break
        except Exception:
            time.sleep(0.05)
    else:
        sys.exit("the sandbox did not list its products")
    for product in data["pages"]:
        print(product["name"])
    if not data.get("hasNext", data.get("has_next")):
        break
    page += 1
PY
}
RANDOM=$SEED
{
  echo "kill -9 during an import of $ROWS products × 2 photos into a local sandbox ($LATENCY ms a request, $DROP of the answers dropped), $ROUNDS times, then once to the end; release build $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| round | killed after s | products | doubled |"
  echo "| ---: | ---: | ---: | ---: |"
  for round in $(seq "$ROUNDS"); do
    delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.5 + (r % 2500) / 1000 }')
    XDG_STATE_HOME="$work/state" "$bin" import "$work/import.csv" --server "$url" --identifier "$identifier" --secret "$secret" \
      --jobs 4 --no-cache --quiet --report "$work/report" >"$work/out.$round" 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    products >"$work/names"
    echo "| $round | $delay | $(wc -l <"$work/names") | $(sort "$work/names" | uniq -d | wc -l) |"
  done
  XDG_STATE_HOME="$work/state" "$bin" import "$work/import.csv" --server "$url" --identifier "$identifier" --secret "$secret" \
    --jobs 4 --no-cache --quiet --report "$work/report" >"$work/out.final" 2>&1 || true
  products >"$work/names"
  total=$(wc -l <"$work/names"); doubled=$(sort "$work/names" | uniq -d | wc -l)
  echo "| end | – | $total | $doubled |"
  echo
  echo "Last run: $(grep -o "$ROWS rows: .*" "$work/out.final" | head -1 | sed 's/ in .*//')"
  if [ "$total" -eq "$ROWS" ] && [ "$doubled" -eq 0 ]; then echo "Every row is one product, none twice."
  else echo "FAILED: $total products for $ROWS rows, $doubled names twice."; fi
} | tee Benchmarks/results/kill-import.md
