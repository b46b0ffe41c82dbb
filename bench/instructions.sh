#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# instructions.sh - how much more (or less) work a change makes a replay
# do: the instructions two builds execute on the same replays, counted by
# valgrind (cachegrind, I refs).  On a shared machine wall-clock ratios
# of short runs move by tens of per cent from one round to the next; the
# instruction count of a replay is the same from run to run to within a
# few parts in ten thousand.  It is not time (a cache miss costs more than
# an add): read it beside make bench's ratios, not instead of them.
set -u

usage() {
	cat <<USAGE
usage: bench/instructions.sh [-j N] [-n N] [--max R] BASE [NEW]

Builds commit BASE and NEW (a commit, or by default the working tree with
its uncommitted changes) in a scratch folder, then counts the instructions
each build executes for

  anonsim replay -q -s STRATEGY -n N TRACE

with STRATEGY read-copy, devanon and punch and TRACE the shipped
debian-boot-64M, debian-build-128M and debian-files-64M (unlimited host
memory, N instances one after another), and prints both counts and
NEW / BASE for each.

  -j N     builds run make -j N (default: online CPUs)
  -n N     instances per replay (default: 100)
  --max R  exit 4 if any NEW / BASE ratio is above R (e.g. 1.05)

Takes about 2 minutes on two cores, the builds included.  Exit status:
0 done (every ratio at most R); 1 usage error; 4 a ratio above R; 5 a
build or a replay failed; 77 valgrind is not installed.
USAGE
}

jobs=$(nproc 2>/dev/null || echo 2) n=100 max=
while [ $# -gt 0 ]; do
	case $1 in
	-j|-n|--max)
		[ $# -ge 2 ] || { echo "instructions: $1 needs a value" >&2; exit 1; } ;;
	esac
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-n) n=$2; shift 2 ;;
	--max) max=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "instructions: unknown option $1 (see --help)" >&2; exit 1 ;;
	*) break ;;
	esac
done
case $n in ''|*[!0-9]*|0) echo "instructions: -n: a number from 1, not '$n'" >&2; exit 1 ;; esac
case $max in
'') ;;
*[!0-9.]*|.|*.*.*) echo "instructions: --max: a ratio such as 1.05, not '$max'" >&2; exit 1 ;;
esac
[ $# -ge 1 ] && [ $# -le 2 ] || { usage >&2; exit 1; }
base=$1 new=${2:-}
command -v valgrind >/dev/null 2>&1 ||
	{ echo "instructions: SKIP: needs valgrind (apt-get install valgrind)" >&2; exit 77; }
top=$(git rev-parse --show-toplevel 2>/dev/null) ||
	{ echo "instructions: run it inside the project's git tree" >&2; exit 1; }
cd "$top" || exit 5
for c in "$base" $new; do
	git rev-parse --verify -q "$c^{commit}" >/dev/null ||
		{ echo "instructions: $c: no such commit" >&2; exit 1; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-instructions.XXXXXX") || exit 5
trap 'rm -rf "$scratch"' EXIT
trap 'rm -rf "$scratch"; trap - EXIT; exit 130' INT
trap 'rm -rf "$scratch"; trap - EXIT; exit 143' TERM
trap 'rm -rf "$scratch"; trap - EXIT; exit 129' HUP
die() { echo "instructions: $*" >&2; exit 5; }
. "$top/bench/builds.sh"

unpack "$base" "$scratch/base" || die "cannot unpack $base"
unpack "$new" "$scratch/new" || die "cannot unpack ${new:-the working tree}"
build "$scratch/base" anonsim
build "$scratch/new" anonsim

# irefs SIDE STRATEGY TRACE: the instructions SIDE's replay executes (of
# NEW's copy of the trace, the same input for both)
irefs() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$scratch/$1/anonsim" replay -q -s "$2" -n "$n" \
		"$scratch/new/traces/$3.trace.gz" >/dev/null 2>"$scratch/vg.log" ||
		{ tail -n 5 "$scratch/vg.log" >&2; die "$1: the replay of $3 by $2 failed"; }
	awk '/I *refs:/ { gsub(",", "", $NF); print $NF; found = 1 }
	     END { if (!found) exit 1 }' "$scratch/vg.log" ||
		die "$1: valgrind printed no instruction count for $3 by $2"
}

printf '%-18s %-10s %15s %15s %8s\n' trace strategy base new "new/base"
worst=0
for trace in debian-boot-64M debian-build-128M debian-files-64M; do
	for s in read-copy devanon punch; do
		b=$(irefs base "$s" "$trace") || exit 5
		w=$(irefs new "$s" "$trace") || exit 5
		r=$(awk -v a="$w" -v b="$b" 'BEGIN { printf "%.4f", a / b }')
		printf '%-18s %-10s %15s %15s %8s\n' "$trace" "$s" "$b" "$w" "$r"
		worst=$(awk -v a="$r" -v b="$worst" 'BEGIN { print (a > b ? a : b) }')
	done
done
echo "largest new/base: $worst${max:+  (at most $max)}"
[ -z "$max" ] || awk -v a="$worst" -v m="$max" 'BEGIN { exit !(a <= m) }' || exit 4
