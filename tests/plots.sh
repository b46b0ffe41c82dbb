#!/bin/sh
# plots.sh - every gnuplot script draws its plot from data anonsim writes
# (and a sample footprint table): non-empty PNG with the PNG signature,
# SVG that starts as XML or SVG.  Skipped (77) without gnuplot.
. "$top_srcdir/tests/lib.sh"
GNUPLOT=${GNUPLOT:-}
[ -n "$GNUPLOT" ] || GNUPLOT=$(command -v gnuplot) || GNUPLOT=
if [ -z "$GNUPLOT" ]; then
	echo "gnuplot not found: plots not tested"
	exit 77
fi
trace=$top_srcdir/tests/replay/density.trace

expect_status 0 "$ANONSIM" replay -q --series "$tmp/timeline.csv" \
	--series-step 0.00001 -n 3 "$trace"
expect_status 0 "$ANONSIM" density -q --csv -m 256K --policy 2.4 --max 16 \
	-o "$tmp/density.csv" "$trace"
cat >"$tmp/footprint.csv" <<'END'
trace,strategy,total_mib,published_mib
woody-2004,read-copy,28.1,28
woody-2004,devanon/fixed,21.0,21
bookworm,read-copy,78.5,
bookworm,devanon/fixed,52.2,
END

# png_ok FILE: the 8 signature bytes 89 50 4E 47 0D 0A 1A 0A
png_ok() {
	[ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ]
}

for p in timeline density footprint; do
	expect_status 0 "$GNUPLOT" -e "data='$tmp/$p.csv'; out='$tmp/$p'" \
		"$top_srcdir/plots/$p.gp"
	[ -s "$tmp/$p.png" ] || fail "$p.png missing or empty"
	[ -s "$tmp/$p.png" ] && { png_ok "$tmp/$p.png" || fail "$p.png: no PNG signature"; }
	[ -s "$tmp/$p.svg" ] || fail "$p.svg missing or empty"
	head -c 5 "$tmp/$p.svg" | grep -Eq '^(<\?xml|<svg)' || fail "$p.svg: not SVG"
done

# a script without data fails rather than drawing an empty plot
: >"$tmp/empty.csv"
expect_status 1 "$GNUPLOT" -e "data='$tmp/empty.csv'; out='$tmp/empty'" \
	"$top_srcdir/plots/density.gp"
finish
