#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# qemu_guests.sh - what a QEMU guest costs the host under each strategy:
# the README's answer, from the shipped QEMU traces (recorded under
# cache=writeback).
set -u

usage() {
	cat <<USAGE
usage: bench/qemu_guests.sh [options] [TRACE...]

For each QEMU trace (default: traces/qemu-*.trace.gz), cut at its
work-done (where the guest stays, holding what it holds, QEMU's own
memory among it), runs "anonsim density" on a host of SIZE, guests of the
trace booted one after another and sharing one image, under QEMU's writeback (read-copy), none
(odirect), dax, writeback with free page reporting (--report-order 9,
Linux's default) and free-hint (every page the guest frees given back at
once: what reporting approaches).  Writes per trace OUT/TRACE.csv (the
density CSV of every strategy, labelled as above), OUT/table.md (host
MiB at the end for the first guest, what each further guest adds, and
the guests that fit before the first swap-out) and, with gnuplot,
OUT/TRACE.png and .svg (plots/density.gp).

  -o, --output DIR    results (default: bench/results/qemu-guests)
  -m, --host-mem SIZE the host (default: 4G)
      --swap SIZE     its swap (default: 1G)
      --max N         the most guests tried (default: 64)
  -h, --help          this text

Environment: ANONSIM (default: ./anonsim of the build tree).
Exit status: 0 done; 1 usage error; 5 a run failed.
USAGE
}

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/bench/results/qemu-guests mem=4G swap=1G max=64
anonsim=${ANONSIM:-$top/anonsim}
while [ $# -gt 0 ]; do
	case $1 in
	-o|--output|-m|--host-mem|--swap|--max)
		[ $# -ge 2 ] || { echo "qemu_guests: $1 needs a value" >&2; exit 1; } ;;
	esac
	case $1 in
	-o|--output) out=$2; shift 2 ;;
	-m|--host-mem) mem=$2; shift 2 ;;
	--swap) swap=$2; shift 2 ;;
	--max) max=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) echo "qemu_guests: unknown option '$1' (see --help)" >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- "$top"/traces/qemu-*.trace.gz
[ -e "$1" ] || { echo "qemu_guests: no QEMU traces: $1" >&2; exit 1; }
die() { echo "qemu_guests: $*" >&2; exit 5; }
mkdir -p "$out" || die "cannot make $out"

# The strategies by the names the table gives them, each with its options.
strategies="writeback:-s,writeback none:-s,none dax:-s,dax
writeback+reporting:-s,writeback,--report-order,9 free-hint:-s,free-hint"

# A density run's CSV with the strategy column relabelled.
density_of() {
	label=$1 opts=$(printf '%s' "$2" | tr ',' ' ') t=$3
	# shellcheck disable=SC2086
	"$anonsim" density -q --csv -m "$mem" --swap "$swap" --max "$max" $opts "$t" \
		>"$out/run.csv" || return 1
	awk -F, -v OFS=, -v l="$label" 'NR > 1 { $1 = l } NR > 1 || first' first="$4" "$out/run.csv"
}

table=$out/table.md.tmp
for t in "$@"; do
	name=$(basename "$t" .trace.gz)
	csv=$out/$name.csv.tmp first=1
	: >"$csv"
	# the guest at its work-done, where it stays: after it the recorded
	# guest shut down and QEMU gave its own memory back (its last host
	# events)
	gzip -dcf "$t" | awk '{ print } f && $2 == "phase" && $3 == "work-done" { exit }
		$1 == "events" { f = 1 }' >"$out/cut.trace" || die "cannot read $t"
	for s in $strategies; do
		density_of "${s%%:*}" "${s#*:}" "$out/cut.trace" "$first" >>"$csv.part" ||
			die "$t: density under ${s%%:*} failed"
		cat "$csv.part" >>"$csv" && rm -f "$csv.part"
		first=
	done
	rm -f "$out/run.csv" "$out/cut.trace"
	mv "$csv" "$out/$name.csv" || die "cannot write $out/$name.csv"
	echo "qemu_guests: $name done" >&2
done

# Per trace and strategy: MiB at the end for one guest (total_mib at N =
# 1), what each further guest adds (from N = 1 to the largest N run
# without memory limits, at most 4), and the density.
{
	echo "| trace | strategy | host MiB, first guest | each further guest | guests on $mem before a swap-out |"
	echo "|---|---|---|---|---|"
	for t in "$@"; do
		name=$(basename "$t" .trace.gz)
		awk -F, -v t="$name" '
			NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
			!($1 in seen) { seen[$1] = 1; order[++n] = $1 }
			$2 == 1 { one[$1] = $k["total_mib"] }
			$2 <= 4 { far[$1] = $2; tot[$1] = $k["total_mib"] }
			$k["density"] != "" { d[$1] = $k["density"] }
			END {
				for (i = 1; i <= n; i++) {
					s = order[i]
					add = far[s] > 1 ? (tot[s] - one[s]) / (far[s] - 1) : 0
					printf "| %s | %s | %.1f | %.1f | %s |\n", t, s, one[s], add, d[s]
				}
			}' "$out/$name.csv"
	done
} >"$table" && mv "$table" "$out/table.md" || die "cannot write the table"
cat "$out/table.md"

if command -v gnuplot >/dev/null 2>&1; then
	for t in "$@"; do
		name=$(basename "$t" .trace.gz)
		gnuplot -e "data='$out/$name.csv'; out='$out/$name'; trace='$name'; heading='Host memory of N QEMU guests sharing one image'; xname='guests'; xstep=0" \
			"$top/plots/density.gp" || die "the plot of $name failed"
	done
fi
