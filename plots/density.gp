# density.gp - host memory demanded against the number of instances, one
# curve per strategy, with the host's memory as a horizontal line and each
# strategy's density (the most instances before the host swaps) marked.
# Input: the CSV of "anonsim density --csv":
#   strategy,instances,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,
#   overhead_mib,total_mib,peak_total_mib,swap_used_mib,swap_outs,
#   first_swap_out_s,host_mem_mib,density
# Writes OUT.png (pngcairo) and OUT.svg:
#   gnuplot -e "data='density.csv'; out='plots/density'" plots/density.gp

if (!exists("data")) data = "plots/data/density.csv"
if (!exists("out")) out = "plots/density"

set datafile separator ","
set datafile columnheaders
strategies = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '" . data . "'")
ns = words(strategies)
if (ns == 0) { print "density.gp: no data in " . data; exit status 1 }
stats data using 13 nooutput
host_mem = STATS_max

demand(s) = (strcol(1) eq s) ? column(9) : NaN
# the density point: N equal to the strategy's density
knee(s) = (strcol(1) eq s && valid(14) && column(2) == column(14)) ? column(9) : NaN

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 800, 500 font "sans,10"
	} else {
		set terminal svg size 800, 500 font "sans,10" dynamic
	}
	set output out . "." . fmt
	set title "Host memory demanded by N instances (peak, unlimited memory)"
	set xlabel "instances"
	set ylabel "host memory (MiB)"
	set key top left
	set grid
	set xtics 1 nomirror
	set xrange [0:*]
	set yrange [0:*]
	if (host_mem > 0) {
		set arrow 1 from graph 0, first host_mem to graph 1, first host_mem \
			nohead lw 2 dt 2 lc rgb "red" front
		set label 1 sprintf("host memory %.2f MiB", host_mem) \
			at graph 0.99, first host_mem right offset 0, 0.7 tc rgb "red" front
	}
	plot for [i = 1:ns] data using 2:(demand(word(strategies, i))) \
		with linespoints lc i pt 7 ps 0.6 title word(strategies, i), \
	     for [i = 1:ns] data using 2:(knee(word(strategies, i))):14 \
		with labels point pt 6 ps 2.2 lc i offset 0, 1.2 tc lt i notitle
	unset arrow 1
	unset label 1
	set output
}
