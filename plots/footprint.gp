# SPDX-License-Identifier: GPL-2.0-only
# footprint.gp - host memory of one boot by series (a strategy, or any
# label), a group of bars per trace, each bar split into tmpfs, page cache
# and the rest (block-table pages), with the values published in 2004
# marked where there are some.
# Input (written by "anonsim reproduce -d"):
#   trace,strategy,tmpfs_mib,cache_mib,total_mib,published_mib[,readahead_mib]
# published_mib is empty where nothing was published.  readahead_mib, where
# there is such a column, is the part of the page cache that readahead
# added to what the guest read: the page cache is then split in two.  Any
# number of traces (or other groups) and series; names have no spaces.
# Optional variables for the title: trace (what the bars are), host (the
# host they were replayed on) and heading (the title's first words).
# Writes OUT.png (pngcairo) and OUT.svg, or only the formats in
# the variable formats ("png", "svg" or both):
#   gnuplot -e "data='footprint.csv'; out='plots/footprint'" plots/footprint.gp

if (!exists("data")) data = "plots/data/footprint.csv"
if (!exists("out")) out = "plots/footprint"
if (!exists("trace")) trace = ""
if (!exists("host")) host = ""
if (!exists("formats")) formats = "png svg"
if (!exists("heading")) heading = "Host memory of one boot, by trace and strategy"

set datafile separator ","
set datafile columnheaders
uniq(col) = system("awk -F, 'NR > 1 && !seen[$" . col . "]++ { printf \"%s \", $" . col . " }' '" . data . "'")
traces = uniq(1)
strategies = uniq(2)
nt = words(traces)
ns = words(strategies)
if (nt == 0) { print "footprint.gp: no data in " . data; exit status 1 }
stats data using 5 nooutput
ymax = STATS_max
npublished = system("awk -F, 'NR > 1 && $6 != \"\" { n++ } END { print n + 0 }' '" . data . "'") + 0
if (npublished > 0) {
	stats data using 6 nooutput
	ymax = (STATS_max > ymax ? STATS_max : ymax)
}
ymax = ymax * 1.12
# the page cache read ahead (0 where the data does not say)
ra_split = system("awk -F, 'NR == 1 { print ($7 == \"readahead_mib\") ? 1 : 0; exit }' '" . data . "'") + 0
ahead = ra_split ? "(valid(7) ? column(7) : 0)" : "0"

# position of a word in a list (0: absent)
pos(list, w) = sum [k = 1:words(list)] ((word(list, k) eq w) ? k : 0)
bw = 0.8 / ns
x(t, s) = pos(traces, t) + (pos(strategies, s) - (ns + 1) / 2.0) * bw
# a band of a bar from lo to hi, as boxxyerror's x:y:dx:dy
band(lo, hi) = (lo + hi) / 2.0
half(lo, hi) = (hi - lo) / 2.0
published = "(valid(6) ? column(6) : NaN)"
# a bar's value goes above the bar or above the published mark, if higher
label_y = "(valid(6) && column(6) > column(5) ? column(6) : column(5))"

# a group of bars per trace, 240 pixels wide for up to three bars, else
# 100 a bar with the names under them slanted, so that they never touch
slant = (ns > 3)
width = 260 + nt * (slant ? 100 * ns : 240)
width = (width < 800 ? 800 : width)
do for [fmt in formats] {
	if (fmt eq "png") {
		set terminal pngcairo size width, 540 font "sans,10"
	} else {
		set terminal svg size width, 540 font "sans,10" dynamic
	}
	set output out . "." . fmt
	set title heading . \
		(trace ne "" ? ": " . trace : "") . (host ne "" ? "\n{/*0.9 " . host . "}" : "")
	set ylabel "host memory (MiB)"
	set key outside right top vertical box samplen 2
	set grid ytics
	set border 3
	set ytics nomirror
	set xrange [0.5:nt + 0.5]
	set yrange [0:ymax]
	set bmargin (slant ? 8 : 5)
	# each bar is named under it; each group's trace under the names
	set xtics () nomirror scale 0 font ",8"
	if (slant) { set xtics rotate by 30 right } else { set xtics norotate }
	do for [i = 1:nt] {
		do for [j = 1:ns] {
			set xtics add (word(strategies, j) x(word(traces, i), word(strategies, j)))
		}
		set label 100 + i word(traces, i) at i, graph 0 center \
			offset 0, (slant ? -4.8 : -2.6) font ",10"
	}
	set style fill solid 0.75 border rgb "black"
	plot data using (x(strcol(1), strcol(2))):(band(0, $3)):(bw / 2):(half(0, $3)) \
		with boxxyerror fs solid 0.75 lc rgb "#9b59d0" title "tmpfs", \
	     data using (x(strcol(1), strcol(2))):(band($3, $3 + $4 - @ahead)):(bw / 2):(half($3, $3 + $4 - @ahead)) \
		with boxxyerror fs pattern 4 lc rgb "#3cb89a" \
		title (ra_split ? "page cache the guest asked for" : "page cache"), \
	     data using (x(strcol(1), strcol(2))):(band($3 + $4 - @ahead, $3 + $4)):(bw / 2):(half($3 + $4 - @ahead, $3 + $4)) \
		with boxxyerror fs solid 0.45 lc rgb "#2c7fb8" \
		title (ra_split ? "page cache readahead added" : ""), \
	     data using (x(strcol(1), strcol(2))):(band($3 + $4, $5)):(bw / 2):(half($3 + $4, $5)) \
		with boxxyerror fs solid 0.75 lc rgb "#e8a33c" title "block tables", \
	     data using (x(strcol(1), strcol(2)) - bw / 2):@published:(bw):(0) \
		with vectors nohead lw 3 lc rgb "black" title (npublished > 0 ? "published (2004)" : ""), \
	     data using (x(strcol(1), strcol(2))):@label_y:(sprintf("%.1f", $5)) \
		with labels offset 0, 0.7 font ",8" notitle
	do for [i = 1:nt] { unset label 100 + i }
	set output
}
