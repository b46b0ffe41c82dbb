#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# same_output.sh - does a change leave every figure as it was?  Builds two
# trees side by side, runs both anonsim binaries on the same inputs and
# compares every output byte for byte.
set -u

usage() {
	cat <<USAGE
usage: bench/same_output.sh [-k] [-j N] BASE [NEW]

Builds commit BASE and NEW (a commit, or by default the working tree with
its uncommitted changes) in a scratch folder, then runs both builds on
copies of every trace BASE ships or tests with (traces/, tests/) and
compares, byte for byte, the standard output, standard error, exit status
and files written of:

  trace stat; replay of all strategies, unlimited with --check and as JSON;
  replay of each strategy on a limited host (2 instances, --pages), and of
  all on a limited host under each reclaim policy (3 instances, table and
  CSV), with --series; density unlimited, and limited under each policy;
  reproduce as table, CSV and JSON, and its -d data; make plots.

  -k     keep the scratch folder (its path is printed)
  -j N   builds run make -j N (default: online CPUs)

Exit status: 0 every output identical; 1 usage error; 4 some output
differs (each is listed, with the first lines of its diff); 5 a build or
the scratch folder failed.
USAGE
}

keep= jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	-k) keep=1; shift ;;
	-j) [ $# -ge 2 ] || { usage >&2; exit 1; }; jobs=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "same_output: unknown option $1" >&2; usage >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || { usage >&2; exit 1; }
base=$1 new=${2:-}
top=$(git rev-parse --show-toplevel 2>/dev/null) ||
	{ echo "same_output: run it inside the project's git tree" >&2; exit 1; }
cd "$top" || exit 5
git rev-parse --verify -q "$base^{commit}" >/dev/null ||
	{ echo "same_output: $base: no such commit" >&2; exit 1; }
[ -z "$new" ] || git rev-parse --verify -q "$new^{commit}" >/dev/null ||
	{ echo "same_output: $new: no such commit" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-same.XXXXXX") || exit 5
cleanup() {
	if [ -n "$keep" ]; then echo "same_output: kept $scratch" >&2
	else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 130' INT
trap 'cleanup; trap - EXIT; exit 143' TERM
trap 'cleanup; trap - EXIT; exit 129' HUP
die() { echo "same_output: $*" >&2; exit 5; }

. "$top/bench/builds.sh"

unpack "$base" "$scratch/base" || die "cannot unpack $base"
unpack "$new" "$scratch/new" || die "cannot unpack ${new:-the working tree}"
build "$scratch/base" anonsim plots/anonsim-plot
build "$scratch/new" anonsim plots/anonsim-plot

# The inputs: copies of BASE's traces under one name each, read by both
# builds from the same folder, so that names in messages are the same.
mkdir "$scratch/in" || die "cannot make $scratch/in"
(cd "$scratch/base" && find traces tests -type f \( -name '*.trace' -o -name '*.trace.gz' \
	-o -name '*.atr' -o -name '*.atr.gz' -o -path 'tests/*traces/*' \) | LC_ALL=C sort) \
	>"$scratch/inputs" || die "cannot list the traces"
while read -r f; do
	cp "$scratch/base/$f" "$scratch/in/$(printf '%s' "$f" | tr / _)" || die "cannot copy $f"
done <"$scratch/inputs"

strategies="read-copy devanon punch free-hint odirect"
cases=0 differ=0

# compare NAME: the outputs both builds left under out-SIDE/NAME
compare() {
	cases=$((cases + 1))
	if ! diff -r "$scratch/out-base/$1" "$scratch/out-new/$1" >"$scratch/diff" 2>&1; then
		differ=$((differ + 1))
		echo "differs: $1" >&2
		head -n 10 "$scratch/diff" | sed 's/^/    /' >&2
	fi
}

# run NAME CMD...: run CMD (its first word "anonsim" standing for each
# build) in a fresh folder per build; keep stdout, stderr, exit status and
# the files it wrote; compare the two
run() {
	name=$1
	shift
	for side in base new; do
		d=$scratch/out-$side/$name
		mkdir -p "$d/files" || die "cannot make $d"
		first=$1
		shift
		# one path for both builds' binary and data: outputs may name them
		rm -f "$scratch/bin" "$scratch/data" &&
			ln -s "$side" "$scratch/data" && ln -s "$side" "$scratch/bin" ||
			die "cannot link $scratch/bin"
		(cd "$d/files" && ANONSIM_DATADIR=$scratch/data \
			"$scratch/bin/anonsim" "$@" >../stdout 2>../stderr; echo $? >../status)
		set -- "$first" "$@"
	done
	compare "$name"
}

n=$(wc -l <"$scratch/inputs")
i=0
for t in "$scratch"/in/*; do
	i=$((i + 1))
	b=$(basename "$t")
	printf 'same_output: trace %d of %d: %s\n' "$i" "$n" "$b" >&2
	run "$b/stat" anonsim trace stat "$t"
	run "$b/replay-check" anonsim replay -q --check "$t"
	run "$b/replay-json" anonsim replay -q --json "$t"
	for s in $strategies; do
		run "$b/replay-$s-limited" anonsim replay -q -s "$s" -m 32M --swap 64M -n 2 --pages "$t"
	done
	for p in modern 2.4; do
		run "$b/replay-$p-limited" anonsim replay -q --policy "$p" -m 48M --swap 64M -n 3 \
			--series series.csv "$t"
		run "$b/replay-$p-limited-csv" anonsim replay -q --policy "$p" -m 48M -n 3 --csv "$t"
		run "$b/density-$p-limited" anonsim density -q -j 2 --policy "$p" -m 96M --max 8 "$t"
	done
	run "$b/density-unlimited" anonsim density -q -j 2 --max 4 --csv "$t"
done

echo "same_output: reproduce and plots" >&2
run reproduce anonsim reproduce -q
run reproduce-csv anonsim reproduce -q --csv
run reproduce-json anonsim reproduce -q --json -d data
for side in base new; do
	# only what make plots draws: the plots a tree commits otherwise go first
	rm -f "$scratch/$side"/plots/*.png "$scratch/$side"/plots/*.svg
	(cd "$scratch/$side" && make plots) >"$scratch/plots-$side.log" 2>&1 ||
		die "make plots failed in $side (log: $scratch/plots-$side.log)"
	mkdir -p "$scratch/out-$side/plots" &&
		cp "$scratch/$side"/plots/*.png "$scratch/$side"/plots/*.svg "$scratch/out-$side/plots/" ||
		die "no plots in $side"
done
compare plots

echo "same_output: $cases outputs of $n traces, reproduce and make plots compared; $differ differ"
[ "$differ" -eq 0 ] || exit 4
