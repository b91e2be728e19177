#!/usr/bin/env bash
# A new user's first minutes, timed on fresh clones: the README's first command
# (scripts/install-deps && swift run openmarket import samples/products.csv) from a clone with
# no .build and no SwiftPM cache, the build and the import apart; then an incremental build
# after touching one file of CatalogSync; and `swift build --build-tests` (what `swift test`
# compiles) on a fresh clone. Each revision given is cloned and measured in turn.
#   Benchmarks/first-run.sh [REV...]     (default: HEAD; the working tree is not measured)
# Writes Benchmarks/results/first-run.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)
work=${WORK:-$(mktemp -d /tmp/openmarket-first-run.XXXXXX)}
trap 'rm -rf "$work"' EXIT
scripts/install-deps

seconds() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", e - s }'; }
now() { date +%s.%N; }

row() { printf '| %-12s | %12s | %14s | %10s | %14s | %16s | %s |\n' "$@"; }
{
  echo "The README's first command on fresh clones (no .build, no SwiftPM cache), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  row "revision" "build (s)" "import of 20 (s)" "total (s)" "touch + build (s)" "build-tests (s)" "summary line"
  row "---" "---:" "---:" "---:" "---:" "---:" "---"
  for rev in "${revs[@]}"; do
    label=$(git rev-parse --short "$rev")
    clone="$work/clone-$label"
    rm -rf "$clone" "$work/cache-$label"
    git clone -q "$repo" "$clone"
    git -C "$clone" checkout -q "$label"
    cd "$clone"
    export XDG_STATE_HOME="$work/state-$label" XDG_CACHE_HOME="$work/cache-$label"
    # No SwiftPM cache: its own cache folder, empty.
    cache=(--cache-path "$work/cache-$label/swiftpm")
    t0=$(now)
    swift build "${cache[@]}" --product openmarket >"$work/build-$label.log" 2>&1
    t1=$(now)
    swift run "${cache[@]}" openmarket import samples/products.csv >"$work/run-$label.log" 2>&1
    t2=$(now)
    summary=$(grep -E '^20 rows:' "$work/run-$label.log" | head -1)
    # The import alone, as the summary line measured it.
    import=$(echo "$summary" | sed -n 's/.* in \([0-9.]*\) s.*/\1/p')
    # A change of content (the compiler tells files apart by content, not by their time).
    echo "// touched by first-run.sh" >>Sources/CatalogSync/SyncRun.swift
    t3=$(now)
    swift build "${cache[@]}" --product openmarket >/dev/null 2>&1
    t4=$(now)
    rm -rf .build
    t5=$(now)
    swift build "${cache[@]}" --build-tests >"$work/tests-$label.log" 2>&1
    t6=$(now)
    row "$label" "$(seconds "$t0" "$t1")" "${import:-?}" "$(seconds "$t0" "$t2")" "$(seconds "$t3" "$t4")" "$(seconds "$t5" "$t6")" "${summary:-$(tail -1 "$work/run-$label.log")}"
    cd "$repo"
  done
  echo
  echo "build: \`swift build --product openmarket\` on the fresh clone (what \`swift run\` builds); import: the summary"
  echo "line's own time; total: from the clone to the printed summary (build, sandbox start, import, report)."
  echo "touch + build: after touching one file of CatalogSync. build-tests: \`swift build --build-tests\` on a"
  echo "fresh .build (what \`swift test\` compiles before it runs anything)."
} | tee Benchmarks/results/first-run.md
