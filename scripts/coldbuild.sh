#!/usr/bin/env bash
# coldbuild.sh measures the cold build of a retrieval-only user test: the
# test binary of examples/retrieval (evaltest + the built-in BM25 and the
# user's own retriever) compiled with an empty build cache. It prints wall
# time and CPU time (user + system), since the machine may be shared.
#
#   scripts/coldbuild.sh [REV]   # REV: a git revision to measure instead of the work tree
set -euo pipefail
cd "$(dirname "$0")/.."
src=.
if [ $# -gt 0 ]; then
  src=$(mktemp -d)
  git worktree add -q --detach "$src" "$1"
  trap 'git worktree remove --force "$src"' EXIT
fi
cache=$(mktemp -d)
out=$(mktemp)
( cd "$src" && GOCACHE="$cache" /usr/bin/time -f '%e %U %S' -o "$out" go test -c -o /dev/null ./examples/retrieval )
read -r wall user sys < "$out"
pkgs=$(cd "$src" && go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./evaltest | grep -v '^github.com/lasagna-go/' | grep -c . || true)
echo "cold build of examples/retrieval's test (${1:-work tree}): wall ${wall}s, cpu $(echo "$user + $sys" | bc)s; go list -deps ./evaltest: $pkgs packages outside the module and the standard library"
rm -rf "$cache" "$out"
