#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# plot_data.sh - anonsim-plot FILE... draws the plot that fits the data,
# told from its content: density CSV and JSON (density, a series per
# strategy; the real-density results: pairs, each mark above the host
# labelled with its page cache), replay --series (timeline), sweep CSV and
# JSON (bars grouped by what the sweep varies, the page cache split where
# readahead windows from 0 are), live CSV and JSON (real beside the model
# per category held), standard input and several files; the line naming
# the plot and its series is exact, and the plot a PNG or SVG.  The
# README's plots of a trace without a readahead window say so.  A file it
# cannot read or that is no such output, a mix of kinds, a wrong option
# or a failing gnuplot: the exact message and status, and no plot nor
# temporary left.  Skipped (77) without gnuplot.
. "${top_srcdir:-.}/tests/lib.sh"
need_gnuplot
src=$(cd "$top_srcdir" && pwd) || exit 1
plot=$(cd "$top_builddir" && pwd)/plots/anonsim-plot || exit 1
ANONSIM_DATADIR=$src
export ANONSIM_DATADIR
mkdir "$tmp/w" && cd "$tmp/w" || exit 1
trace=$src/tests/model/replay/density.trace
all="read-copy devanon/fixed devanon/posted punch free-hint odirect dax"

# drawn OUT LINE FILE...: anonsim-plot -o OUT FILE... exits 0, says LINE
# (after "anonsim-plot: OUT: ") and leaves OUT, a PNG or SVG
drawn() {
	o=$1 line=$2; shift 2
	expect_status 0 "$plot" -o "$o" "$@"
	[ "$out" = "anonsim-plot: $o: $line" ] || fail "$*: said: $out"
	plot_ok "$o"
}

# density, CSV and JSON: the same seven strategy runs
expect_status 0 "$ANONSIM" density -q --csv -m 256K --policy 2.4 --max 16 -o density.csv "$trace"
expect_status 0 "$ANONSIM" density -q --json -m 256K --policy 2.4 --max 16 -o density.json "$trace"
drawn d-csv.png "density, host memory against instances; series: $all" density.csv
drawn d-json.svg "density, host memory against instances; series: $all" density.json
for s in $all; do
	grep -q ">$s (density " d-json.svg || fail "d-json.svg: $s and its density not in the key"
done
# -o by default: the file's name, .png
expect_status 0 "$plot" density.json
[ "$out" = "anonsim-plot: density.png: density, host memory against instances; series: $all" ] ||
	fail "no -o: $out"
plot_ok density.png
# standard input
expect_status 0 sh -c '"$1" -o stdin.svg - <density.csv' sh "$plot"
[ "$out" = "anonsim-plot: stdin.svg: density, host memory against instances; series: $all" ] ||
	fail "standard input: $out"
plot_ok stdin.svg
# two files: their series told apart by the files' names
drawn two.png "density, host memory against instances; series: $(for f in density.csv density.json; do
	for s in $all; do printf '%s:%s ' $f $s; done; done | sed 's/ $//')" density.csv density.json

# the real-density results: four cases, real and model each; every
# density mark is above the 160 MiB host, labelled with its page cache
# (real: debian-private 231 MiB at N = 5, debian-cow 49 at 4,
# busybox-private 77 at 5, busybox-cow 16 at 5; the model's the same but
# debian-private 187 at 4), and a note says
# what the labels mean
drawn real.svg "density, host memory against instances; series: debian-private-real debian-private-model debian-cow-real debian-cow-model busybox-private-real busybox-private-model busybox-cow-real busybox-cow-model" \
	"$src/bench/results/density-real/density-real.csv"
[ "$(grep -o '>page cache [0-9]* MiB<' real.svg | sort -u | tr -d '<>' | tr '\n' ' ')" = \
	"page cache 16 MiB page cache 187 MiB page cache 231 MiB page cache 49 MiB page cache 77 MiB " ] ||
	fail "real.svg: the labels of the density marks: $(grep -o '>page cache [0-9]* MiB<' real.svg)"
grep -q '>Density marks above the host line ran without a swap-out:<' real.svg ||
	fail "real.svg: no note on the marks above the host line"

# replay --series: the timeline, a panel per strategy
expect_status 0 "$ANONSIM" replay -q --series series.csv --series-step 0.00001 -n 3 "$trace"
drawn series.png "timeline, host memory over trace time; series: $all" series.csv

# sweeps: grouped by the readahead window (the page cache split), by the
# host memory, by two parameters at once
expect_status 0 "$ANONSIM" sweep -q -s read-copy,devanon --variant fixed --readahead 0,128 -o ra.csv "$trace"
drawn ra.svg "sweep, bars grouped by readahead window (KiB); groups: 0 128; series: read-copy devanon/fixed" ra.csv
for k in "page cache the guest asked for" "page cache readahead added"; do
	grep -q ">$k<" ra.svg || fail "ra.svg: no '$k' in the key"
done
expect_status 0 "$ANONSIM" sweep -q --json -s read-copy --readahead 0 -m 256K,unlimited -o mem.json "$trace"
drawn mem.svg "sweep, bars grouped by host memory; groups: 256K unlimited; series: read-copy" mem.json
grep -q '>page cache<' mem.svg || fail "mem.svg: the page cache split, where no readahead window varies"
expect_status 0 "$ANONSIM" sweep -q -s punch --policy 2.4,modern -n 1,2 -o two.csv "$trace"
drawn two.png "sweep, bars grouped by combination; groups: 2.4_reclaim:n=1 2.4_reclaim:n=2 modern_reclaim:n=1 modern_reclaim:n=2; series: punch" two.csv

