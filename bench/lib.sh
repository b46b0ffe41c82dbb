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
# in l_NAME that of the last measurement, in m_NAME the largest resident
# set (KiB) of the last measurement
measure() {
	name=$1
	shift
	set -- $("$BEST_TIME" -m "$runs" "$@")
	eval "old=\${t_$name:-}"
	if [ -z "$old" ] || [ "$1" -lt "$old" ]; then
		eval "t_$name=$1"
	fi
	eval "l_$name=$1 m_$name=$2"
}
# peak_use CMD...: run CMD once, its output on /dev/null; print the most
# threads it had at once and its peak resident set (KiB), as sampled every
# 10 ms from /proc (Linux; "0 0" without it); best_time -m gives the exact
# resident peak
peak_use() {
	"$@" >/dev/null &
	pid=$! pt=0 ph=0
	while [ -r /proc/$pid/status ]; do
		set -- $(awk '/^State:/ { s = $2 } /^Threads:/ { t = $2 } /^VmHWM:/ { h = $2 }
			END { print s " " t + 0 " " h + 0 }' /proc/$pid/status 2>/dev/null)
		[ "${1:-Z}" = Z ] && break
		[ "$2" -gt "$pt" ] && pt=$2
		[ "$3" -gt "$ph" ] && ph=$3
		sleep 0.01
	done
	wait $pid
	echo "$pt $ph"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# verdict FIGURE OP TARGET: "ok" or "MISSED" for FIGURE OP (<= or >=)
# TARGET, each miss a line in $dir/missed
verdict() {
	if awk -v f="$1" -v t="$3" -v op="$2" 'BEGIN { exit !(op == "<=" ? f <= t : f >= t) }'; then
		echo ok
	else
		echo x >>"$dir/missed"
		echo MISSED
	fi
}
# targets_missed: print how many targets were missed; status 1 when one was
# and CHECK=1 ("make bench-check")
targets_missed() {
	_missed=$(cat "$dir/missed" 2>/dev/null | wc -l | tr -d ' ')
	echo "targets missed: $_missed"
	[ "${CHECK:-0}" != 1 ] || [ "$_missed" -eq 0 ]
}

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
