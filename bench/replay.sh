#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay speed and size, each figure beside its target, measured side by
# side in one run:
#   events/s of one instance per strategy, on the build trace's events
#     repeated to about EVENTS (default 5500000) in the binary encoding
#     (targets: read-copy >= 30 M/s, devanon >= 15 M/s), and devanon's
#     rate over read-copy's (target >= 0.8);
#   replay of that binary trace against "cat" of it (read-copy: target
#     <= 5; devanon's for reading);
#   replay of the same trace gzip-compressed against "gzip -dc" of it,
#     per strategy (target <= 1.2);
#   ms per instance of debian-boot-64M (read-copy) at N = INSTANCES
#     (default "10 100 1000"): the largest N against the smallest
#     (target <= 1.3);
#   simulator memory per simulated guest page: the growth of the largest
#     resident set from the smallest N to the largest, over the guest pages
#     added (read-copy, unlimited memory: no kernel tables; target <= 16);
#   ms per instance of debian-boot-64M (read-copy) all at once
#     (--stagger 0.01) at N = STAGGER_INSTANCES (default "100 4096"): the
#     largest N against the smallest (target <= 1.2);
#   the same N instances all at once (--stagger 0.01): the most threads
#     the replay has at the largest N (target <= 2: the replay's and one
#     reader's for the one trace, whatever N; sampled, so a short run may
#     show fewer) and simulator memory per guest page as above (target
#     <= 16), measured once;
#   a density sweep of debian-boot-64M (read-copy, --max 1000) against one
#     replay of as many instances as the sweep reached, with the host
#     memory of each of SWEEP_MEM (default "3G 32G": about 107 instances
#     fit, and all 1000) (target <= 1.2).
# Times are the best of ROUNDS rounds (default 3) of best_time's best of 3
# runs; the rounds take turns between the commands, so that a slow spell of
# a shared machine weighs on all of them alike.  CHECK=1 ("make
# bench-check"): exit 1 when a target is missed.
# Build without --enable-sanitizers for figures that mean something.
set -eu
: "${ANONSIM:?run through make bench}" "${BEST_TIME:?run through make bench}"
: "${TRACES:?run through make bench}"
events=${EVENTS:-5500000}
rounds=${ROUNDS:-3}
instances=${INSTANCES:-10 100 1000}
stagger_instances=${STAGGER_INSTANCES:-100 4096}
strategies="read-copy devanon punch free-hint odirect"
boot="$TRACES/debian-boot-64M.trace.gz"
build="$TRACES/debian-build-128M.trace.gz"
sweep_mems=${SWEEP_MEM:-3G 32G}
runs=3
. "$(dirname "$0")/lib.sh"

id() { echo "$1" | tr -c 'a-zA-Z0-9\n' _; }

echo "building the build trace's events repeated to about $events..."
repeat_events "$build" "$events" > "$dir/r.trace"
"$ANONSIM" trace convert "$dir/r.trace" "$dir/r.atr"
"$ANONSIM" trace convert "$dir/r.trace" "$dir/r.atr.gz"
rm -f "$dir/r.trace"
revents=$("$ANONSIM" trace check "$dir/r.atr" | awk '{ print $(NF - 1) }')

# each sweep, once, to know how many instances it reaches
for m in $sweep_mems; do
	"$ANONSIM" density -q -s read-copy -m "$m" --max 1000 --csv -o "$dir/d.csv" "$boot"
	eval "sweep_n_$(id "$m")=$(awk -F, 'NR > 1 { n = $2 } END { print n }' "$dir/d.csv")"
done

echo "measuring, $rounds rounds..."
for _ in $(seq "$rounds"); do
	for s in $strategies; do
		measure "atr_$(id $s)" "$ANONSIM" replay -q -s "$s" --variant fixed "$dir/r.atr"
		measure "gz_$(id $s)" "$ANONSIM" replay -q -s "$s" --variant fixed "$dir/r.atr.gz"
	done
	measure gzip gzip -dc "$dir/r.atr.gz"
	measure cat cat "$dir/r.atr"
	for n in $instances; do
		measure "n$n" "$ANONSIM" replay -q -s read-copy -n "$n" "$boot"
	done
	for n in $stagger_instances; do
		measure "s$n" "$ANONSIM" replay -q -s read-copy -n "$n" --stagger 0.01 "$boot"
	done
	for m in $sweep_mems; do
		eval "n=\$sweep_n_$(id "$m")"
		measure "sweep_$(id "$m")" "$ANONSIM" density -q -s read-copy -m "$m" --max 1000 "$boot"
		measure "sweep_replay_$(id "$m")" "$ANONSIM" replay -q -s read-copy -m "$m" -n "$n" "$boot"
	done
done

echo "one instance, $revents events (debian-build-128M repeated), binary:"
for s in $strategies; do
	eval "t=\$t_atr_$(id $s)"
	rate=$(awk -v n="$revents" -v t="$t" 'BEGIN { printf "%.1f", n / t * 1000 }')
	case $s in
	read-copy) target=30 ;;
	devanon) target=15 ;;
	*) target= ;;
	esac
	if [ -n "$target" ]; then
		printf '  %-10s %8.1f ms  %5s M events/s  target >= %s: %s of it  %s\n' "$s" \
			"$(ratio "$t" 1000000)" "$rate" "$target" "$(ratio "$rate" "$target")" \
			"$(verdict "$rate" ">=" "$target")"
	else
		printf '  %-10s %8.1f ms  %5s M events/s\n' "$s" "$(ratio "$t" 1000000)" "$rate"
	fi
