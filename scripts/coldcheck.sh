#!/usr/bin/env bash
# coldcheck.sh measures make check on a fresh machine: an empty module
# cache (every module downloaded) and an empty build cache, with wall time,
# CPU seconds (user + system: the machine may be shared) and peak RSS, and
# the load average before and after. With -tools it runs make check on the
# module cache as it is and an empty build cache, with every compile, vet
# and link timed (go's -toolexec, this script as the wrapper), and prints
# their CPU seconds by module (std: the standard library), vet and link
# (BENCHMARKS.md, "make check on empty caches").
#
#   scripts/coldcheck.sh [-tools] [REV]   # REV: a git revision instead of the work tree
set -euo pipefail
if [ -n "${COLDCHECK_LOG:-}" ]; then # as go's -toolexec wrapper
  tool=$(basename "$1") pkg=-
  args=("$@")
  for ((i = 1; i < ${#args[@]} - 1; i++)); do
    case ${args[$i]} in -p) pkg=${args[$((i + 1))]} ;; esac
  done
  case $tool in vet | link) pkg=$tool ;; esac
  exec /usr/bin/time -a -o "$COLDCHECK_LOG" -f "$tool $pkg %U %S" "$@"
fi
cd "$(dirname "$0")/.."
tools=false
if [ "${1:-}" = -tools ]; then tools=true; shift; fi
src=.
if [ $# -gt 0 ]; then
  src=$(mktemp -d)
  git worktree add -q --detach "$src" "$1"
  trap 'git worktree remove --force "$src"' EXIT
fi
script=$PWD/scripts/coldcheck.sh
tmp=$(mktemp -d)
mkdir "$tmp/mod" "$tmp/build"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
if ! $tools; then
  ( cd "$src" && GOMODCACHE="$tmp/mod" GOCACHE="$tmp/build" GOFLAGS="-buildvcs=false -modcacherw" \
      /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" make check >"$tmp/out" 2>&1 ) || { cat "$tmp/out"; exit 1; }
  read -r wall user sys rss < "$tmp/t"
  echo "make check on empty module and build caches (${1:-work tree}): wall ${wall}s, cpu $(echo "$user + $sys" | bc)s (user $user, sys $sys), peak RSS $((rss / 1024)) MB"
else
  ( cd "$src" && COLDCHECK_LOG="$tmp/log" GOCACHE="$tmp/build" GOFLAGS="-buildvcs=false -toolexec=$script" \
      /usr/bin/time -f '%e %U %S' -o "$tmp/t" make check >"$tmp/out" 2>&1 ) || { cat "$tmp/out"; exit 1; }
  read -r wall user sys < "$tmp/t"
  echo "make check on an empty build cache, tools timed (${1:-work tree}): wall ${wall}s, cpu $(echo "$user + $sys" | bc)s"
  # package → module of everything make check builds (a test variant is
  # named as the compiler's -p names it: the import path alone).
  ( cd "$src" && go list -test -deps -f '{{.ImportPath}} {{with .Module}}{{.Path}}{{else}}std{{end}}' ./... ) |
    awk 'NR == FNR { sub(/ \[.*\]/, "", $1); mod[$1] = $NF; next }
      $1 == "vet" || $1 == "link" { cpu[$1] += $3 + $4; n[$1]++; next }
      $2 == "-" { next }  # a tool asked for its version
      $1 == "compile" || $1 == "asm" || $1 == "cgo" { m = ($2 == "main") ? "main packages (commands, test mains)" : ($2 in mod) ? mod[$2] : "std"; cpu[m] += $3 + $4; n[m]++ }
      END { for (k in cpu) { printf "%8.1f %5d  %s\n", cpu[k], n[k], k; t += cpu[k] } printf "%8.1f        timed tools in all\n", t }' \
      - "$tmp/log" | sort -rn | head -n 25
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
chmod -R u+w "$tmp"
rm -rf "$tmp"
