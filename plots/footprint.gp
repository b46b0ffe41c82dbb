# footprint.gp - host memory of one boot by strategy, a group of bars per
# trace, with the values published in 2004 marked where there are some.
# Input (written by "anonsim reproduce"):
#   trace,strategy,total_mib,published_mib
# published_mib is empty where nothing was published.  Trace and strategy
# names have no spaces.
# Writes OUT.png (pngcairo) and OUT.svg:
#   gnuplot -e "data='footprint.csv'; out='plots/footprint'" plots/footprint.gp

if (!exists("data")) data = "plots/data/footprint.csv"
if (!exists("out")) out = "plots/footprint"

set datafile separator ","
set datafile columnheaders
uniq(col) = system("awk -F, 'NR > 1 && !seen[$" . col . "]++ { printf \"%s \", $" . col . " }' '" . data . "'")
traces = uniq(1)
strategies = uniq(2)
nt = words(traces)
ns = words(strategies)
if (nt == 0) { print "footprint.gp: no data in " . data; exit status 1 }

# position of a word in a list (0: absent)
pos(list, w) = sum [k = 1:words(list)] ((word(list, k) eq w) ? k : 0)
bw = 0.8 / ns
x(t, s) = pos(traces, t) + (pos(strategies, s) - (ns + 1) / 2.0) * bw
bar(s) = (strcol(2) eq s) ? column(3) : NaN
published(s) = (strcol(2) eq s && valid(4)) ? column(4) : NaN

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 300 + 220 * nt, 480 font "sans,10"
	} else {
		set terminal svg size 300 + 220 * nt, 480 font "sans,10" dynamic
	}
	set output out . "." . fmt
	set title "Host memory of one boot, by strategy"
	set ylabel "host memory (MiB)"
	set key outside right top
	set grid ytics
	set xrange [0.5:nt + 0.5]
	set yrange [0:*]
	set xtics () nomirror
	do for [i = 1:nt] { set xtics add (word(traces, i) i) }
	set style fill solid 0.7 border -1
	set boxwidth bw absolute
	plot for [j = 1:ns] data \
		using (x(strcol(1), strcol(2))):(bar(word(strategies, j))) \
		with boxes lc j title word(strategies, j), \
	     for [j = 1:ns] data \
		using (x(strcol(1), strcol(2))):(published(word(strategies, j))) \
		with points pt 9 ps 2 lc rgb "black" \
		title (j == 1 ? "published (2004)" : "")
	set output
}
