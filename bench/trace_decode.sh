#!/bin/sh
# Trace decode throughput, measured side by side in one run (best of 3):
#   binary, text, plain and gzip: events/s of "anonsim trace check";
#   binary plain decode against "cat FILE >/dev/null"   (target ratio <= 2.0);
#   binary gzip decode against "gzip -dc FILE >/dev/null" (target <= 1.2).
# The synthetic trace draws each event's kind at random, the worst case for
# the decoder's branch on the kind.  With RECORDED set to a recorded trace,
# the same two ratios are measured again on that trace's events repeated to
# about EVENTS events: the mix replay meets in practice.
# Run by "make bench"; EVENTS (default 3000000) sets the trace size.
# Build without --enable-sanitizers for figures that mean something.
set -eu
: "${ANONSIM:?run through make bench}" "${TRACE_GEN:?run through make bench}"
events=${EVENTS:-3000000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

case $(date +%N) in *[!0-9]*|'') echo "trace_decode.sh: needs date +%N" >&2; exit 1 ;; esac
if grep -q __asan_init "$ANONSIM" 2>/dev/null; then
	echo "warning: anonsim is built with sanitizers; the figures are not representative" >&2
fi

now() { date +%s%N; }
# best NAME CMD...: the best of 3 wall times of CMD in nanoseconds, in $best
best() {
	best=
	for _ in 1 2 3; do
		t0=$(now); "$@" >/dev/null; t1=$(now)
		t=$((t1 - t0))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
}
catfile() { cat "$1"; }
gunzip() { gzip -dc "$1"; }
rate() { awk -v n="$events" -v ns="$1" 'BEGIN { printf "%.1f M events/s", n / ns * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "generating $events events..."
"$TRACE_GEN" "$events" "$dir/t.atr"
"$ANONSIM" trace convert "$dir/t.atr" "$dir/t.trace"
"$ANONSIM" trace convert "$dir/t.atr" "$dir/t.atr.gz"
"$ANONSIM" trace convert "$dir/t.atr" "$dir/t.trace.gz"
for f in t.atr t.atr.gz t.trace t.trace.gz; do
	printf '  %-11s %12s bytes\n' "$f" "$(wc -c <"$dir/$f" | tr -d ' ')"
done
"$ANONSIM" trace check "$dir/t.atr" >/dev/null	# warm the page cache

for f in t.atr t.atr.gz t.trace t.trace.gz; do
	best "$ANONSIM" trace check "$dir/$f"
	eval "dec_$(echo $f | tr . _)=\$best"
	printf '  decode %-11s %8.1f ms  %s\n' "$f" "$(awk -v t="$best" 'BEGIN { print t / 1e6 }')" "$(rate "$best")"
done
best catfile "$dir/t.atr"; cat_ns=$best
best gunzip "$dir/t.atr.gz"; gz_ns=$best
printf '  cat t.atr             %8.1f ms\n' "$(awk -v t="$cat_ns" 'BEGIN { print t / 1e6 }')"
printf '  gzip -dc t.atr.gz     %8.1f ms\n' "$(awk -v t="$gz_ns" 'BEGIN { print t / 1e6 }')"
echo "binary decode / cat:          $(ratio "$dec_t_atr" "$cat_ns")  (target <= 2.0)"
echo "binary-gz decode / gzip -dc:  $(ratio "$dec_t_atr_gz" "$gz_ns")  (target <= 1.2)"

if [ -n "${RECORDED:-}" ]; then
	echo "recorded mix: $(basename "$RECORDED") repeated to about $events events..."
	"$ANONSIM" trace cat "$RECORDED" | awk -v want="$events" '
		hdr { print; if ($1 == "events") hdr = 0; next }
		$2 != "footprint" { ev[n++] = $0; if ($1 > span) span = $1 }
		BEGIN { hdr = 1 }
		END {
			for (r = 0; r * n < want; r++)
				for (i = 0; i < n; i++) {
					$0 = ev[i]; $1 = sprintf("%d", $1 + r * (span + 1)); print
				}
		}' > "$dir/r.trace"
	"$ANONSIM" trace convert "$dir/r.trace" "$dir/r.atr"
	"$ANONSIM" trace convert "$dir/r.trace" "$dir/r.atr.gz"
	revents=$("$ANONSIM" trace check "$dir/r.atr" | awk '{ print $(NF - 1) }')
	best "$ANONSIM" trace check "$dir/r.atr"; rdec=$best
	best "$ANONSIM" trace check "$dir/r.atr.gz"; rdecgz=$best
	best catfile "$dir/r.atr"; rcat=$best
	best gunzip "$dir/r.atr.gz"; rgz=$best
	echo "  decode r.atr $(events=$revents rate "$rdec"), r.atr.gz $(events=$revents rate "$rdecgz")"
	echo "recorded mix, binary decode / cat:          $(ratio "$rdec" "$rcat")  (target <= 2.0)"
	echo "recorded mix, binary-gz decode / gzip -dc:  $(ratio "$rdecgz" "$rgz")  (target <= 1.2)"
fi
