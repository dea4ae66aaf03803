#!/usr/bin/env bash
# coldcli.sh measures what a first-time user pays for the README's main
# command: go run ./cmd/lasagna benchmark run examples/data/faq.jsonl
# --profile speed with an empty module cache (every module downloaded) and
# an empty build cache, in CPU seconds (user + system) beside wall time,
# since the machine may be shared. With -modules it prints instead the cold
# cost of each outside module the default binary links: its packages built
# alone on an empty build cache, minus the standard-library packages they
# need (built alone first), so each line is what that module adds.
#
#   scripts/coldcli.sh [-modules] [REV]   # REV: a git revision instead of the work tree
set -euo pipefail
cd "$(dirname "$0")/.."
modules=false
if [ "${1:-}" = -modules ]; then modules=true; shift; fi
src=.
if [ $# -gt 0 ]; then
  src=$(mktemp -d)
  git worktree add -q --detach "$src" "$1"
  trap 'git worktree remove --force "$src"' EXIT
fi
tmp=$(mktemp -d)
cpu() { read -r wall user sys < "$1"; echo "wall ${wall}s, cpu $(echo "$user + $sys" | bc)s"; }
if ! $modules; then
( cd "$src" && GOMODCACHE="$tmp/mod" GOCACHE="$tmp/build" GOFLAGS=-modcacherw /usr/bin/time -f '%e %U %S' -o "$tmp/t" \
    go run ./cmd/lasagna benchmark run examples/data/faq.jsonl --profile speed -o "$tmp/b.json" >/dev/null )
pkgs=$(cd "$src" && go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./cmd/lasagna | grep -v '^github.com/lasagna-go/' | grep -c . || true)
echo "README main command on empty module and build caches (${1:-work tree}): $(cpu "$tmp/t"); go list -deps ./cmd/lasagna: $pkgs packages outside the module and the standard library"
fi
if $modules; then
  cd "$src"
  # The standard-library packages the command needs, built once; each
  # module then builds on a copy of that cache.
  std=$(go list -deps -f '{{if .Standard}}{{.ImportPath}}{{end}}' ./cmd/lasagna | grep . | tr '\n' ' ')
  GOCACHE="$tmp/std" /usr/bin/time -f '%e %U %S' -o "$tmp/ts" go build $std
  echo "  standard library packages of the command: $(cpu "$tmp/ts")"
  for m in $(go list -deps -f '{{if .Module}}{{if not .Module.Main}}{{.Module.Path}}{{end}}{{end}}' ./cmd/lasagna | sort -u); do
    mp=$(go list -deps -f '{{if .Module}}{{if eq .Module.Path "'"$m"'"}}{{.ImportPath}}{{end}}{{end}}' ./cmd/lasagna | grep . | tr '\n' ' ' || true)
    rm -rf "$tmp/m" && cp -r "$tmp/std" "$tmp/m"
    GOCACHE="$tmp/m" /usr/bin/time -f '%e %U %S' -o "$tmp/tm" go build $mp 2>/dev/null || true
    read -r _ u s < "$tmp/tm"
    echo "  $m: $(echo "$u + $s" | bc) CPU-s beyond the standard library ($(echo $mp | wc -w) packages, with the modules they import)"
  done
fi
rm -rf "$tmp" || true
