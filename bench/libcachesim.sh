#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim against libCacheSim's cachesim (LRU) on the same page-read
# stream, measured side by side in one run.  libCacheSim is not in
# Debian: give a copy of its source (git clone
# https://github.com/1a1a11a/libCacheSim) with -s DIR or LIBCACHESIM_SRC;
# without one the script skips (exit 77).  It builds cachesim out of tree
# (cmake, Release) in a scratch folder and makes two streams, one page
# number per 4 KiB page read, in order:
#   build: the build trace's reads of its disk image, repeated to about
#     BUILD_READS (default 5500000) reads;
#   synth: about SYNTH_READS (default 11000000) reads, runs of 1..32
#     pages from starts skewed towards the front of an 8 GiB image.
# Each stream is an anonsim trace whose only events are the reads (into
# one guest page, so tmpfs holds that page alone), after the mapping of
# that page as every recorded trace has it (without it each read is one
# before the first mapping, a corner the reader checks the slow way),
# and a cachesim
# oracleGeneral file of the same page numbers.  Cases: evicting (anonsim
# -m one page over EVICT_FRACTION, default 0.5, of the distinct pages;
# cachesim the same pages of cache) and not (anonsim without -m; cachesim
# as many pages as are distinct).  Figure: cachesim's time over anonsim's
# replay -q -s read-copy --readahead 0 (target >= 1.5: anonsim faster),
# each the best of ROUNDS rounds (default 3) of best_time's best of 3
# runs, the rounds taking turns, with the range of the rounds' ratios;
# and each tool's largest resident set per distinct page.
set -eu

usage() {
	cat <<EOF
Usage: libcachesim.sh [-s DIR] [-o DIR]

Replay the same page-read stream with anonsim and with libCacheSim's
cachesim (LRU), evicting and not, and report cachesim's time over
anonsim's (target >= 1.5) and each one's memory per distinct page.

  -s DIR   libCacheSim source tree (default: \$LIBCACHESIM_SRC); get it
           with: git clone https://github.com/1a1a11a/libCacheSim
  -o DIR   also write the report, the libCacheSim commit and the load of
           the machine into DIR
  --help   this text

Environment (set by "make bench-libcachesim"): ANONSIM, BEST_TIME,
TRACES; ROUNDS (3), BUILD_READS (5500000), SYNTH_READS (11000000),
EVICT_FRACTION (0.5).
EOF
}

src=${LIBCACHESIM_SRC:-}
out=
while [ $# -gt 0 ]; do
	case $1 in
	-s) [ $# -ge 2 ] || { usage >&2; exit 1; }; src=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || { usage >&2; exit 1; }; out=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 1 ;;
	esac
done

if [ -z "$src" ]; then
	echo "libcachesim.sh: skipped: no libCacheSim source given (-s DIR or LIBCACHESIM_SRC=DIR; git clone https://github.com/1a1a11a/libCacheSim)"
	exit 77
fi
if [ ! -f "$src/CMakeLists.txt" ] || [ ! -d "$src/libCacheSim/bin/cachesim" ]; then
	echo "libcachesim.sh: $src is not a libCacheSim source tree (no CMakeLists.txt and libCacheSim/bin/cachesim): give the folder git clone made" >&2
	exit 1
fi
# skip (not fail) where a build dependency is missing, naming the Debian package
need() {
	if ! eval "$1" >/dev/null 2>&1; then
		echo "libcachesim.sh: skipped: libCacheSim needs $2 (Debian package $3)"
		exit 77
	fi
}
need "command -v cmake" cmake cmake
need "command -v c++" "a C++ compiler" g++
need "command -v perl" perl perl-base
need "command -v pkg-config" pkg-config pkgconf
need "pkg-config --exists glib-2.0" glib libglib2.0-dev
need "pkg-config --exists libzstd" zstd libzstd-dev

: "${ANONSIM:?run through make bench-libcachesim}" "${BEST_TIME:?run through make bench-libcachesim}"
: "${TRACES:?run through make bench-libcachesim}"
rounds=${ROUNDS:-3}
build_reads=${BUILD_READS:-5500000}
synth_reads=${SYNTH_READS:-11000000}
fraction=${EVICT_FRACTION:-0.5}
runs=3
. "$(dirname "$0")/lib.sh"
# the EXIT trap of lib.sh removes the scratch folder; make signals exit
trap 'exit 130' INT
trap 'exit 143' TERM

commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "unknown (not a git work tree)")
echo "building libCacheSim $commit (cmake, Release)..."
if ! { cmake -S "$src" -B "$dir/lcs" -DCMAKE_BUILD_TYPE=Release -DENABLE_TESTS=OFF && cmake --build "$dir/lcs" --target cachesim --parallel 2; } >"$dir/lcs.log" 2>&1; then
	tail -20 "$dir/lcs.log" >&2
	echo "libcachesim.sh: building libCacheSim from $src failed (its output above)" >&2
	exit 1
