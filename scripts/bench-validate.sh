#!/bin/sh
# bench-validate.sh times `lasagna results validate` and `lasagna results
# report` of a bundle against python3's json.load of the same file, in
# alternating rounds, under /usr/bin/time: CPU seconds (user + system) and
# peak resident memory of each, and per round the ratio of lasagna's CPU to
# python's (issue 39, item 3: at most 1.5x).
#
#   sh scripts/bench-validate.sh BUNDLE LASAGNA [LASAGNA...]
#
# Give several lasagna binaries (a build of the base commit and one of the
# branch) to compare them in the same rounds. BENCH_ROUNDS sets the number
# of rounds (default 5). A depth-1000 bundle: `lasagna benchmark run DIR
# --profile speed --top-k 1000 -o b.json` on BenchmarkRunDepth's data
# (LASAGNA_TEST_DEPTH_WRITE=DIR:10000 on the cmd/lasagna test binary writes
# it; see BENCHMARKS.md, "Validating a depth-1000 bundle").
set -eu
bundle=$1
shift
rounds=${BENCH_ROUNDS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpu() { awk '{printf "%.2f", $1 + $2}' "$1"; }
mib() { awk '{printf "%d", $3 / 1024}' "$1"; }
i=1
while [ "$i" -le "$rounds" ]; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%U %S %M' -o "$out/py" python3 -c "import json; json.load(open('$bundle'))"
	py=$(cpu "$out/py")
	echo "round $i (load $load): python3 json.load $py CPU-s, $(mib "$out/py") MiB"
	for bin in "$@"; do
		/usr/bin/time -f '%U %S %M' -o "$out/v" "$bin" results validate "$bundle" >/dev/null
		/usr/bin/time -f '%U %S %M' -o "$out/r" "$bin" results report "$bundle" -o "$out/r.html" >/dev/null
		v=$(cpu "$out/v")
		r=$(cpu "$out/r")
		echo "  $bin: validate $v CPU-s ($(echo "$v $py" | awk '{printf "%.2f", $1 / $2}')x python), $(mib "$out/v") MiB;" \
			"report $r CPU-s ($(echo "$r $py" | awk '{printf "%.2f", $1 / $2}')x python), $(mib "$out/r") MiB"
	done
	i=$((i + 1))
done
