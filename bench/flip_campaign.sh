#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# flip_campaign.sh - hostile-input campaign: random bit and byte flips of the
# shipped and test traces.  Every flipped copy must either be refused by
# "anonsim trace check" (exit 2) or replay cleanly (exit 0) under every
# strategy and variant, with and without --check: no crash, no hang (a
# replay that outlasts the timeout), no exit 3.  Meant for a build
# configured with --enable-sanitizers, where ASan and UBSan turn memory
# errors into the exit statuses set below.
#
# usage: bench/flip_campaign.sh [-n FLIPS] [-s SEED] [-t SECS] [-k DIR] [ANONSIM]
#   -n  number of flipped copies (default 2000)
#   -s  random seed (default 1)
#   -t  timeout of each command in seconds (default 60)
#   -k  keep every failing input in DIR
# ANONSIM defaults to ./anonsim.  Prints a summary; exits 1 if any input
# failed, naming each with the command that failed and its status.
set -u
n=2000 seed=1 limit=60 keep=
while getopts n:s:t:k: o; do
	case $o in
	n) n=$OPTARG ;;
	s) seed=$OPTARG ;;
	t) limit=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) sed -n '/^# usage/,/^# failed/p' "$0" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
anonsim=${1:-./anonsim}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
# memory errors and undefined behaviour get statuses of their own
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=87:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-flip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the inputs: every shipped and test trace as it is, and the small ones
# also in the binary encoding, plain, where a flip reaches the values
mkdir "$tmp/in"
i=0
for f in "$srcdir"/traces/*.trace.gz "$srcdir"/tests/model/replay/*.trace \
	 "$srcdir"/tests/trace/traces/small.trace; do
	i=$((i + 1))
	cp "$f" "$tmp/in/$i-$(basename "$f")"
	case $f in
	*.gz) ;;
	*) "$anonsim" trace convert "$f" "$tmp/in/$i-$(basename "$f" .trace).atr" ||
		exit 1 ;;
	esac
done
inputs=$(ls "$tmp/in")
nin=$(echo "$inputs" | wc -l)

# the plan: "INPUT OFFSET MODE VALUE" per flip, from awk's generator
sizes=$(for f in $inputs; do wc -c <"$tmp/in/$f"; done)
plan=$(printf '%s\n' "$sizes" | awk -v n="$n" -v seed="$seed" -v nin="$nin" '
	{ size[NR] = $1 }
	END {
		srand(seed)
		for (k = 0; k < n; k++) {
			f = int(rand() * nin) + 1
			off = int(rand() * size[f])
			if (rand() < 0.5)
				printf "%d %d bit %d\n", f, off, 2 ^ int(rand() * 8)
			else
				printf "%d %d byte %d\n", f, off, int(rand() * 256)
		}
	}')

bad=0 refused=0 replayed=0 k=0
run() {	# run LABEL CMD...: status in $st; a failure is reported
	timeout "$limit" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
}
report() {	# report INPUT WHAT
	bad=$((bad + 1))
	echo "FAIL $1: $2 (exit $st): $(head -c 300 "$tmp/err" | tr '\n' ' ')"
	[ -n "$keep" ] && mkdir -p "$keep" && cp "$tmp/flip.$ext" "$keep/flip-$k.$ext"
}
printf '%s\n' "$plan" | {
	while read -r fi off mode val; do
		k=$((k + 1))
		src=$(echo "$inputs" | sed -n "${fi}p")
		case $src in
		*.trace.gz) ext=trace.gz ;;
		*.atr) ext=atr ;;
		*) ext=trace ;;
		esac
		cp "$tmp/in/$src" "$tmp/flip.$ext"
		old=$(od -An -tu1 -j "$off" -N1 "$tmp/flip.$ext" | tr -d ' ')
		if [ "$mode" = bit ]; then
			new=$(( old ^ val ))
		else
			new=$val
		fi
		printf "$(printf '\\%03o' "$new")" |
			dd of="$tmp/flip.$ext" bs=1 seek="$off" conv=notrunc 2>/dev/null
		what="$src byte $off $mode $val"
		run "$anonsim" trace check "$tmp/flip.$ext"
		case $st in
		0) ;;
		2) refused=$((refused + 1)); continue ;;
		*) report "$what" "trace check"; continue ;;
		esac
		replayed=$((replayed + 1))
		run "$anonsim" replay -q "$tmp/flip.$ext"
		[ "$st" -eq 0 ] || report "$what" "replay"
		run "$anonsim" replay -q --check "$tmp/flip.$ext"
		[ "$st" -eq 0 ] || report "$what" "replay --check"
	done
	echo "flips: $k, refused by check: $refused, replayed: $replayed, failures: $bad"
	[ "$bad" -eq 0 ]
}
