#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Trace decode throughput, measured side by side in one run:
#   binary, text, plain and gzip: events/s of "anonsim trace check";
#   binary plain decode against "cat FILE >/dev/null"   (target ratio <= 2.0);
#   binary gzip decode against "gzip -dc FILE >/dev/null" (target <= 1.2).
# Each figure is the best wall time of ROUNDS rounds (default 3) of
# best_time's best of 5 runs; the rounds take turns between the commands,
# so that a slow spell of a shared machine weighs on all of them alike.
# The synthetic trace draws each event's kind at random, the worst case
# for a decoder that branches on the kind.  With RECORDED set to a
# recorded trace, the same two ratios are measured again on that trace's
# events repeated to about EVENTS events: the mix replay meets in practice.
# Run by "make bench"; EVENTS (default 3000000) sets the trace size.
# CHECK=1 ("make bench-check"): exit 1 when a target is missed.
# Build without --enable-sanitizers for figures that mean something.
set -eu
: "${ANONSIM:?run through make bench}" "${TRACE_GEN:?run through make bench}"
: "${BEST_TIME:?run through make bench}"
events=${EVENTS:-3000000}
rounds=${ROUNDS:-3}
runs=5
. "$(dirname "$0")/lib.sh"

ms() { awk -v t="$1" 'BEGIN { printf "%8.1f ms", t / 1e6 }'; }
rate() { awk -v n="$1" -v ns="$2" 'BEGIN { printf "%.1f M events/s", n / ns * 1000 }'; }

echo "generating $events events..."
"$TRACE_GEN" "$events" "$dir/t.atr"
"$ANONSIM" trace convert "$dir/t.atr" "$dir/t.trace"
"$ANONSIM" trace convert "$dir/t.atr" "$dir/t.atr.gz"
"$ANONSIM" trace convert "$dir/t.atr" "$dir/t.trace.gz"
for f in t.atr t.atr.gz t.trace t.trace.gz; do
	printf '  %-11s %12s bytes\n' "$f" "$(wc -c <"$dir/$f" | tr -d ' ')"
done

if [ -n "${RECORDED:-}" ]; then
	echo "recorded mix: $(basename "$RECORDED") repeated to about $events events..."
	repeat_events "$RECORDED" "$events" > "$dir/r.trace"
	"$ANONSIM" trace convert "$dir/r.trace" "$dir/r.atr"
	"$ANONSIM" trace convert "$dir/r.trace" "$dir/r.atr.gz"
	revents=$("$ANONSIM" trace check "$dir/r.atr" | awk '{ print $(NF - 1) }')
fi

echo "measuring, $rounds rounds..."
for _ in $(seq "$rounds"); do
	for f in t.atr t.atr.gz t.trace t.trace.gz; do
		measure "$(echo "$f" | tr . _)" "$ANONSIM" trace check "$dir/$f"
	done
	measure cat cat "$dir/t.atr"
	measure gz gzip -dc "$dir/t.atr.gz"
	if [ -n "${RECORDED:-}" ]; then
		measure r_atr "$ANONSIM" trace check "$dir/r.atr"
		measure r_atr_gz "$ANONSIM" trace check "$dir/r.atr.gz"
		measure r_cat cat "$dir/r.atr"
		measure r_gz gzip -dc "$dir/r.atr.gz"
	fi
done

for f in t.atr t.atr.gz t.trace t.trace.gz; do
	eval "t=\$t_$(echo "$f" | tr . _)"
	printf '  decode %-11s %s  %s\n' "$f" "$(ms "$t")" "$(rate "$events" "$t")"
done
printf '  cat t.atr          %s\n' "$(ms "$t_cat")"
printf '  gzip -dc t.atr.gz  %s\n' "$(ms "$t_gz")"
# target LABEL RATIO OP TARGET: the line of one ratio, with its verdict
target() {
	printf '%-44s %s  (target %s %s)  %s\n' "$1:" "$2" "$3" "$4" "$(verdict "$2" "$3" "$4")"
}
target "binary decode / cat" "$(ratio "$t_t_atr" "$t_cat")" "<=" 2.0
target "binary-gz decode / gzip -dc" "$(ratio "$t_t_atr_gz" "$t_gz")" "<=" 1.2
if [ -n "${RECORDED:-}" ]; then
	echo "  decode r.atr $(rate "$revents" "$t_r_atr"), r.atr.gz $(rate "$revents" "$t_r_atr_gz")"
	target "recorded mix, binary decode / cat" "$(ratio "$t_r_atr" "$t_r_cat")" "<=" 2.0
	target "recorded mix, binary-gz decode / gzip -dc" "$(ratio "$t_r_atr_gz" "$t_r_gz")" "<=" 1.2
fi
targets_missed || exit 1