fi
cachesim=$dir/lcs/bin/cachesim
tcmalloc=$(sed -n 's/.*tcmalloc found? *\([A-Z]*\).*/\1/p' "$dir/lcs.log" | head -1)

# streams NAME: from the page numbers in $dir/NAME.pages, one a line, make
# $dir/NAME.atr (anonsim: guest page 0 mapped, each page one read into it) and
# $dir/NAME.bin (cachesim oracleGeneral: time 0, id, size 4096, no next
# access); set NAME_reads and NAME_distinct
streams() {
	awk -v maxf="$dir/$1.max" '
		{ printf "read ubda %.0f 4096 0\n", $1 * 4096; if ($1 > max) max = $1 }
		END { print max + 0 > maxf }' "$dir/$1.pages" >"$dir/$1.ev"
	{
		printf 'anonsim-trace 1\npage-size 4096\nmemory 4096\n'
		printf 'device ubda size=%s backing=stream\nevents\n1 mmap 0x61000000 4096 0\n' \
			$(( ($(cat "$dir/$1.max") + 1) * 4096 ))
		awk '{ print NR + 1 " " $0 }' "$dir/$1.ev"
	} | "$ANONSIM" trace convert - "$dir/$1.atr"
	perl -ne 'print pack("LQLq", 0, $_, 4096, -1)' "$dir/$1.pages" >"$dir/$1.bin"
	set -- "$1" $(awk '!seen[$1]++ { d++ } END { print NR " " d }' "$dir/$1.pages")
	eval "$1_reads=$2 $1_distinct=$3"
	rm -f "$dir/$1.pages" "$dir/$1.ev" "$dir/$1.max"
}

echo "building the streams..."
"$ANONSIM" trace cat "$TRACES/debian-build-128M.trace.gz" | awk -v want="$build_reads" '
	$1 == "device" && !dev { dev = $2 }
	$2 == "read" && $3 == dev {
		for (p = int($4 / 4096); p * 4096 < $4 + $5; p++) pg[n++] = p
	}
	END { for (i = 0; i < want; i++) print pg[i % n] }' >"$dir/build.pages"
streams build
awk -v want="$synth_reads" 'BEGIN {
	srand(1)
	while (n < want) {
		start = int(2097152 * rand() ^ 3)
		len = 1 + int(32 * rand())
		for (i = 0; i < len && n < want; i++) { printf "%d\n", start + i; n++ }
	}
}' >"$dir/synth.pages"
streams synth

# the evicting size: pages of cache, and anonsim's -m with the guest's page
for s in build synth; do
	eval "d=\$${s}_distinct"
	c=$(awk -v d="$d" -v f="$fraction" 'BEGIN { printf "%d", d * f }')
	eval "${s}_cache=$c ${s}_mem=$(( (c + 1) * 4 ))K"
done

load_before=$(uptime)
echo "measuring, $rounds rounds..."
cases="build_evict build_all synth_evict synth_all"
for _ in $(seq "$rounds"); do
	for s in build synth; do
		eval "c=\$${s}_cache m=\$${s}_mem d=\$${s}_distinct"
		measure "a_${s}_evict" "$ANONSIM" replay -q -s read-copy --readahead 0 -m "$m" "$dir/$s.atr"
		# a Release build logs its command line on stderr, whatever LOG_LEVEL
		measure "l_${s}_evict" "$cachesim" "$dir/$s.bin" oracleGeneral lru "$c" \
			--ignore-obj-size=1 --print-head-req=false -o "$dir/lcs.out" 2>>"$dir/lcs.err"
		measure "a_${s}_all" "$ANONSIM" replay -q -s read-copy --readahead 0 "$dir/$s.atr"
		measure "l_${s}_all" "$cachesim" "$dir/$s.bin" oracleGeneral lru "$d" \
			--ignore-obj-size=1 --print-head-req=false -o "$dir/lcs.out" 2>>"$dir/lcs.err"
	done
	# this round's ratios, for their range
	for k in $cases; do
		eval "r=\$(ratio \"\$l_l_$k\" \"\$l_a_$k\") lo=\${lo_$k:-} hi=\${hi_$k:-}"
		awk -v r="$r" -v lo="${lo:-$r}" 'BEGIN { exit !(r <= lo) }' && eval "lo_$k=$r"
		awk -v r="$r" -v hi="${hi:-$r}" 'BEGIN { exit !(r >= hi) }' && eval "hi_$k=$r"
	done