done
r=$(ratio "$t_atr_read_copy" "$t_atr_devanon")
echo "devanon's rate over read-copy's: $r  (target >= 0.8)  $(verdict "$r" ">=" 0.8)"
printf 'cat r.atr %8.1f ms\n' "$(ratio "$t_cat" 1000000)"
r=$(ratio "$t_atr_read_copy" "$t_cat")
printf '  replay r.atr / cat, read-copy  %s  (target <= 5)  %s\n' "$r" "$(verdict "$r" "<=" 5)"
printf '  replay r.atr / cat, devanon    %s\n' "$(ratio "$t_atr_devanon" "$t_cat")"
printf 'gzip -dc r.atr.gz %8.1f ms\n' "$(ratio "$t_gzip" 1000000)"
for s in $strategies; do
	eval "t=\$t_gz_$(id $s)"
	r=$(ratio "$t" "$t_gzip")
	printf '  replay r.atr.gz / gzip -dc, %-10s %s  (target <= 1.2)  %s\n' "$s" "$r" \
		"$(verdict "$r" "<=" 1.2)"
done

# per_instance PREFIX N...: a line per N of the ms per instance of the
# best times t_PREFIX<N> and their resident sets; sets pi_first and
# pi_last (the first and last N) and pi_ratio (ms per instance, the last
# over the first)
per_instance() {
	_p=$1
	shift
	pi_first= pi_last=
	for _n in "$@"; do
		eval "_t=\$t_$_p$_n; _m=\$m_$_p$_n"
		printf '  N=%-5s %8.2f ms per instance  %8s KiB resident\n' "$_n" \
			"$(awk -v t="$_t" -v n="$_n" 'BEGIN { printf "%.2f", t / n / 1e6 }')" "$_m"
		[ -n "$pi_first" ] || pi_first=$_n
		pi_last=$_n
	done
	eval "_t1=\$t_$_p$pi_first; _t2=\$t_$_p$pi_last"
	pi_ratio=$(awk -v a="$_t2" -v b="$_t1" -v na="$pi_last" -v nb="$pi_first" \
		'BEGIN { printf "%.2f", (a / na) / (b / nb) }')
}

echo "N instances of debian-boot-64M, read-copy, one after another:"
# shellcheck disable=SC2086
per_instance n $instances
first=$pi_first last=$pi_last
eval "m1=\$m_n$first; m2=\$m_n$last"
echo "ms per instance, N=$last / N=$first: $pi_ratio  (target <= 1.3)  $(verdict "$pi_ratio" "<=" 1.3)"
gpages=$("$ANONSIM" trace stat "$boot" | awk '$1 == "memory:" { print $4 }')
r=$(awk -v a="$m2" -v b="$m1" -v n="$((last - first))" -v p="$gpages" \
	'BEGIN { printf "%.1f", (a - b) * 1024 / (n * p) }')
echo "simulator bytes per guest page (resident growth N=$first..$last over $gpages pages each): $r  (target <= 16)  $(verdict "$r" "<=" 16)"

echo "N instances of debian-boot-64M, read-copy, all at once (--stagger 0.01):"
# shellcheck disable=SC2086
per_instance s $stagger_instances
echo "ms per instance at once, N=$pi_last / N=$pi_first: $pi_ratio  (target <= 1.2)  $(verdict "$pi_ratio" "<=" 1.2)"

echo "the same N instances at once (--stagger 0.01), measured once:"
for n in $first $last; do
	set -- $("$BEST_TIME" -m 1 "$ANONSIM" replay -q -s read-copy -n "$n" --stagger 0.01 "$boot")
	eval "st_$n=$2"
	set -- $(peak_use "$ANONSIM" replay -q -s read-copy -n "$n" --stagger 0.01 "$boot")
	eval "th_$n=$1 m=\$st_$n"
	printf '  N=%-5s %8s threads at most  %8s KiB resident\n' "$n" "$1" "$m"
done
eval "th1=\$th_$first; th2=\$th_$last; m1=\$st_$first; m2=\$st_$last"
echo "threads at most, N=$last: $th2 (N=$first: $th1)  (target <= 2: the replay and one reader)  $(verdict "$th2" "<=" 2)"
r=$(awk -v a="$m2" -v b="$m1" -v n="$((last - first))" -v p="$gpages" \
	'BEGIN { printf "%.1f", (a - b) * 1024 / (n * p) }')
echo "simulator bytes per guest page, at once (N=$first..$last): $r  (target <= 16)  $(verdict "$r" "<=" 16)"

for m in $sweep_mems; do
	eval "n=\$sweep_n_$(id "$m") t=\$t_sweep_$(id "$m") tr=\$t_sweep_replay_$(id "$m")"
	printf 'density sweep -m %s (1..%s) %8.1f ms, one replay of %s instances %8.1f ms\n' \
		"$m" "$n" "$(ratio "$t" 1000000)" "$n" "$(ratio "$tr" 1000000)"
	r=$(ratio "$t" "$tr")
	echo "sweep / one replay, -m $m: $r  (target <= 1.2)  $(verdict "$r" "<=" 1.2)"
done

targets_missed || exit 1
exit 0
