#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Real density against "anonsim density" (README, "Real density"): 1..MAX
# real UMLs of a busybox image and a Debian image, each with private
# images and with copy-on-write layers over one shared image, in a memory
# cgroup of HOST_MEM with SWAP of swap (bench/density-real.sh),
# beside anonsim density on a trace of the same image and command line.
# Writes OUT/CASE/ per case, OUT/table.md (the README's tables) and
# OUT/density-real.csv, and draws PLOTS/density-real.png and .svg with
# plots/density.gp.  Needs root, Linux, cgroup v1, user-mode-linux,
# busybox-static, and debootstrap with the Debian archive.
#
# MODEL_ONLY=1 boots nothing: the model as built now against the real
# figures already in OUT (no root needed).
#
# Environment (make density-real sets the first three): ANONSIM, TOOLS
# (the built recorder), top_srcdir; HOST_MEM (160M), SWAP (256M), MAX (8),
# CASES ("debian-private debian-cow busybox-private busybox-cow"), OUT
# (top_srcdir/bench/results/density-real), PLOTS (top_srcdir/plots), GNUPLOT.
set -u
: "${ANONSIM:?run through make density-real}" "${TOOLS:?run through make density-real}"
: "${top_srcdir:?run through make density-real}"
hostmem=${HOST_MEM:-160M} swap=${SWAP:-256M} max=${MAX:-8}
cases=${CASES:-debian-private debian-cow busybox-private busybox-cow}
out=${OUT:-$top_srcdir/bench/results/density-real}
plots=${PLOTS:-$top_srcdir/plots}
images=$top_srcdir/src/record/images
PATH=$PATH:/sbin:/usr/sbin

scratch=$(mktemp -d "${TMPDIR:-/var/tmp}/anonsim-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'rm -rf "$scratch"; trap - EXIT; exit 130' INT
trap 'rm -rf "$scratch"; trap - EXIT; exit 143' TERM
trap 'rm -rf "$scratch"; trap - EXIT; exit 129' HUP
die() { echo "real_density: $*" >&2; exit 5; }

image() {	# busybox|debian: the image of that name in the scratch folder
	[ -f "$scratch/$1.img" ] && return 0
	case $1 in
	busybox) sh "$images/mkimage-busybox.sh" --sampler "$TOOLS/kpage-sampler" "$scratch/$1.img" ;;
	debian) sh "$images/mkimage-debian.sh" --sampler "$TOOLS/kpage-sampler" "$scratch/$1.img" >"$scratch/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$scratch/debootstrap.log" >&2; false; } ;;
	*) false ;;
	esac || die "cannot make the $1 image"
}

mkdir -p "$out" || die "cannot make $out"
for c in $cases; do
	img=${c%-*} layout=${c##*-}
	echo "== $c" >&2
	if [ -n "${MODEL_ONLY:-}" ]; then
		sh "$top_srcdir/bench/density-real.sh" --from "$out/$c" -o "$out/$c" --anonsim "$ANONSIM"
	else
		image "$img"
		rm -rf "$out/$c"
		sh "$top_srcdir/bench/density-real.sh" -i "$scratch/$img.img" -l "$layout" -m "$hostmem" \
			--swap "$swap" -n "$max" --label "$c" --tools "$TOOLS" --anonsim "$ANONSIM" \
			-o "$out/$c" && st=0 || st=$?
		[ -f "$out/$c/series.csv" ] && gzip -9nf "$out/$c/series.csv"
		(exit $st)
	fi
	st=$?
	[ $st -eq 0 ] || [ $st -eq 4 ] || die "density-real.sh failed on $c (exit status $st)"
done

# the plot's data: every case's real and model series
first=1
for c in $cases; do
	if [ $first = 1 ]; then cat "$out/$c/density.csv"; first=0; else sed 1d "$out/$c/density.csv"; fi
done >"$out/density-real.csv"

# the README's tables: one line per case, then memory per N
{
	echo "| case | host | real density | model density | model density, each trace first | memory after a boot: largest difference | peak while booting: largest difference | first swap-out, real (wall clock) | first swap-out, model (trace time) |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for c in $cases; do
		awk -v c="$c" '
			/^density:/ { r = $3; sub(/,$/, "", r); m = $5 }
			/^memory after/ { a = $10; sub(/\),$/, "", a); d = $7 " at N = " a }
			/^peak while/ { b = $9; sub(/\)$/, "", b); p = $6 " at N = " b }
			/^first swap-out, real/ { u = $5; sub(/,$/, "", u); fr = "UML " u ", " $6 " s" }
			/^first swap-out, model/ { u = $5; sub(/,$/, "", u); fm = "UML " u ", " $6 " s" }
			/^[^ ]*: host/ { h = int($3) " MiB" }
			/^model density with each trace first:/ { rot = $0; sub(/^[^:]*: */, "", rot) }
			END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c, h, r, m, rot, d, p,
				fr ? fr : "none", fm ? fm : "none" }' "$out/$c/summary.txt"
	done
	echo
	printf "| N |"; for c in $cases; do printf " %s real | model | diff |" "$c"; done; echo
	printf "|---|"; for c in $cases; do printf -- "---|---|---|"; done; echo
	n=1
	while [ $n -le "$max" ]; do
		printf "| %d |" $n
		for c in $cases; do
			awk -F, -v n=$n '$1 == n { s = $10 == "yes" ? " (swaps)" : ""; t = $11 == "yes" ? " (swaps)" : ""
				printf " %.1f%s | %.1f%s | %s%% |", $2, s, $3, t, $4; f = 1 }
				END { if (!f) printf " | | |" }' "$out/$c/compare.csv"
		done
		echo
		n=$((n + 1))
	done
} >"$out/table.md"
cat "$out/table.md"

GNUPLOT=${GNUPLOT:-gnuplot}
mkdir -p "$plots" || die "cannot make $plots"
if command -v "$GNUPLOT" >/dev/null 2>&1; then
	"$GNUPLOT" -e "data='$out/density-real.csv'; out='$plots/density-real'; trace='real UMLs (memory cgroup) and anonsim density, read-copy'; host='host: $hostmem memory cgroup, $swap swap; UML mem=64M; private images or copy-on-write layers over one image'" \
		"$top_srcdir/plots/density.gp" || die "gnuplot failed"
	echo "real_density: $plots/density-real.png, .svg" >&2
else
	echo "real_density: no gnuplot: plot not drawn" >&2
fi
