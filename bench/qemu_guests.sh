#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# qemu_guests.sh - what a QEMU guest costs the host under each strategy:
# the README's answer, from the shipped QEMU traces (recorded under
# cache=writeback).
set -u

usage() {
	cat <<USAGE
usage: bench/qemu_guests.sh [options] [TRACE...]

For each QEMU trace (default: traces/qemu-*.trace.gz), replays N guests of
it sharing one image (N = 1, 4 and 16, one after another, nothing
reclaimed) and finds the density on a host of SIZE, under QEMU's
writeback (read-copy), none (odirect), dax, writeback with free page
reporting (--report-order 9, Linux's default) and free-hint (every freed
page given back at once: the ideal the reporting approaches).  Writes
OUT/per-guest.csv (trace, strategy, N, host MiB in all and per guest at
the end: guest RAM, image page cache), OUT/density.csv (trace, strategy,
guests before the first swap-out), OUT/table.md, and draws
OUT/qemu-guests.png and .svg (host MiB per guest against N) when gnuplot
is there.

  -o, --output DIR    results (default: bench/results/qemu-guests)
  -m, --host-mem SIZE the host of the density (default: 4G)
      --swap SIZE     its swap (default: 1G)
      --max N         the most guests tried (default: 64)
  -h, --help          this text

Environment: ANONSIM (default: ./anonsim of the build tree).
Exit status: 0 done; 1 usage error; 5 a replay failed.
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

# run_strategy LABEL OPTS CMD...: anonsim CMD with LABEL's options, CSV
run_strategy() {
	opts=$(printf '%s' "$2" | tr ',' ' ')
	shift 2
	# shellcheck disable=SC2086
	"$anonsim" "$@" -q --csv $opts
}

per=$out/per-guest.csv.tmp dens=$out/density.csv.tmp
echo "trace,strategy,guests,total_mib,per_guest_mib,ram_mib_per_guest,cache_mib" >"$per"
echo "trace,strategy,host_mib,density" >"$dens"
for t in "$@"; do
	name=$(basename "$t" .trace.gz)
	for s in $strategies; do
		label=${s%%:*} opts=${s#*:}
		for n in 1 4 16; do
			run_strategy "$label" "$opts" replay --pages -n "$n" "$t" >"$out/r.csv" ||
				die "$t: replay of $n under $label failed"
			awk -F, -v t="$name" -v s="$label" -v n="$n" '
				NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
				{ mib = 4096 / 1048576
				  tot = $k["final_total_pages"] * mib
				  printf "%s,%s,%d,%.1f,%.1f,%.1f,%.1f\n", t, s, n, tot, tot / n,
					$k["final_tmpfs_pages"] * mib / n, $k["final_cache_pages"] * mib }' \
				"$out/r.csv" >>"$per"
		done
		run_strategy "$label" "$opts" density -m "$mem" --swap "$swap" --max "$max" "$t" \
			>"$out/d.csv" || die "$t: density under $label failed"
		awk -F, -v t="$name" -v s="$label" '
			NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
			!done++ { printf "%s,%s,%s,%s\n", t, s, $k["host_mem_mib"], $k["density"] }' \
			"$out/d.csv" >>"$dens"
	done
	echo "qemu_guests: $name done" >&2
done
rm -f "$out/r.csv" "$out/d.csv"
mv "$per" "$out/per-guest.csv" && mv "$dens" "$out/density.csv" || die "cannot write $out"

# The table: per trace and strategy, MiB per guest at N = 1, 4, 16 and the density.
awk -F, '
	FNR == 1 { next }
	FILENAME ~ /per-guest/ { key = $1 SUBSEP $2; pg[key, $3] = $5
		if (!(key in seen)) { seen[key] = 1; order[++n] = key } next }
	{ d[$1 SUBSEP $2] = $4; host = $3 }
	END {
		printf "| trace | strategy | MiB per guest, 1 guest | 4 sharing an image | 16 | guests on %s MiB |\n", host
		print "|---|---|---|---|---|---|"
		for (i = 1; i <= n; i++) {
			split(order[i], p, SUBSEP)
			printf "| %s | %s | %s | %s | %s | %s |\n", p[1], p[2],
				pg[order[i], 1], pg[order[i], 4], pg[order[i], 16], d[order[i]]
		}
	}' "$out/per-guest.csv" "$out/density.csv" >"$out/table.md" || die "cannot write the table"
cat "$out/table.md"

if command -v gnuplot >/dev/null 2>&1; then
	gnuplot -e "data='$out/per-guest.csv'; out='$out/qemu-guests'" "$top/plots/qemu_guests.gp" ||
		die "the plot failed"
fi
