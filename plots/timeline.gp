# SPDX-License-Identifier: GPL-2.0-only
# timeline.gp - host memory over trace time, one panel per series (a
# strategy, or any label), stacked by category, all panels on one scale,
# from the CSV of "anonsim replay --series":
#   strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,
#   overhead_mib,total_mib,swap_used_mib
# Any number of series; labels have no spaces.  Optional variables for the
# title: trace (what was replayed) and host (the host it was replayed on).
# Writes OUT.png (pngcairo) and OUT.svg, or only the formats in
# the variable formats ("png", "svg" or both):
#   gnuplot -e "data='timeline.csv'; out='plots/timeline'; trace='boot'" plots/timeline.gp

if (!exists("data")) data = "plots/data/timeline.csv"
if (!exists("out")) out = "plots/timeline"
if (!exists("trace")) trace = ""
if (!exists("host")) host = ""
if (!exists("formats")) formats = "png svg"

set datafile separator ","
set datafile columnheaders
# series in the order they appear
strategies = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '" . data . "'")
ns = words(strategies)
if (ns == 0) { print "timeline.gp: no data in " . data; exit status 1 }
cols = (ns > 1) ? 2 : 1
rows = (ns + cols - 1) / cols

# one scale for every panel: the largest total or swap use, the longest time
stats data using 2 nooutput
tmax = STATS_max
stats data using 8 nooutput
ymax = STATS_max
stats data using 9 nooutput
ymax = (STATS_max > ymax ? STATS_max : ymax)
ymax = (ymax > 0 ? ymax * 1.08 : 1)

# categories 1 = tmpfs .. 5 = overhead (columns 3..7), stacked from tmpfs
# up; the key lists those that hold memory somewhere in the data
cat_name(k) = (k == 1) ? "tmpfs" : (k == 2) ? "page cache" : (k == 3) ? "swap tables" : \
	(k == 4) ? "map-count tables" : "overhead"
array used[5]
do for [k = 1:5] {
	stats data using (column(2 + k)) nooutput
	used[k] = (STATS_max > 0)
}
stack(k, s) = (strcol(1) eq s) ? sum [j = 1:k] column(2 + j) : NaN
base(k, s) = (k == 1) ? ((strcol(1) eq s) ? 0 : NaN) : stack(k - 1, s)
swapped(s) = (strcol(1) eq s) ? column(9) : NaN
# a colour per category; the page cache also hatched, told apart from
# tmpfs without colour
cat_color(k) = word("#9b59d0 #3cb89a #e8a33c #d9534f #7f7f7f", k)

# the canvas: panels of 260 pixels, 130 above them for the titles and the
# shared key (centred 75 pixels from the top), 50 below for the axis label
width = (cols > 1) ? 520 * cols : 640
height = 260 * rows + 180
top = 1 - 130.0 / height
bottom = 50.0 / height
do for [fmt in formats] {
	if (fmt eq "png") {
		set terminal pngcairo size width, height font "sans,10"
	} else {
		set terminal svg size width, height font "sans,10" dynamic
	}
	set output out . "." . fmt
	heading = "Host memory over trace time, by category" . \
		(trace ne "" ? ": " . trace : "") . (host ne "" ? "\n{/*0.9 " . host . "}" : "")
	set multiplot layout rows, cols title heading font ",11" \
		margins 0.08, 0.98, bottom, top spacing 0.07, 100.0 / height
	set xlabel "trace time (s)" offset 0, 0.5
	set ylabel "host memory (MiB)" offset 1, 0
	set grid
	set border 3
	set tics nomirror
	set xrange [0:tmax]
	set yrange [0:ymax]
	do for [i = 1:ns] {
		s = word(strategies, i)
		set title s offset 0, -0.6
		# the first panel draws the key for all, above the panels
		if (i == 1) {
			set key at screen 0.5, screen 1 - 75.0 / height center center horizontal \
				maxcols 6 width 2 samplen 2 box opaque
		} else {
			unset key
		}
		# the bands do not overlap: drawn from tmpfs up, as the key reads
		plot data using 2:(base(1, s)):(stack(1, s)) with filledcurves \
			fs solid 0.75 lc rgb cat_color(1) title (used[1] ? cat_name(1) : ""), \
		     data using 2:(base(2, s)):(stack(2, s)) with filledcurves \
			fs pattern 4 border lc rgb cat_color(2) lc rgb cat_color(2) \
			title (used[2] ? cat_name(2) : ""), \
		     for [k = 3:5] data \
			using 2:(base(k, s)):(stack(k, s)) with filledcurves \
			fs solid 0.75 lc rgb cat_color(k) title (used[k] ? cat_name(k) : ""), \
		     data using 2:(swapped(s)) with lines \
			lw 2 dt 2 lc rgb "black" title "swap used"
	}
	unset multiplot
	set output
}
