# SPDX-License-Identifier: GPL-2.0-only
# Shared by the benchmark scripts: a scratch folder, the measuring loop,
# ratios, and the recorded trace's events repeated to a given size.
# The including script sets "runs" (best_time's runs per measurement).
dir=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

if grep -q __asan_init "$ANONSIM" 2>/dev/null; then
	echo "warning: anonsim is built with sanitizers; the figures are not representative" >&2
fi

# measure NAME CMD...: keep in t_NAME the best wall time (ns) seen so far,
# in m_NAME the largest resident set (KiB) of the last measurement
measure() {
	name=$1
	shift
	set -- $("$BEST_TIME" -m "$runs" "$@")
	eval "old=\${t_$name:-}"
	if [ -z "$old" ] || [ "$1" -lt "$old" ]; then
		eval "t_$name=$1"
	fi
	eval "m_$name=$2"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# repeat_events TRACE EVENTS: TRACE's events (its footprint aside) repeated,
# each round after the last, to about EVENTS events, as text
repeat_events() {
	"$ANONSIM" trace cat "$1" | awk -v want="$2" '
		hdr { print; if ($1 == "events") hdr = 0; next }
		$2 != "footprint" { ev[n++] = $0; if ($1 > span) span = $1 }
		BEGIN { hdr = 1 }
		END {
			for (r = 0; r * n < want; r++)
				for (i = 0; i < n; i++) {
					$0 = ev[i]; $1 = sprintf("%d", $1 + r * (span + 1)); print
				}
		}'
}
