#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# calibrate.sh - the modern reclaim held to this kernel on the calibration
# corpus (bench/calibrate/corpus): each configuration run live under
# pressure, several times, and the model beside it.
set -u

usage() {
	cat <<USAGE
usage: bench/calibrate.sh [options]

Runs each configuration of the corpus with "anonsim live --json" in a
memory cgroup of its size with 256 MiB of swap (root, Linux, cgroup v1),
RUNS times, keeping each run as OUT/NAME/run-K.json; a run already kept
is not run again, so an interrupted calibration goes on where it stopped.
Then it replays each configuration through the model as built now (with
the overhead, its anonymous part and the readahead window of the first
run and, as live runs no UML, without the traces' host events) and writes
OUT/summary.csv and OUT/table.md: per configuration the kernel's median
over its runs beside the model, of

  density         the most instances whose trace ends before the first
                  swap-out (all of them: never swapped)
  swap            swap used at the end, pages
  cache           page cache kept at the end, pages
  first swap-out  trace seconds

(and in summary.csv the overhead the model charged each instance, fixed
and anonymous)
and per half (fit, held) the share of configurations whose density is
equal, off by more than one, whose swap and cache are within 25 % of the
kernel's, and that swapped in the kernel (density 2 .. N - 1, at least
1000 pages of swap).  Beside each median, the least and the most of the
kernel's runs; per half, how many configurations the kernel itself meets
in every run (density equal, swap and cache within 25 % of its median):
where the kernel's runs spread wider, no model meets the bound; and how
many of its runs have swap and cache within 25 % of the mean of the
configuration's other runs: how well one run of the kernel foretells
another, the share a model as good as the kernel itself would reach.

  -o, --output DIR    results (default: bench/results/calibrate)
  -c, --corpus FILE   the corpus (default: bench/calibrate/corpus)
  -r, --runs K        runs per configuration (default: 3)
      --half H        fit, held or all (default: all)
      --only NAME     this configuration alone (repeatable)
      --report-only   run nothing: the report from the runs kept
  -d, --dir DIR       scratch directory's parent for anonsim live
  -p, --plots DIR     where the plot goes: DIR/calibration.png and .svg,
                      real against model density (default: plots/; drawn
                      when gnuplot is there)
  -h, --help          this text

A run made before "anonsim live" split its probed overhead (no
overhead_anon_mib in its JSON) charged it all as fixed memory: the
anonymous part is then read from OUT/NAME/probe.json ("anonsim live
--probe", made here beside such runs) and taken out of the fixed part.

Environment: ANONSIM (default: ./anonsim of the build tree), JQ (jq).
Exit status: 0 done; 1 usage error; 5 a run or the report failed;
77 cannot run here (not root, not Linux, no cgroup v1 memory controller
with swap accounting, no jq) - the report alone needs none of these.
USAGE
}

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/bench/results/calibrate corpus=$top/bench/calibrate/corpus
runs=3 half=all only= report_only= dir= plots=$top/plots
anonsim=${ANONSIM:-$top/anonsim} jq=${JQ:-jq}
while [ $# -gt 0 ]; do
	case $1 in
	-o|--output|-c|--corpus|-r|--runs|--half|--only|-d|--dir|-p|--plots)
		[ $# -ge 2 ] || { echo "calibrate: $1 needs a value" >&2; exit 1; } ;;
	esac
	case $1 in
	-o|--output) out=$2; shift 2 ;;
	-c|--corpus) corpus=$2; shift 2 ;;
	-r|--runs)
		case $2 in ''|*[!0-9]*|0) echo "calibrate: --runs: a number from 1, not '$2'" >&2; exit 1 ;; esac
		runs=$2; shift 2 ;;
	--half)
		case $2 in fit|held|all) ;; *) echo "calibrate: --half: fit, held or all, not '$2'" >&2; exit 1 ;; esac
		half=$2; shift 2 ;;
	--only) only="$only $2"; shift 2 ;;
	-d|--dir) dir=$2; shift 2 ;;
	-p|--plots) plots=$2; shift 2 ;;
	--report-only) report_only=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "calibrate: unknown argument '$1' (see --help)" >&2; exit 1 ;;
	esac
