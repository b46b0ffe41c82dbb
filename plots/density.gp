# SPDX-License-Identifier: GPL-2.0-only
# density.gp - host memory demanded against the number of instances, one
# curve per series (a strategy, or any label), with the host's memory as a
# horizontal line and each series' density (the most instances before the
# host swaps) marked on its curve and given in the key.
# Input: the CSV of "anonsim density --csv":
#   strategy,instances,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,
#   overhead_mib,total_mib,peak_total_mib,swap_used_mib,swap_out_pages,
#   first_swap_out_s,host_mem_mib,density
# Any number of series; labels have no spaces.  Series named CASE-real and
# CASE-model are a pair, measured and modelled: one colour and marker shape
# per case, the real series filled on a solid line, the model's open on a
# dashed one.  A density mark above the host line is labelled with the page
# cache in it, which the host drops without swapping.  Optional variables
# for the title: trace (what was replayed) and host (the host it was
# replayed on); for other curves of the same columns: heading (the title),
# xname and yname (the axes' labels), xstep (0: tics chosen by gnuplot).
# Writes OUT.png (pngcairo) and OUT.svg, or only the formats in
# the variable formats ("png", "svg" or both):
#   gnuplot -e "data='density.csv'; out='plots/density'" plots/density.gp

if (!exists("data")) data = "plots/data/density.csv"
if (!exists("out")) out = "plots/density"
if (!exists("trace")) trace = ""
if (!exists("host")) host = ""
if (!exists("formats")) formats = "png svg"
if (!exists("heading")) heading = "Host memory demanded by N instances"
if (!exists("xname")) xname = "instances"
if (!exists("yname")) yname = "host memory demanded, peak with memory unlimited (MiB)"
if (!exists("xstep")) xstep = 1

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
# a filled one shows inside an open one; colours repeat after eight.  A
# pair's two series (role 1 real, 2 model; 0 for a series of no pair) share
# the case's colour and shape, filled and solid against open and dashed.
role(s) = (strlen(s) > 5 && s[strlen(s) - 4:] eq "-real") ? 1 : \
	(strlen(s) > 6 && s[strlen(s) - 5:] eq "-model") ? 2 : 0
case(s) = (role(s) == 1) ? s[1:strlen(s) - 5] : (role(s) == 2) ? s[1:strlen(s) - 6] : s
cases = ""
do for [i = 1:ns] {
	c = case(word(strategies, i))
	if (strstrt(" " . cases . " ", " " . c . " ") == 0) { cases = cases . c . " " }
}
pos(list, w) = sum [k = 1:words(list)] ((word(list, k) eq w) ? k : 0)
r(i) = role(word(strategies, i))
c(i) = pos(cases, case(word(strategies, i)))
marker(i) = (r(i) == 0) ? int(word("7 4 9 6 13 8 5 12 11 10", (i - 1) % 10 + 1)) : \
	int(word("7 5 9 11 13 15", (c(i) - 1) % 6 + 1)) - (r(i) == 2)
msize(i) = (r(i) == 0) ? word("0.8 1.6 0.9 1.8 1.0 1.7 0.8 1.8 1.0 1.7", (i - 1) % 10 + 1) + 0 : \
	(r(i) == 1) ? 0.8 : 1.6
dash(i) = (r(i) == 0) ? (i - 1) % 5 + 1 : r(i)
color(i) = ccolor(case(word(strategies, i)))

# A density mark above the host line: the peak with memory unlimited is
# above the host, yet that N ran there without a swap-out.  Where the
# memory without page cache fits the host, the page cache is why: reclaim
# drops it without swapping.  Each such mark gets a label in the case's
# colour (one per case and N: a pair's marks lie on one another) giving
# its page cache, the labels from the lowest up at least a line apart, and
# a note says what the labels mean.
ccolor(s) = word("#8e44ad #16a085 #2c7fb8 #d95f02 #7f7f7f #e7298a #66a61e #a6761d", (pos(cases, s) - 1) % 8 + 1)
above = system('awk -F, -v host=' . sprintf("%.17g", host_mem) . ' -v gap=' . sprintf("%.17g", ymax * 0.035) . ' '' \
	NR > 1 && host > 0 && $14 != "" && $2 == $14 && $9 > host { \
		c = $1; sub(/-(real|model)$/, "", c); if (seen[c, $2]++) next; \
		n++; x[n] = $2; y[n] = $9; k[n] = c; \
		if ($9 - $4 <= host) { t[n] = sprintf("page cache %.0f MiB", $4); cache = 1 } \
		else t[n] = "no swap-out" \
	} \
	END { \
		for (i = 2; i <= n; i++) \
			for (j = i; j > 1 && y[j] < y[j - 1]; j--) { \
				v = x[j]; x[j] = x[j - 1]; x[j - 1] = v; v = y[j]; y[j] = y[j - 1]; y[j - 1] = v; \
				v = k[j]; k[j] = k[j - 1]; k[j - 1] = v; v = t[j]; t[j] = t[j - 1]; t[j - 1] = v \
			} \
		for (i = 1; i <= n; i++) { \
			if (i > 1 && y[i] < prev + gap) y[i] = prev + gap; \
			prev = y[i]; \
			printf "set label %d \"%s\" at first %s, first %s left offset 2, 0 font \",8\" boxed tc rgb ccolor(\"%s\") front; ", \
				10 + i, t[i], x[i], y[i], k[i] \
		} \
		if (cache) printf "set label 2 \"Density marks above the host line ran without a swap-out:\\nthe page cache given beside them is dropped, not swapped\" at graph 0.02, graph 0.97 left font \",9\" front; " \
	}'' ''' . data . "'")

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
	set title heading . (trace ne "" ? ": " . trace : "") . \
		(host ne "" ? "\n{/*0.9 " . host . "}" : "")
	set xlabel xname
	set ylabel yname
	# the key outside the plot: the curves and the host line keep the inside
	set key outside below center horizontal maxcols 3 box samplen 4 width 2
	set bmargin 4 + 1.3 * key_rows
	set grid
	set border 3
	set tics nomirror
	if (xstep > 0) { set xtics xstep } else { set xtics autofreq }
	set xrange [0:*]
	set yrange [0:ymax]
	# the host line's label at the left, where the curves are still low
	if (host_mem > 0) {
		set arrow 1 from graph 0, first host_mem to graph 1, first host_mem \
			nohead lw 2 dt 2 lc rgb "red" back
		set label 1 sprintf("host memory %.0f MiB", host_mem) \
			at graph 0.01, first host_mem left offset 0, 0.8 tc rgb "red" front
	}
	# the labels over the curves, on a blank box
	set style textbox opaque noborder margins 1, 1
	eval above
	plot for [i = 1:ns] data using 2:(demand(word(strategies, i))) \
		with linespoints lw 1.5 dt dash(i) lc rgb color(i) \
		pt marker(i) ps msize(i) \
		title word(strategies, i) . (density_of(word(strategies, i)) ne "" ? \
			" (density " . density_of(word(strategies, i)) . ")" : ""), \
	     for [i = 1:ns] data using 2:(knee(word(strategies, i))) \
		with points lc rgb color(i) pt marker(i) ps 2 * msize(i) lw 2 notitle
	unset arrow 1
	unset label
	set output
}