done

# misses: anonsim's pages read from the image (first reads and refaults,
# no readahead); cachesim's miss ratio times its requests (it prints the
# ratio to 4 decimals, so its count is within 0.00005 of the requests)
anon_misses() {
	"$ANONSIM" replay -q -s read-copy --readahead 0 --json "$@" | awk -F'[:,]' '
		/"read_guest_pages"|"read_refault_pages"|"read_readahead_pages"/ { n += $2 }
		END { print n }'
}
lcs_misses() {
	"$cachesim" "$dir/$1.bin" oracleGeneral lru "$2" --ignore-obj-size=1 \
		--print-head-req=false -o "$dir/lcs.out" 2>/dev/null | awk '
		{ for (i = 1; i < NF; i++) { if ($(i + 1) == "req,") q = $i; if ($i == "ratio") r = $(i + 1) } }
		END { printf "%.0f", q * r }'
}

report() {
	echo "libCacheSim $commit, cachesim LRU (tcmalloc: ${tcmalloc:-?}); anonsim replay -q -s read-copy --readahead 0"
	echo "anonsim models beyond cachesim: Linux's two LRU lists (active and inactive) with"
	echo "workingset refault detection, not one LRU list; the guest's tmpfs copy of each read"
	echo "(one page here) charged to the same host memory; reclaim in batches; swap and kernel"
	echo "tables (none here).  cachesim models a plain LRU of the given number of objects."
	echo "anonsim's trace maps the guest's one page before the reads; cachesim's has the reads alone."
	for s in build synth; do
		eval "c=\$${s}_cache m=\$${s}_mem d=\$${s}_distinct n=\$${s}_reads"
		echo "stream $s: $n page reads, $d distinct pages"
		for e in evict all; do
			if [ "$e" = evict ]; then
				am=$(anon_misses -m "$m" "$dir/$s.atr")
				lm=$(lcs_misses "$s" "$c")
				what="evicting: anonsim -m $m, cachesim $c pages"
			else
				am=$(anon_misses "$dir/$s.atr")
				lm=$(lcs_misses "$s" "$d")
				what="not evicting: anonsim unlimited, cachesim $d pages"
			fi
			k=${s}_$e
			eval "ta=\$t_a_$k tl=\$t_l_$k ma=\$m_a_$k ml=\$m_l_$k lo=\$lo_$k hi=\$hi_$k"
			r=$(ratio "$tl" "$ta")
			v=$(verdict "$r" ">=" 1.5)
			echo "  $what"
			printf '    anonsim  %8.1f ms  %8s KiB resident  %6.1f B per distinct page  misses %s\n' \
				"$(ratio "$ta" 1000000)" "$ma" "$(ratio $((ma * 1024)) "$d")" "$am"
			printf '    cachesim %8.1f ms  %8s KiB resident  %6.1f B per distinct page  misses ~%s\n' \
				"$(ratio "$tl" 1000000)" "$ml" "$(ratio $((ml * 1024)) "$d")" "$lm"
			# cachesim maps its binary trace whole: its resident set holds the file
			b=$(wc -c <"$dir/$s.bin")
			printf '             less its mapped trace (%s MiB): %6.1f B per distinct page\n' \
				"$(ratio "$b" 1048576)" "$(ratio $((ml * 1024 - b)) "$d")"
			echo "    cachesim / anonsim time: $r (rounds $lo..$hi)  (target >= 1.5)  $v"
		done
	done
	targets_missed
}

report | tee "$dir/report.txt"
if [ -n "$out" ]; then
	mkdir -p "$out"
	cp "$dir/report.txt" "$out/report.txt"
	echo "$commit" >"$out/libcachesim-commit"
	{ echo "before: $load_before"; echo "after:  $(uptime)"; echo "cores: $(nproc)"; } >"$out/load"
	echo "recorded in $out"
fi
