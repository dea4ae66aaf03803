#!/bin/sh
# bench-startup.sh measures what `lasagna metrics trec` pays to start, on a
# one-line qrels and run, beside trec_eval on the same files and beside the
# floor of a Go program doing the same evaluation (scripts/startfloor):
#
#   floor      the evaluation alone (internal/treceval), nothing else linked
#   floor+net/http  the same, also linking net/http (which every lasagna
#              binary links: serve, the hub, the LLM client)
#   floor+llm  the same, also linking the LLM client (package llm and
#              openai-go), whose packages run their own init before main in
#              every lasagna binary
#
# For each program, perf stat -r $STARTUP_RUNS (default 50): CPU time
# (task-clock) and wall time, each also as a multiple of the first line's
# (trec_eval's), page faults, and the peak resident memory (/usr/bin/time, median of 11
# starts); for each lasagna binary also its package initialisation under
# GODEBUG=inittrace=1 (median of 11 starts of the sum of every package's
# init clock time, bytes and allocations, and of this module's packages
# alone). The programs are measured one after the other, $STARTUP_ROUNDS
# rounds (default 3), and the 1-minute load average is printed per round:
# on a shared machine compare within a round.
#
# Usage: scripts/bench-startup.sh [LASAGNA_BINARY...]   (default: builds
# the work tree's lasagna). Give two binaries (say, built before and after
# a change) to measure them side by side. TREC_EVAL names the trec_eval
# binary (default: trec_eval on PATH; left out when there is none).
set -eu
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "bench-startup.sh: needs perf (linux-perf)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ $# -eq 0 ]; then
	go build -o "$dir/lasagna" ./cmd/lasagna
	set -- "$dir/lasagna"
fi
go build -o "$dir/floor" ./scripts/startfloor
go build -tags nethttp -o "$dir/floor+http" ./scripts/startfloor
go build -tags llm -o "$dir/floor+llm" ./scripts/startfloor
trec_eval=${TREC_EVAL:-$(command -v trec_eval || true)}
runs=${STARTUP_RUNS:-50}
rounds=${STARTUP_ROUNDS:-3}
printf '1 0 d1 1\n' >"$dir/qrels.txt"
printf '1 Q0 d1 1 1.0 r\n' >"$dir/run.txt"
q="$dir/qrels.txt"
r="$dir/run.txt"
median11() { sort -n | sed -n 6p; }

# measure LABEL CMD...: one line of CPU, wall, ratio, RSS and page faults.
measure() {
	label=$1
	shift
	# shellcheck disable=SC2086 # the arguments are split on purpose
	set -- $(perf stat -r "$runs" "$@" 2>&1 >/dev/null |
		awk '/task-clock/{cpu=$1} /page-faults/{pf=$1} /elapsed/{w=$1*1000} END {print cpu, w, pf}') "$@"
	cpu=$1 wall=$2 faults=$3
	shift 3
	rss=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
	done | median11)
	if [ -z "${base:-}" ]; then basecpu=$cpu base=$wall; fi
	awk -v l="$label" -v c="$cpu" -v w="$wall" -v bc="$basecpu" -v b="$base" -v m="$rss" -v f="$faults" \
		'BEGIN {printf "  %-28s CPU %6.2f ms %5.1fx  wall %6.2f ms %5.1fx  RSS %5.1f MiB  %s page faults\n", l, c, c/bc, w, w/b, m/1024, f}'
}

round=1
while [ "$round" -le "$rounds" ]; do
	echo "round $round (load $(cut -d' ' -f1 /proc/loadavg)); x = a multiple of the first line's time"
	base=
	if [ -n "$trec_eval" ]; then
		measure "trec_eval" "$trec_eval" "$q" "$r"
	fi
	measure "floor" "$dir/floor" "$q" "$r"
	measure "floor+net/http" "$dir/floor+http" "$q" "$r"
	measure "floor+llm" "$dir/floor+llm" "$q" "$r"
	for b in "$@"; do
		measure "$(basename "$b") metrics trec" "$b" metrics trec "$q" "$r"
	done
	round=$((round + 1))
done
for b in "$@"; do
	init=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
		GODEBUG=inittrace=1 "$b" metrics trec "$q" "$r" 2>&1 >/dev/null |
			awk '/^init /{s+=$5; m+=$8; a+=$10} END {printf "%.2f ms, %.2f MB, %d allocs\n", s, m/1e6, a}'
	done | median11)
	own=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
		GODEBUG=inittrace=1 "$b" metrics trec "$q" "$r" 2>&1 >/dev/null |
			awk '/^init github.com\/lasagna-go\/lasagna/{s+=$5; a+=$10} END {printf "%.3f ms, %d allocs\n", s, a}'
	done | median11)
	echo "$(basename "$b"): init, all packages: $init; lasagna's own: $own"
done