done
die() { echo "calibrate: $*" >&2; exit 5; }
[ -r "$corpus" ] || { echo "calibrate: $corpus: cannot read the corpus" >&2; exit 1; }
[ -x "$anonsim" ] || { echo "calibrate: $anonsim: no anonsim (build it, or set ANONSIM)" >&2; exit 1; }
command -v "$jq" >/dev/null 2>&1 || { echo "calibrate: needs jq (Debian: jq)"; exit 77; }

# configs: the corpus lines chosen, "NAME HALF TRACE STRATEGY N CGROUP STAGGER"
. "$top/bench/calibrate/configs.sh"
configs() {
	corpus_configs calibrate "$corpus" "$half" "$only"
}
configs >/dev/null || exit 1

# trace_path TRACE: a corpus trace, relative to the source tree unless absolute
trace_path() {
	case $1 in /*) echo "$1" ;; *) echo "$top/$1" ;; esac
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-calibrate.XXXXXX") || die "no scratch directory"
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; trap - EXIT; exit 130' INT
trap 'rm -rf "$tmp"; trap - EXIT; exit 143' TERM
trap 'rm -rf "$tmp"; trap - EXIT; exit 129' HUP

# the runs not kept yet
if [ -z "$report_only" ]; then
	[ "$(uname -s)" = Linux ] || { echo "calibrate: live runs need Linux; nothing run"; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "calibrate: live runs need root (a memory cgroup and a swap file); nothing run"; exit 77; }
	[ -f /sys/fs/cgroup/memory/memory.memsw.usage_in_bytes ] || {
		echo "calibrate: needs the cgroup v1 memory controller with swap accounting; nothing run"; exit 77; }
	total=$(configs | wc -l) i=0 start=$(date +%s)
	configs | while read -r name h trace strategy n size stagger; do
		i=$((i + 1))
		mkdir -p "$out/$name" || die "cannot make $out/$name"
		k=1
		while [ "$k" -le "$runs" ]; do
			f=$out/$name/run-$k.json
			if [ ! -s "$f" ]; then
				printf 'calibrate: %d of %d: %s run %d (%s s so far)\n' "$i" "$total" \
					"$name" "$k" "$(($(date +%s) - start))" >&2
				set -- -s "$strategy" -n "$n" -m "$size" --swap 256M
				[ "$stagger" = - ] || set -- "$@" --stagger "$stagger"
				[ -z "$dir" ] || set -- "$@" -d "$dir"
				t0=$(date +%s)
				"$anonsim" live --json -o "$f" "$@" "$(trace_path "$trace")" >"$tmp/out" 2>&1
				rc=$?
				# 4: a figure beyond its tolerance, which under -m is reported, not judged
				[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || {
					cat "$tmp/out" >&2; rm -f "$f"; die "$name run $k: anonsim live exited $rc"; }
				# kept by the source tree's names, not this machine's paths
				sed -e "s|\"$anonsim\"|\"anonsim\"|" -e "s|$top/||g" "$f" >"$f.tmp" &&
					mv "$f.tmp" "$f" || die "cannot rewrite $f"
				echo "$(($(date +%s) - t0))" >"$out/$name/run-$k.seconds"
			fi
			k=$((k + 1))
		done
		f=$out/$name/probe.json
		if [ ! -s "$f" ] && "$jq" -e '.results[0] | has("overhead_anon_mib") | not' \
			"$out/$name"/run-1.json >/dev/null; then
			"$anonsim" live --probe --json -o "$f" -s "$strategy" -m "$size" --swap 256M \
				"$(trace_path "$trace")" >"$tmp/out" 2>&1 || {
				cat "$tmp/out" >&2; rm -f "$f"; die "$name: anonsim live --probe failed"; }
			sed -e "s|\"$anonsim\"|\"anonsim\"|" -e "s|$top/||g" "$f" >"$f.tmp" &&
				mv "$f.tmp" "$f" || die "cannot rewrite $f"
		fi
	done || exit $?
fi

# overhead_k NAME JSON: "--overhead" and "--overhead-anon" in KiB for the
# model, from a run's JSON (and, for a run from before the split, the
# configuration's probe)
overhead_k() {
	"$jq" -r '.results[0] | [.overhead_mib, (.overhead_anon_mib // "none")] | @tsv' "$2" |
		{ IFS='	' read -r fixed anon
		if [ "$anon" = none ]; then
			anon=0
			[ ! -s "$out/$1/probe.json" ] ||
				anon=$("$jq" -r '.results[0].overhead_anon_mib' "$out/$1/probe.json")
			fixed=$(awk -v t="$fixed" -v a="$anon" 'BEGIN { print (t > a ? t - a : 0) }')
		fi
		awk -v f="$fixed" -v a="$anon" 'BEGIN { printf "%.0fK %.0fK\n", f * 1024, a * 1024 }'; }
}

# last_us TRACE: the time of the trace's last event
last_us() {
	"$anonsim" trace stat "$1" | sed -n 's/.*last at \([0-9]*\)).*/\1/p'
}

