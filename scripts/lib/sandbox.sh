# Sourced by the benchmarks and screenshot scripts.
# start_sandbox BIN DATA_DIR [OPTIONS…]: runs `BIN sandbox OPTIONS…` on a free loopback port in the background,
# logging to DATA_DIR.log, and waits until it listens. Sets sandbox_pid, url, identifier and
# secret (the demo vendor's credentials), and writes the pid to a file that stop_sandboxes
# reads: a script's `{ …; start_sandbox …; } | tee` runs the block in a subshell, whose
# variables never reach the script's trap, so an array of pids left every sandbox running.
sandbox_pidfile=$(mktemp "${TMPDIR:-/tmp}/openmarket-sandboxes.XXXXXX")
start_sandbox() {
  "$1" sandbox --port 0 --data "$2" "${@:3}" >"$2.log" 2>&1 &
  sandbox_pid=$!
  echo "$sandbox_pid" >>"$sandbox_pidfile"
  for _ in $(seq 100); do grep -q "Ctrl-C" "$2.log" 2>/dev/null && break; sleep 0.1; done
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$2.log" | head -1)
  identifier=$(grep demo-shop "$2.log" | sed 's/.*identifier: \([^ ]*\).*/\1/')
  secret=$(grep demo-shop "$2.log" | sed 's/.*secret: \([^ ]*\).*/\1/')
  [ -n "$url" ] || { echo "the sandbox did not start:" >&2; cat "$2.log" >&2; return 1; }
}
# stop_sandboxes: for traps. Stops every sandbox this script started, in any subshell, and
# waits (up to 5 s each) until they are gone.
stop_sandboxes() {
  [ -f "$sandbox_pidfile" ] || return 0
  while read -r p; do kill "$p" 2>/dev/null || true; done <"$sandbox_pidfile"
  while read -r p; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done <"$sandbox_pidfile"
  rm -f "$sandbox_pidfile"
}
