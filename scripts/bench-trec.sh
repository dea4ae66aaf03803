#!/bin/sh
# bench-trec.sh times `lasagna metrics trec` end to end (reading, parsing,
# evaluating, printing) on a generated 5,000-query x 1,000-document run
# (5M lines, about 219 MB) and its qrels (about 300k judgements), with
# /usr/bin/time -v for wall time and peak memory. The files are generated
# once (deterministically, by scripts/gentrec) into $TREC_BENCH_DIR
# (default: a lasagna-trec-bench folder in the system temp directory).
#
# Reference: trec_eval 10 built with -O2 takes about 6.7 s on the same
# input on this kind of 2-core machine; the goal is at most a third of it.
set -eu
cd "$(dirname "$0")/.."
dir=${TREC_BENCH_DIR:-${TMPDIR:-/tmp}/lasagna-trec-bench}
runs=${TREC_BENCH_RUNS:-3}
mkdir -p "$dir"
if [ ! -s "$dir/run.txt" ] || [ ! -s "$dir/qrels.txt" ]; then
	echo "generating $dir/run.txt and $dir/qrels.txt"
	go run ./scripts/gentrec -queries 5000 -depth 1000 -run "$dir/run.txt" -qrels "$dir/qrels.txt"
fi
go build -o "$dir/lasagna" ./cmd/lasagna
cat "$dir/run.txt" "$dir/qrels.txt" >/dev/null # warm the page cache
echo "lasagna metrics trec $dir/qrels.txt $dir/run.txt ($(wc -l <"$dir/run.txt") run lines, GOMAXPROCS=${GOMAXPROCS:-$(nproc)})"
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$dir/lasagna" metrics trec "$dir/qrels.txt" "$dir/run.txt" 2>"$dir/time.txt" >"$dir/out.txt"
		awk -v i="$i" '/Elapsed \(wall clock\)/ {w=$NF} /User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {m=$NF}
			END {printf "run %d: wall %s  user %ss  sys %ss  max RSS %.0f MB\n", i, w, u, s, m/1024}' "$dir/time.txt"
	else
		start=$(date +%s%N)
		"$dir/lasagna" metrics trec "$dir/qrels.txt" "$dir/run.txt" >"$dir/out.txt" 2>/dev/null
		end=$(date +%s%N)
		echo "run $i: wall $(((end - start) / 1000000)) ms"
	fi
done
grep -E '^(num_q|map|P_10) ' "$dir/out.txt"