# density FIRST_S N STAGGER LAST_US: the most instances whose trace ends
# before the first swap-out (FIRST_S "never": all of them)
density() {
	awk -v first="$1" -v n="$2" -v stagger="$3" -v last="$4" 'BEGIN {
		if (first == "never") { print n; exit }
		d = 0
		for (k = 1; k <= n; k++) {
			end = stagger == "-" ? k * last / 1e6 : (k - 1) * stagger + last / 1e6
			if (end <= first + 0) d = k
		}
		print d
	}'
}

# the report: the kernel's medians beside the model as built now
mkdir -p "$out" || die "cannot make $out"
# within 25 %: the bound every comparison below holds to (0 and 0 agree)
within_awk='function within(a, b) { return (a == 0 && b == 0) || (a > 0 && (b - a) / a <= 0.25 && (a - b) / a <= 0.25) }'
: >"$tmp/loo"
echo "name,half,trace,strategy,instances,cgroup,stagger,runs,density,model_density,swap_pages,model_swap_pages,cache_pages,model_cache_pages,first_swap_out_s,model_first_swap_out_s,kernel_swapped,density_min,density_max,swap_min,swap_max,cache_min,cache_max,model_overhead,model_overhead_anon" >"$tmp/summary.csv"
configs | while read -r name h trace strategy n size stagger; do
	ls "$out/$name"/run-*.json >/dev/null 2>&1 || continue
	path=$(trace_path "$trace")
	last=$(last_us "$path")
	: >"$tmp/real"
	for f in "$out/$name"/run-*.json; do
		"$jq" -r '.results[0] | [.first_swap_out_s // "never", (.points[] | select(.point == "end") |
			.swap_pages, .cache_pages), .overhead_mib, .readahead_kb] | @tsv' "$f" >>"$tmp/real" ||
			die "$f: not a run of anonsim live"
	done
	nr=$(wc -l <"$tmp/real")
	set -- "$out/$name"/run-*.json
	read -r overhead_fixed overhead_anon <<EOF_OVERHEAD
