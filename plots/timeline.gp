# timeline.gp - host memory over trace time, one panel per strategy, stacked
# by category, from the CSV of "anonsim replay --series":
#   strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,
#   overhead_mib,total_mib,swap_used_mib
# Writes OUT.png (pngcairo) and OUT.svg:
#   gnuplot -e "data='timeline.csv'; out='plots/timeline'" plots/timeline.gp

if (!exists("data")) data = "plots/data/timeline.csv"
if (!exists("out")) out = "plots/timeline"

set datafile separator ","
set datafile columnheaders
# strategies in the order they appear (labels have no spaces)
strategies = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '" . data . "'")
ns = words(strategies)
if (ns == 0) { print "timeline.gp: no data in " . data; exit status 1 }
cols = (ns > 1) ? 2 : 1
rows = (ns + cols - 1) / cols

# the column of category k (1 = tmpfs .. 5 = overhead), summed from tmpfs up
cat_name(k) = word("tmpfs page-cache swap-tables map-count-tables overhead", k)
stack(k, s) = (strcol(1) eq s) ? sum [j = 1:k] column(2 + j) : NaN
base(k, s) = (k == 1) ? ((strcol(1) eq s) ? 0 : NaN) : stack(k - 1, s)
swapped(s) = (strcol(1) eq s) ? column(9) : NaN

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 480 * cols, 300 * rows font "sans,9"
	} else {
		set terminal svg size 480 * cols, 300 * rows font "sans,9" dynamic
	}
	set output out . "." . fmt
	set multiplot layout rows, cols title "Host memory over trace time, by category"
	set xlabel "trace time (s)"
	set ylabel "host memory (MiB)"
	set key top left font ",8"
	set grid
	set style fill solid 0.6 noborder
	do for [i = 1:ns] {
		s = word(strategies, i)
		set title s
		plot for [k = 5:1:-1] data \
			using 2:(base(k, s)):(stack(k, s)) with filledcurves \
			lc k title cat_name(k), \
		     data using 2:(swapped(s)) with lines \
			lw 2 dt 2 lc rgb "black" title "swap used"
	}
	unset multiplot
	set output
}
