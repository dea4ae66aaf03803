#!/usr/bin/env bash
# coldbuild-report.sh measures what the HTML reporter adds to a user's test
# when it compiles cold: it writes a throwaway module outside the
# repository (a `replace` of github.com/lasagna-go/lasagna to the source
# tree) with two variants of one test, "plain" (imports evaltest) and
# "report" (imports evaltest and reporters/htmlreport, and adds the HTML
# reporter to Config.Reporters), and compiles each test binary with an
# empty build cache (the module cache is used as it is). It prints the CPU
# time (user + system) of each and their ratio; issue 21 asks for a ratio
# of at most 1.2. Run it on an idle machine: it builds the two variants one
# after the other, so their figures are comparable.
#
#   scripts/coldbuild-report.sh [REV]   # REV: a git revision to measure instead of the work tree
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
if [ $# -gt 0 ]; then
  src=$(mktemp -d)
  git worktree add -q --detach "$src" "$1"
  trap 'git worktree remove --force "$src"' EXIT
fi
mod=$(mktemp -d)
cp "$src/go.sum" "$mod/go.sum"
cat > "$mod/go.mod" <<MOD
module example.com/usertest

go 1.26.0

require github.com/lasagna-go/lasagna v0.0.0

replace github.com/lasagna-go/lasagna => $src
MOD
mkdir -p "$mod/plain" "$mod/report"
cat > "$mod/plain/rag_test.go" <<'GO'
package plain

import (
	"testing"

	"github.com/lasagna-go/lasagna/evaltest"
)

func TestRAG(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"faq.jsonl"},
		Arms:       []evaltest.Arm{evaltest.BM25()},
	})
}
GO
cat > "$mod/report/rag_test.go" <<'GO'
package report

import (
	"testing"

	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/reporters/htmlreport"
)

func TestRAG(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"faq.jsonl"},
		Arms:       []evaltest.Arm{evaltest.BM25()},
		Reporters:  []reporters.Reporter{htmlreport.Reporter{}},
	})
}
GO
declare -A cpu
for v in plain report; do
  cache=$(mktemp -d)
  out=$(mktemp)
  ( cd "$mod/$v" && GOCACHE="$cache" GOFLAGS=-mod=mod /usr/bin/time -f '%U %S %e' -o "$out" go test -c -o /dev/null . )
  read -r user sys wall < "$out"
  cpu[$v]=$(echo "$user + $sys" | bc)
  pkgs=$(cd "$mod/$v" && GOFLAGS=-mod=mod go list -test -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' . | grep -v -e '^github.com/lasagna-go/' -e '^example.com/' | grep -c . || true)
  echo "$v: cpu ${cpu[$v]}s (user $user, sys $sys), wall ${wall}s; $pkgs packages outside the module and the standard library"
  rm -rf "$cache" "$out"
done
echo "ratio report/plain (${1:-work tree}): $(echo "scale=2; ${cpu[report]} / ${cpu[plain]}" | bc)"
rm -rf "$mod"