# live: a committed run under pressure (tmpfs, page cache and swap), and
# CSV of two strategies without swap (a quoted trace name)
drawn live.png "live, real beside the model over time; series: tmpfs-real tmpfs-model page-cache-real page-cache-model swap-real swap-model" \
	"$src/bench/results/calibrate-zero-reads/boot64-128-6-rc/run-1.json"
cat >live.csv <<'END'
trace,strategy,instances,point,time_s,tmpfs_pages,tmpfs_blocks_pages,model_tmpfs_pages,cache_pages,model_cache_pages,swap_pages,model_swap_pages,swap_out_pages,model_swap_out_pages,cgroup_pages,first_swap_out_s,model_first_swap_out_s,within_tolerance
"phases, a.trace",read-copy,1,boot-done,0.5,256,256,256,512,512,0,0,0,0,,,,yes
"phases, a.trace",read-copy,1,end,1,512,512,512,640,630,0,0,0,0,,,,yes
"phases, a.trace",odirect,1,end,1,512,512,512,0,0,0,0,0,0,,,,yes
END
drawn live.svg "live, real beside the model over time; series: read-copy:tmpfs-real read-copy:tmpfs-model odirect:tmpfs-real odirect:tmpfs-model read-copy:page-cache-real read-copy:page-cache-model odirect:page-cache-real odirect:page-cache-model" live.csv

# the README's plots of a trace that records no readahead window: the
# timeline's subtitle says it is replayed without readahead
grep -v '^readahead-kb' "$trace" >nora.trace
expect_status 0 "$plot" -p -t nora.trace -o readme
[ "$(grep -o '>one instance; host: [^<]*<' readme/timeline.svg)" = \
	">one instance; host: memory unlimited, modern reclaim, no readahead (the trace records no window)<" ] ||
	fail "readme/timeline.svg, its subtitle: $(grep -o '>one instance; host: [^<]*<' readme/timeline.svg)"
for p in timeline density footprint readahead; do
	plot_ok readme/$p.png
	plot_ok readme/$p.svg
done

# refused, exactly, leaving nothing: no_trace OUT: neither OUT nor a
# temporary of anonsim-plot in the working directory
no_trace() {
	[ ! -e "$1" ] || fail "$1 left after a failure"
	[ -z "$(ls -A | grep '^\.anonsim-plot')" ] || fail "a temporary left: $(ls -A | grep '^\.anonsim-plot')"
}
# refused STATUS MESSAGE ARGS...: anonsim-plot -o out.png ARGS... exits
# STATUS with MESSAGE (after "anonsim-plot: ")
refused() {
	st=$1 msg=$2; shift 2
	expect_status "$st" "$plot" -o out.png "$@"
	[ "$err" = "anonsim-plot: $msg" ] || fail "$*: $err"
	no_trace out.png
}
printf 'a,b\n1,2\n' >other.csv
refused 2 "other.csv:1: not the output of anonsim density, replay --series, sweep or live (CSV or JSON)" other.csv
: >empty.csv
refused 2 "empty.csv: empty" empty.csv
{ head -n 3 density.csv; echo read-copy,4,1; } >short.csv
refused 2 "short.csv:4: 3 fields, where its header has 14" short.csv
head -n 1 density.csv >header.csv
refused 2 "header.csv: no data under its header" header.csv
printf '{\n  "command": "density",\n  "results": [1,, 2]\n}\n' >bad.json
refused 2 'bad.json:3: not JSON: a value expected' bad.json
printf '{ "command": "density", "results": [ {} ] } }\n' >after.json
refused 2 'after.json:1: not JSON: text after its end' after.json
printf '{ "results": [] }\n' >foreign.json
refused 2 'foreign.json: JSON, but no anonsim output (no "command")' foreign.json
expect_status 0 "$ANONSIM" trace list --json -o list.json
refused 2 "list.json: anonsim trace list output, which has no plot (density, replay --series, sweep and live have)" list.json
expect_status 0 "$ANONSIM" replay -q --json -o replay.json "$trace"
refused 2 "replay.json: anonsim replay without --series: nothing over time to draw (plot the CSV of --series FILE)" replay.json
refused 2 "cannot read nowhere.csv" nowhere.csv
refused 2 "series.csv: anonsim replay --series output, where density.csv is anonsim density output: one kind a plot" \
	density.csv series.csv
refused 1 "unknown argument '--bogus' (see anonsim-plot --help)" --bogus density.csv
refused 1 "-t is for the README's plots, not with FILE (see anonsim-plot --help)" -t "$trace" density.csv
expect_status 1 "$plot" -o out.pdf density.csv
[ "$err" = "anonsim-plot: -o out.pdf: the plot is a .png or .svg file (see anonsim-plot --help)" ] || fail "-o out.pdf: $err"
no_trace out.pdf
expect_status 1 "$plot" - </dev/null
[ "$err" = "anonsim-plot: standard input needs -o OUT.png or OUT.svg (see anonsim-plot --help)" ] ||
	fail "- without -o: $err"
expect_status 5 "$plot" -o nowhere/out.png density.csv
[ "$err" = "anonsim-plot: cannot write nowhere/out.png" ] || fail "-o nowhere/out.png: $err"
# gnuplot failing: status 5, nothing of the plot left, an earlier plot kept
expect_status 5 env GNUPLOT=false "$plot" -o out.png density.csv
[ "$err" = "anonsim-plot: gnuplot $src/plots/density.gp failed" ] || fail "gnuplot failing: $err"
no_trace out.png
cp d-csv.png kept.png
expect_status 5 env GNUPLOT=false "$plot" -o kept.png density.csv
cmp -s d-csv.png kept.png || fail "kept.png changed by a failed plot"
finish
