#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# plots.sh - every gnuplot script draws its plot from data anonsim writes
# (and a sample footprint table): non-empty PNG with the PNG signature,
# SVG that starts as XML or SVG.  Skipped (77) without gnuplot.
. "$top_srcdir/tests/lib.sh"
need_gnuplot
trace=$top_srcdir/tests/model/replay/density.trace

expect_status 0 "$ANONSIM" replay -q --series "$tmp/timeline.csv" \
	--series-step 0.00001 -n 3 "$trace"
expect_status 0 "$ANONSIM" density -q --csv -m 256K --policy 2.4 --max 16 \
	-o "$tmp/density.csv" "$trace"
cat >"$tmp/footprint.csv" <<'END'
trace,strategy,tmpfs_mib,cache_mib,total_mib,published_mib
woody-2004,read-copy,16.7,11.2,28.1,28
woody-2004,devanon/fixed,9.8,11.2,21.0,21
bookworm,read-copy,29.2,49.7,78.9,
bookworm,devanon/fixed,20.2,49.7,69.9,
bookworm,punch,20.2,49.7,69.9,
END

for p in timeline density footprint; do
	expect_status 0 "$GNUPLOT" -e "data='$tmp/$p.csv'; out='$tmp/$p'" \
		"$top_srcdir/plots/$p.gp"
	plot_ok "$tmp/$p.png"
	plot_ok "$tmp/$p.svg"
done

# every series of the data is drawn and named, however many there are:
# seven strategy runs in the timeline and density data
for p in timeline density; do
	series=$(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$tmp/$p.csv")
	[ "$(printf '%s\n' "$series" | wc -l)" -eq 7 ] || fail "$p.csv: expected 7 series, got: $series"
	for s in $series; do
		grep -q ">$s" "$tmp/$p.svg" || fail "$p.svg: series $s not named"
	done
done
# the footprint names each trace and each bar's strategy
for s in woody-2004 bookworm read-copy devanon/fixed punch; do
	grep -q ">$s" "$tmp/footprint.svg" || fail "footprint.svg: $s not named"
done

# a script without data fails rather than drawing an empty plot
: >"$tmp/empty.csv"
expect_status 1 "$GNUPLOT" -e "data='$tmp/empty.csv'; out='$tmp/empty'" \
	"$top_srcdir/plots/density.gp"
finish
