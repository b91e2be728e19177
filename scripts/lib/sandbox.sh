# Sourced by the benchmarks and screenshot scripts.
# start_sandbox BIN DATA_DIR: runs `BIN sandbox` on a free loopback port in the background,
# logging to DATA_DIR.log, and waits until it listens. Sets sandbox_pid (also appended to
# the array sandbox_pids, for a trap that stops them all), url, identifier and secret (the
# demo vendor's credentials).
sandbox_pids=()
start_sandbox() {
  "$1" sandbox --port 0 --data "$2" >"$2.log" 2>&1 &
  sandbox_pid=$!
  sandbox_pids+=("$sandbox_pid")
  for _ in $(seq 100); do grep -q "Ctrl-C" "$2.log" 2>/dev/null && break; sleep 0.1; done
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$2.log" | head -1)
  identifier=$(grep demo-shop "$2.log" | sed 's/.*identifier: \([^ ]*\).*/\1/')
  secret=$(grep demo-shop "$2.log" | sed 's/.*secret: \([^ ]*\).*/\1/')
  [ -n "$url" ] || { echo "the sandbox did not start:" >&2; cat "$2.log" >&2; return 1; }
}
# stop_sandboxes: for traps.
stop_sandboxes() { for p in "${sandbox_pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
