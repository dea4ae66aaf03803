#!/bin/sh
# bench-startup.sh measures what every lasagna command pays before it does
# anything: package initialisation (GODEBUG=inittrace=1: the sum of every
# package's init clock time, bytes and allocations, median of 11 starts,
# and the module's own packages alone) and the whole process for
# `lasagna --version` and for `lasagna metrics trec` on a one-line run
# (perf stat -r 50: CPU time (task-clock), page faults, wall time). The
# 1-minute load average is read before each binary.
#
# Usage: scripts/bench-startup.sh [BINARY...]   (default: builds the work
# tree's lasagna). Give two binaries (say, built before and after a change)
# to measure them one after the other; run it more than once, alternating,
# on a shared machine.
set -eu
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ $# -eq 0 ]; then
	go build -o "$dir/lasagna" ./cmd/lasagna
	set -- "$dir/lasagna"
fi
printf '1 Q0 d1 1\n' >"$dir/qrels.txt"
printf '1 Q0 d1 1 1.0 r\n' >"$dir/run.txt"
median11() { sort -n | sed -n 6p; }
for b in "$@"; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	init=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
		GODEBUG=inittrace=1 "$b" metrics trec "$dir/qrels.txt" "$dir/run.txt" 2>&1 >/dev/null |
			awk '/^init /{s+=$5; m+=$8; a+=$10} END {printf "%.2f ms, %.2f MB, %d allocs\n", s, m/1e6, a}'
	done | median11)
	own=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
		GODEBUG=inittrace=1 "$b" metrics trec "$dir/qrels.txt" "$dir/run.txt" 2>&1 >/dev/null |
			awk '/^init github.com\/lasagna-go\/lasagna/{s+=$5; a+=$10} END {printf "%.3f ms, %d allocs\n", s, a}'
	done | median11)
	echo "$b (load $load)"
	echo "  init, all packages:  $init"
	echo "  init, lasagna's own: $own"
	for cmd in "--version" "metrics trec $dir/qrels.txt $dir/run.txt"; do
		# shellcheck disable=SC2086 # cmd is split into arguments on purpose
		perf stat -r 50 "$b" $cmd 2>&1 >/dev/null |
			awk -v c="${cmd%% /*}" '/task-clock/{cpu=$1} /page-faults/{pf=$1} /elapsed/{w=$1*1000} END {printf "  %-13s x50: CPU %s ms, wall %.1f ms, %s page faults\n", c, cpu, w, pf}'
	done
done