$(overhead_k "$name" "$1")
EOF_OVERHEAD
	readahead=$(head -n 1 "$tmp/real" | cut -f 5)
	while IFS='	' read -r first swap cache o ra; do
		printf '%s %s %s %s\n' "$(density "$first" "$n" "$stagger" "$last")" "$swap" "$cache" "$first"
	done <"$tmp/real" >"$tmp/real.d"
	set -- -q --json --pages --no-host-events -s "$strategy" -n "$n" -m "$size" --swap 256M \
		--overhead "$overhead_fixed" --overhead-anon "$overhead_anon" --readahead "$readahead"
	[ "$stagger" = - ] || set -- "$@" --stagger "$stagger"
	"$anonsim" replay "$@" "$path" >"$tmp/model.json" || die "$name: the model's replay failed"
	"$jq" -r '.results[0] | [.first_swap_out_s // "never", .final_swap_pages, .final_cache_pages] | @tsv' \
		"$tmp/model.json" >"$tmp/model" || die "$name: no model figures"
	IFS='	' read -r mfirst mswap mcache <"$tmp/model"
	mdens=$(density "$mfirst" "$n" "$stagger" "$last")
	# medians of the kernel's runs, column by column ("never" after every time)
	med() { cut -d' ' -f"$1" "$tmp/real.d" | awk '
		{ v[NR] = $1; x[NR] = $1 == "never" ? 1e300 : $1 + 0 }
		END {
			for (i = 2; i <= NR; i++)
				for (j = i; j > 1 && x[j - 1] > x[j]; j--) {
					t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			if (NR % 2)
				print v[(NR + 1) / 2]
			else if (x[NR / 2 + 1] == 1e300)
				print "never"
			else
				print (x[NR / 2] + x[NR / 2 + 1]) / 2
		}'; }
	# the kernel's spread over its runs: how far it agrees with itself
	range() { cut -d' ' -f"$1" "$tmp/real.d" | sort -n | sed -n '1p;$p' | paste -sd, -; }
	rd=$(med 1) rs=$(med 2) rc=$(med 3) rf=$(med 4)
	# each run of the kernel as a prediction of the mean of its others:
	# how well one run foretells the next (runs, swap within 25 %, cache)
	awk -v h="$h" "$within_awk"'
		{ s[NR] = $2; c[NR] = $3 }
		END {
			if (NR < 2)
				exit
			for (i = 1; i <= NR; i++) {
				ms = mc = 0
				for (j = 1; j <= NR; j++)
					if (j != i) { ms += s[j]; mc += c[j] }
				os += within(ms / (NR - 1), s[i])
				oc += within(mc / (NR - 1), c[i])
			}
			print h, NR, os, oc
		}' "$tmp/real.d" >>"$tmp/loo"
	swapped=$(awk -v d="$rd" -v n="$n" -v s="$rs" 'BEGIN { print (d >= 2 && d <= n - 1 && s >= 1000) ? "yes" : "no" }')
	echo "$name,$h,$trace,$strategy,$n,$size,$stagger,$nr,$rd,$mdens,$rs,$mswap,$rc,$mcache,$rf,$mfirst,$swapped,$(range 1),$(range 2),$(range 3),$overhead_fixed,$overhead_anon"
done >>"$tmp/summary.csv" || exit $?

awk -F, "$within_awk"'
	FILENAME == ARGV[1] { split($0, l, " "); runs[l[1]] += l[2]; los[l[1]] += l[3]; loc[l[1]] += l[4]; next }
	FNR == 1 { next }
	{
		h = $2; n[h]++
		if ($9 == $10) eq[h]++
		if ($10 - $9 > 1 || $9 - $10 > 1) far[h]++
		if (within($11, $12)) sw[h]++
		if (within($13, $14)) ca[h]++
		if ($17 == "yes") swp[h]++
		# every run of the kernel within 25 % of its own median
		if ($18 == $19) ksd[h]++
		if (within($11, $20) && within($11, $21)) kss[h]++
		if (within($13, $22) && within($13, $23)) ksc[h]++
	}
	END {
		for (h in n)
			printf "%s: %d configurations: density equal %d (%.0f %%), off by more than one %d; swap within 25 %% %d (%.0f %%), cache within 25 %% %d (%.0f %%); swapped in the kernel %d (%.0f %%); the kernel against itself, every run: density equal %d, swap within 25 %% %d, cache within 25 %% %d; a run against the mean of its others: %d runs, swap within 25 %% %d (%.0f %%), cache %d (%.0f %%)\n",
				h, n[h], eq[h], 100 * eq[h] / n[h], far[h], sw[h], 100 * sw[h] / n[h],
				ca[h], 100 * ca[h] / n[h], swp[h], 100 * swp[h] / n[h],
				ksd[h], kss[h], ksc[h], runs[h], los[h], runs[h] ? 100 * los[h] / runs[h] : 0,
				loc[h], runs[h] ? 100 * loc[h] / runs[h] : 0
	}' "$tmp/loo" "$tmp/summary.csv" | sort >"$tmp/halves"
{
	echo "| configuration | half | density real (runs) | model | swap real (runs) | model | cache real (runs) | model | first swap-out real | model |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 { printf "| %s | %s | %s (%s-%s) | %s | %s (%s-%s) | %s | %s (%s-%s) | %s | %s | %s |\n",
		$1, $2, $9, $18, $19, $10, $11, $20, $21, $12, $13, $22, $23, $14, $15, $16 }' "$tmp/summary.csv"
	echo
	cat "$tmp/halves"
} >"$tmp/table.md"
mv "$tmp/summary.csv" "$out/summary.csv" && mv "$tmp/table.md" "$out/table.md" ||
	die "cannot write into $out"
cat "$out/table.md"
if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1 && [ "$half" = all ] && [ -z "$only" ]; then
	mkdir -p "$plots" && "${GNUPLOT:-gnuplot}" \
		-e "data='$out/summary.csv'; out='$plots/calibration'" "$top/plots/calibration.gp" ||
		die "the plot failed (gnuplot, plots/calibration.gp)"
	echo "calibrate: drew $plots/calibration.png and .svg" >&2
fi
