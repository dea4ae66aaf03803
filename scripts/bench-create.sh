#!/bin/sh
# bench-create.sh times `lasagna benchmark create NAME --from ROWS.jsonl`
# into a new SQLite registry against the bare insert it is compared with
# (scripts/bareinsert.py: python's json and sqlite3, the rows into an
# entries-shaped table, one transaction), alternating on the same file,
# under /usr/bin/time (wall, user and system CPU, max RSS), with the
# 1-minute load average read before each run, and prints the CPU ratio.
#
# The files are generated once (deterministically) into $CREATE_BENCH_DIR
# (default: a lasagna-create-bench folder in the system temp directory):
# pooled rows (id, question, answer, three contexts: the corpus is pooled
# from them, 3 passages per row) and plain rows (id, question, answer),
# for each row count of CREATE_BENCH_ROWS (default "10000 100000 300000").
# CREATE_BENCH_RUNS sets the rounds per file (default 3); LASAGNA sets the
# binary (default: go build ./cmd/lasagna into the folder).
set -eu
cd "$(dirname "$0")/.."
dir=${CREATE_BENCH_DIR:-${TMPDIR:-/tmp}/lasagna-create-bench}
runs=${CREATE_BENCH_RUNS:-3}
counts=${CREATE_BENCH_ROWS:-10000 100000 300000}
mkdir -p "$dir"
bin=${LASAGNA:-}
if [ -z "$bin" ]; then
	bin=$dir/lasagna
	go build -o "$bin" ./cmd/lasagna
fi
for n in $counts; do
	for shape in pooled plain; do
		f=$dir/$shape-$n.jsonl
		[ -s "$f" ] || python3 - "$shape" "$n" >"$f" <<'PY'
import sys
shape, n = sys.argv[1], int(sys.argv[2])
w = sys.stdout.write
for i in range(n):
    k = 300 + i % 200
    if shape == "pooled":
        w('{"id":"q%d","question":"what is the boiling point of compound %d in kelvin","answer":"about %d kelvin","contexts":["Compound %d boils at about %d kelvin under standard pressure, as measured in the laboratory.","Compound %d is a colourless liquid used as a solvent in many industrial processes.","Unrelated passage %d about the history of the laboratory and its staff over the years."]}\n' % (i, i, k, i, k, i, i))
    else:
        w('{"id":"q%d","question":"what is the boiling point of compound %d in kelvin","answer":"about %d kelvin"}\n' % (i, i, k))
PY
	done
done
echo "rows shape run: wall s, user s, sys s, max RSS KiB (load before the run)"
for n in $counts; do
	for shape in pooled plain; do
		f=$dir/$shape-$n.jsonl
		i=0
		while [ "$i" -lt "$runs" ]; do
			i=$((i + 1))
			rm -f "$dir"/bare.db* "$dir"/reg.db*
			load=$(cut -d' ' -f1 /proc/loadavg)
			b=$( { /usr/bin/time -f '%e %U %S %M' python3 scripts/bareinsert.py "$f" "$dir/bare.db" >/dev/null; } 2>&1 | tail -n 1)
			echo "$n $shape bare:   $b (load $load)"
			load=$(cut -d' ' -f1 /proc/loadavg)
			l=$( { LASAGNA_REGISTRY=$dir/reg.db /usr/bin/time -f '%e %U %S %M' "$bin" benchmark create m --from "$f" >/dev/null; } 2>&1 | tail -n 1)
			echo "$n $shape create: $l (load $load)"
			echo "$b $l" | awk '{ printf "%s %s CPU ratio %.2f, wall ratio %.2f\n", "'"$n"'", "'"$shape"'", ($6 + $7) / ($2 + $3), $5 / $1 }'
		done
	done
done
rm -f "$dir"/bare.db* "$dir"/reg.db*
