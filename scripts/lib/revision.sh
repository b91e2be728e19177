# Sourced by the benchmarks that compare revisions.
# release_binary REV: builds revision REV (empty: the working tree) in release, REV in a git
# worktree under $work, and prints the path of its openmarket binary.
release_binary() {
  local rev=$1 dir
  if [ -z "$rev" ]; then
    swift build -c release --product openmarket >/dev/null
    echo "$(swift build -c release --show-bin-path)/openmarket"
    return
  fi
  dir="$work/tree-$(git rev-parse --short "$rev")"
  [ -d "$dir" ] || git worktree add -q "$dir" "$rev"
  (cd "$dir" && swift build -c release --product openmarket >/dev/null)
  echo "$(cd "$dir" && swift build -c release --show-bin-path)/openmarket"
}
