# SPDX-License-Identifier: GPL-2.0-only
# density.gp - host memory demanded against the number of instances, one
# curve per series (a strategy, or any label), with the host's memory as a
# horizontal line and each series' density (the most instances before the
# host swaps) marked on its curve and given in the key.
# Input: the CSV of "anonsim density --csv":
#   strategy,instances,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,
#   overhead_mib,total_mib,peak_total_mib,swap_used_mib,swap_out_pages,
#   first_swap_out_s,host_mem_mib,density
# Any number of series; labels have no spaces.  Optional variables for the
# title: trace (what was replayed) and host (the host it was replayed on).
# Writes OUT.png (pngcairo) and OUT.svg, or only the formats in
# the variable formats ("png", "svg" or both):
#   gnuplot -e "data='density.csv'; out='plots/density'" plots/density.gp

if (!exists("data")) data = "plots/data/density.csv"
if (!exists("out")) out = "plots/density"
if (!exists("trace")) trace = ""
if (!exists("host")) host = ""
if (!exists("formats")) formats = "png svg"

set datafile separator ","
set datafile columnheaders
strategies = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '" . data . "'")
ns = words(strategies)
if (ns == 0) { print "density.gp: no data in " . data; exit status 1 }
# each series' density, for the key ("" when it never swapped in the sweep)
density_of(s) = system("awk -F, -v s='" . s . "' '$1 == s && $14 != \"\" { d = $14 } END { printf \"%s\", d }' '" . data . "'")
stats data using 13 nooutput
host_mem = STATS_max
stats data using 9 nooutput
ymax = (STATS_max > host_mem ? STATS_max : host_mem) * 1.06

demand(s) = (strcol(1) eq s) ? column(9) : NaN
# the density point: N equal to the series' density
knee(s) = (strcol(1) eq s && valid(14) && column(2) == column(14)) ? column(9) : NaN

# Series that lie on one another stay apart: each has its own dash pattern
# and marker, small filled markers alternating with large open ones so that
# a filled one shows inside an open one; colours repeat after eight.
marker(i) = int(word("7 4 9 6 13 8 5 12 11 10", (i - 1) % 10 + 1))
msize(i) = word("0.8 1.6 0.9 1.8 1.0 1.7 0.8 1.8 1.0 1.7", (i - 1) % 10 + 1) + 0
dash(i) = (i - 1) % 5 + 1
color(i) = word("#8e44ad #16a085 #2c7fb8 #d95f02 #7f7f7f #e7298a #66a61e #a6761d", (i - 1) % 8 + 1)

# the key below the plot, three series a row: room for its rows
key_rows = (ns + 2) / 3
height = 520 + 18 * key_rows
do for [fmt in formats] {
	if (fmt eq "png") {
		set terminal pngcairo size 900, height font "sans,10"
	} else {
		set terminal svg size 900, height font "sans,10" dynamic
	}
	set output out . "." . fmt
	set title "Host memory demanded by N instances" . (trace ne "" ? ": " . trace : "") . \
		(host ne "" ? "\n{/*0.9 " . host . "}" : "")
	set xlabel "instances"
	set ylabel "host memory demanded, peak with memory unlimited (MiB)"
	# the key outside the plot: the curves and the host line keep the inside
	set key outside below center horizontal maxcols 3 box samplen 4 width 2
	set bmargin 4 + 1.3 * key_rows
	set grid
	set border 3
	set tics nomirror
	set xtics 1
	set xrange [0:*]
	set yrange [0:ymax]
	# the host line's label at the left, where the curves are still low
	if (host_mem > 0) {
		set arrow 1 from graph 0, first host_mem to graph 1, first host_mem \
			nohead lw 2 dt 2 lc rgb "red" back
		set label 1 sprintf("host memory %.0f MiB", host_mem) \
			at graph 0.01, first host_mem left offset 0, 0.8 tc rgb "red" front
	}
	plot for [i = 1:ns] data using 2:(demand(word(strategies, i))) \
		with linespoints lw 1.5 dt dash(i) lc rgb color(i) \
		pt marker(i) ps msize(i) \
		title word(strategies, i) . (density_of(word(strategies, i)) ne "" ? \
			" (density " . density_of(word(strategies, i)) . ")" : ""), \
	     for [i = 1:ns] data using 2:(knee(word(strategies, i))) \
		with points lc rgb color(i) pt marker(i) ps 2 * msize(i) lw 2 notitle
	unset arrow 1
	unset label 1
	set output
}
