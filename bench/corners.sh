#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The corners a hostile trace reaches, measured side by side in one run
# (trace_gen's shapes, see bench/trace_gen.c):
#   trace check of N one-page mappings each at its own address ("maps")
#   and of N one-page reads before the first mapping ("early"): the time
#   at 4N over the time at N (target <= 5: n log n, not n^2);
#   replay -s read-copy of N random one-page reads far apart on a 1 TiB
#   disk ("far"): the growth of the resident set from N to 4N events over
#   the 3N pages added (nearly every read a new page: 4N of 2^28 pages
#   collide about 4N^2 / 2^29 times, a few of 100k), target <= 1024 bytes
#   a page; and the resident set with -m 256M over the one without, at
#   4N (target <= 1.05: a host limit evicts, it keeps no more state).
# Each time is the best of ROUNDS rounds (default 3) of best_time's best
# of 3 runs, the rounds taking turns between the commands.  N (default
# 25000) sets the size.  CHECK=1 ("make bench-check"): exit 1 when a
# target is missed.
set -eu
: "${ANONSIM:?run through make bench}" "${TRACE_GEN:?run through make bench}"
: "${BEST_TIME:?run through make bench}"
n=${N:-25000}
n4=$((4 * n))
rounds=${ROUNDS:-3}
runs=3
. "$(dirname "$0")/lib.sh"

ms() { awk -v t="$1" 'BEGIN { printf "%8.1f ms", t / 1e6 }'; }

echo "generating the hostile shapes, $n and $n4 events..."
for shape in maps early far; do
	"$TRACE_GEN" "$n" "$dir/$shape-1.atr" "$shape"
	"$TRACE_GEN" "$n4" "$dir/$shape-4.atr" "$shape"
done

echo "measuring, $rounds rounds..."
for _ in $(seq "$rounds"); do
	for shape in maps early; do
		measure "${shape}_1" "$ANONSIM" trace check "$dir/$shape-1.atr"
		measure "${shape}_4" "$ANONSIM" trace check "$dir/$shape-4.atr"
	done
done
measure far_1 "$ANONSIM" replay -s read-copy "$dir/far-1.atr"
measure far_4 "$ANONSIM" replay -s read-copy "$dir/far-4.atr"
measure far_4m "$ANONSIM" replay -s read-copy -m 256M "$dir/far-4.atr"

for shape in maps early; do
	eval "a=\$t_${shape}_1 b=\$t_${shape}_4"
	r=$(ratio "$b" "$a")
	printf '  trace check %-5s N=%-7s %s   4N=%-7s %s\n' "$shape" "$n" "$(ms "$a")" "$n4" "$(ms "$b")"
	echo "trace check $shape, 4N / N: $r  (target <= 5)  $(verdict "$r" "<=" 5)"
done
per_page=$(awk -v a="$m_far_1" -v b="$m_far_4" -v p=$((n4 - n)) 'BEGIN { printf "%.0f", (b - a) * 1024 / p }')
echo "  replay far: N=$n $m_far_1 KiB resident, 4N=$n4 $m_far_4 KiB, 4N with -m 256M $m_far_4m KiB"
echo "simulator bytes per distinct page read far apart (N..4N): $per_page  (target <= 1024)  $(verdict "$per_page" "<=" 1024)"
r=$(ratio "$m_far_4m" "$m_far_4")
echo "resident with -m 256M / without, 4N far reads: $r  (target <= 1.05)  $(verdict "$r" "<=" 1.05)"

targets_missed || exit 1
