#!/bin/sh
# bench-trec.sh times `lasagna metrics trec` end to end (process start,
# reading, parsing, evaluating, printing) on a generated 5,000-query x
# 1,000-document run (5M lines, about 219 MB) and its qrels (about 300k
# judgements), under /usr/bin/time (wall, user and system CPU, peak
# memory), with the 1-minute load average read before each run. The files
# are generated once (deterministically, by scripts/gentrec) into
# $TREC_BENCH_DIR (default: a lasagna-trec-bench folder in the system temp
# directory).
#
# With TREC_EVAL set to a trec_eval binary (trec_eval 10 built with -O2;
# never committed here), each round runs trec_eval and then lasagna on the
# same files, alternating, prints both with the ratios, and first checks
# that both print the same bytes for the default measures, for -q and for
# -m all_trec (where trec_eval 10's rbp reads uninitialised memory, so the
# rbp lines are left out of the comparison).
#
# TREC_BENCH_RUNS sets the number of rounds (default 3); extra arguments
# are passed to both programs (for example -m all_trec).
#
# TREC_BENCH_SHAPE picks the input: grouped (default: the 5M-line run,
# each query's lines together, as retrieval systems write them), shuffled
# (the same lines in a fixed random order, as shards concatenated or
# merged runs are: run-shuffled.txt) or cacm (a CACM-sized run: 52 queries
# x 942 documents, 49k lines, cacm-run.txt and cacm-qrels.txt, where start-up
# counts).
set -eu
cd "$(dirname "$0")/.."
dir=${TREC_BENCH_DIR:-${TMPDIR:-/tmp}/lasagna-trec-bench}
runs=${TREC_BENCH_RUNS:-3}
te=${TREC_EVAL:-}
shape=${TREC_BENCH_SHAPE:-grouped}
mkdir -p "$dir"
if [ ! -s "$dir/run.txt" ] || [ ! -s "$dir/qrels.txt" ]; then
	echo "generating $dir/run.txt and $dir/qrels.txt"
	go run ./scripts/gentrec -queries 5000 -depth 1000 -run "$dir/run.txt" -qrels "$dir/qrels.txt"
fi
q=$dir/qrels.txt
r=$dir/run.txt
case $shape in
grouped) ;;
shuffled)
	r=$dir/run-shuffled.txt
	if [ ! -s "$r" ]; then
		echo "generating $r"
		go run ./scripts/gentrec -queries 5000 -depth 1000 -shuffle -run "$r" -qrels "$dir/qrels-shuffled.txt"
		cmp -s "$q" "$dir/qrels-shuffled.txt" # the same qrels
	fi
	;;
cacm)
	q=$dir/cacm-qrels.txt
	r=$dir/cacm-run.txt
	if [ ! -s "$r" ] || [ ! -s "$q" ]; then
		go run ./scripts/gentrec -queries 52 -depth 942 -run "$r" -qrels "$q"
	fi
	;;
*)
	echo "TREC_BENCH_SHAPE=$shape: want grouped, shuffled or cacm" >&2
	exit 2
	;;
esac
go build -o "$dir/lasagna" ./cmd/lasagna
cat "$r" "$q" >/dev/null # warm the page cache
echo "shape $shape, run file: $(wc -l <"$r") lines, $(wc -c <"$r") bytes; GOMAXPROCS=${GOMAXPROCS:-$(nproc)}; args: $*"

if [ -n "$te" ]; then
	for m in "" "-q" "-m all_trec" "-q -m all_trec"; do
		# shellcheck disable=SC2086 # $m is a list of flags
		"$te" $m "$q" "$r" | grep -v '^rbp ' >"$dir/te.out"
		# shellcheck disable=SC2086
		"$dir/lasagna" metrics trec $m "$q" "$r" | grep -v '^rbp ' >"$dir/la.out"
		if cmp -s "$dir/te.out" "$dir/la.out"; then
			echo "output identical to trec_eval's with [$m] ($(wc -l <"$dir/la.out") lines, rbp lines left out)"
		else
			echo "OUTPUT DIFFERS from trec_eval's with [$m]:"
			diff "$dir/te.out" "$dir/la.out" | head -20
			exit 1
		fi
	done
fi

# timed NAME CMD...: runs CMD under /usr/bin/time; prints "wall cpu rssMB".
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" "$@" >"$dir/$name.out"
	awk '{printf "%.2f %.2f %.0f", $1, $2 + $3, $4 / 1024}' "$dir/time.txt"
}

if [ -n "$te" ]; then
	echo "| run | load (1 min) | trec_eval wall | trec_eval CPU | trec_eval RSS | lasagna wall | lasagna CPU | lasagna RSS | wall ratio | CPU ratio |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
else
	echo "| run | load (1 min) | lasagna wall | lasagna CPU | lasagna RSS |"
	echo "| --- | ---: | ---: | ---: | ---: |"
fi
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	load=$(cut -d' ' -f1 /proc/loadavg)
	if [ -n "$te" ]; then
		t=$(timed te "$te" "$@" "$q" "$r")
		l=$(timed la "$dir/lasagna" metrics trec "$@" "$q" "$r")
		echo "$i $load $t $l" | awk '{printf "| %d | %s | %.2f s | %.2f s | %d MB | %.2f s | %.2f s | %d MB | %.1f× | %.1f× |\n", $1, $2, $3, $4, $5, $6, $7, $8, $3 / $6, $4 / $7}'
	else
		l=$(timed la "$dir/lasagna" metrics trec "$@" "$q" "$r")
		echo "$i $load $l" | awk '{printf "| %d | %s | %.2f s | %.2f s | %d MB |\n", $1, $2, $3, $4, $5}'
	fi
done
grep -E '^(num_q|map|P_10) ' "$dir/la.out"
