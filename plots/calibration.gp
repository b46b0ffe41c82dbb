# SPDX-License-Identifier: GPL-2.0-only
# calibration.gp - the modern reclaim against the kernel on the calibration
# corpus: a point per configuration, the kernel's density (median of its
# runs) across, the model's up; the fitted half and the held-back half
# apart.  Points on the diagonal agree; above it the model is too high.
# Input: summary.csv of bench/calibrate.sh (make calibrate):
#   name,half,trace,strategy,instances,cgroup,stagger,runs,density,
#   model_density,...
# Writes OUT.png (pngcairo) and OUT.svg:
#   gnuplot -e "data='bench/results/calibrate/summary.csv'; out='plots/calibration'" \
#     plots/calibration.gp

if (!exists("data")) data = "bench/results/calibrate/summary.csv"
if (!exists("out")) out = "plots/calibration"

set datafile separator ","
set datafile columnheaders
stats data using 9 nooutput
if (STATS_records == 0) { print "calibration.gp: no configuration in " . data; exit status 1 }
stats data using 5 nooutput
top = STATS_max + 1

# Points of one density pair lie on one another: each is moved a little,
# by its row, so that every configuration shows.
jitter(x) = x + ((int(column(0)) % 7) - 3) * 0.035
half(h) = (strcol(2) eq h) ? 1 : NaN

set xlabel "density in the kernel (median of its runs)"
set ylabel "density in the model"
set xrange [0:top]
set yrange [0:top]
set xtics 1
set ytics 1
set grid
set size square
set key top left box opaque
set title "The modern reclaim against the kernel: a point per configuration"

do for [t in "pngcairo svg"] {
	if (t eq "pngcairo") {
		set terminal pngcairo size 800,800 font "sans,10"
		set output out . ".png"
	} else {
		set terminal svg size 800,800 font "sans,10"
		set output out . ".svg"
	}
	plot x title "model = kernel" lc rgb "#808080" dt 2, \
	     data using (jitter($9)):(half("fit") * jitter($10)) \
	       title "fitted half" with points pt 7 ps 1.2 lc rgb "#1f77b4", \
	     data using (jitter($9)):(half("held") * jitter($10)) \
	       title "held-back half" with points pt 6 ps 1.6 lw 2 lc rgb "#d62728"
	unset output
}
