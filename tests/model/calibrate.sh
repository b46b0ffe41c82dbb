#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The calibration corpus and its report (bench/calibrate.sh), without the
# live runs: the generated traces are what bench/calibrate/shapes.sh
# writes, byte for byte; the corpus parses, names each configuration once,
# splits by trace (no trace in both halves) and holds runnable traces; the
# report of hand-made runs gives the medians, densities and half summaries
# worked out below.
. "${top_srcdir:-.}/tests/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "needs jq"; exit 77; }
corpus=$top_srcdir/bench/calibrate/corpus

# the generated traces, made again
sh "$top_srcdir/bench/calibrate/shapes.sh" "$tmp/shapes" >/dev/null ||
	fail "shapes.sh failed"
for f in "$tmp/shapes"/*.trace.gz; do
	cmp -s "$f" "$top_srcdir/traces/calibration/$(basename "$f")" ||
		fail "traces/calibration/$(basename "$f") is not what shapes.sh writes"
done
[ "$(ls "$tmp/shapes" | wc -l)" -eq "$(ls "$top_srcdir/traces/calibration" | wc -l)" ] ||
	fail "traces/calibration holds other traces than shapes.sh writes"

# the corpus
sed -e 's/#.*//' "$corpus" | awk 'NF' >"$tmp/lines"
awk 'NF != 7 { print "line with " NF " fields: " $0 }
	$2 != "fit" && $2 != "held" { print "half " $2 ": " $0 }
	$5 !~ /^[0-9]+$/ || $5 < 3 { print "instances " $5 ": " $0 }
	seen[$1]++ == 1 { print "name twice: " $1 }
	{ half[$3] = half[$3] " " $2 }
	END { for (t in half) if (half[t] ~ /fit/ && half[t] ~ /held/) print "trace in both halves: " t }' \
	"$tmp/lines" >"$tmp/bad"
[ ! -s "$tmp/bad" ] || fail "bench/calibrate/corpus: $(cat "$tmp/bad")"
[ "$(grep -c ' fit ' "$tmp/lines")" -ge 12 ] && [ "$(grep -c ' held ' "$tmp/lines")" -ge 12 ] ||
	fail "fewer than 12 configurations in a half"
for t in $(awk '{ print $3 }' "$tmp/lines" | sort -u); do
	"$ANONSIM" trace check "$top_srcdir/$t" >/dev/null 2>"$tmp/err" ||
		fail "corpus trace $t: $(cat "$tmp/err")"
done

# the report, on runs made by hand: a trace whose last event is at 3 s,
# 3 instances one after another (ends at 3, 6 and 9 s) on a host where
# the model never swaps (3 pages of cache, shared)
cat >"$tmp/t.trace" <<'EOF'
anonsim-trace 1
page-size 4096
memory 1048576
device ubda size=1048576 backing=calibrate-test
readahead-kb 0
events
0 mmap 0x60000000 1048576 0
1000000 read ubda 0 12288 100
2000000 touch 7 2
3000000 phase work-done
EOF
printf 'a fit %s read-copy 3 64M -\nb held %s read-copy 3 64M -\n' "$tmp/t.trace" "$tmp/t.trace" \
	>"$tmp/corpus"
run() {	# DIR K FIRST SWAP CACHE: a run as anonsim live --json writes it
	mkdir -p "$tmp/res/$1"
	printf '{"results":[{"first_swap_out_s":%s,"overhead_mib":0.25,"readahead_kb":0,"points":[{"point":"1:work-done","swap_pages":0,"cache_pages":0},{"point":"end","swap_pages":%s,"cache_pages":%s}]}]}\n' \
		"$3" "$4" "$5" >"$tmp/res/$1/run-$2.json"
}
# a: first swap-out at 7.5 s (2 instances ended), never (3), 4.5 s (1)
run a 1 7.5 100 10
run a 2 null 0 20
run a 3 4.5 300 30
# b: as the model, never swapped
run b 1 null 0 3
run b 2 null 0 3
run b 3 null 0 3
expect_status 0 sh "$top_srcdir/bench/calibrate.sh" --report-only -c "$tmp/corpus" -o "$tmp/res" -p "$tmp/plots"
[ "$(sed -n 2p "$tmp/res/summary.csv")" = "a,fit,$tmp/t.trace,read-copy,3,64M,-,3,2,3,100,0,20,3,7.5,never,no,1,3,0,300,10,30,256K,0K" ] ||
	fail "summary row a: $(sed -n 2p "$tmp/res/summary.csv")"
[ "$(sed -n 3p "$tmp/res/summary.csv")" = "b,held,$tmp/t.trace,read-copy,3,64M,-,3,3,3,0,0,3,3,never,never,no,3,3,0,0,3,3,256K,0K" ] ||
	fail "summary row b: $(sed -n 3p "$tmp/res/summary.csv")"

# the overhead split: a run that gives its anonymous part is taken as it
# is; one from before the split (overhead_mib alone) takes it from the
# configuration's probe, out of its fixed part: 0.25 MiB, 0.0625 of it
# anonymous, is 192K and 64K
printf '{"results":[{"overhead_mib":0.125,"overhead_anon_mib":0.0625}]}\n' >"$tmp/res/b/probe.json"
expect_status 0 sh "$top_srcdir/bench/calibrate.sh" --report-only -c "$tmp/corpus" -o "$tmp/res" -p "$tmp/plots"
expect_match "$(sed -n 2p "$tmp/res/summary.csv")" '^a,fit,.*,256K,0K$'
expect_match "$(sed -n 3p "$tmp/res/summary.csv")" '^b,held,.*,192K,64K$'
sed 's/"overhead_mib":0.25/"overhead_mib":0.125,"overhead_anon_mib":0.125/' "$tmp/res/a/run-1.json" \
	>"$tmp/res/a/run-1.new" && mv "$tmp/res/a/run-1.new" "$tmp/res/a/run-1.json"
expect_status 0 sh "$top_srcdir/bench/calibrate.sh" --report-only -c "$tmp/corpus" -o "$tmp/res" -p "$tmp/plots"
expect_match "$(sed -n 2p "$tmp/res/summary.csv")" '^a,fit,.*,128K,128K$'
rm -f "$tmp/res/b/probe.json"
# each run against the mean of the other two: a's swap 100 against 150, 0
# against 200, 300 against 50 (none within 25 %); its cache 10 against 25,
# 20 against 20, 30 against 15 (one); b's all equal
expect_match "$out" '^fit: 1 configurations: density equal 0 \(0 %\), off by more than one 0; swap within 25 % 0 \(0 %\), cache within 25 % 0 \(0 %\); swapped in the kernel 0 \(0 %\); the kernel against itself, every run: density equal 0, swap within 25 % 0, cache within 25 % 0; a run against the mean of its others: 3 runs, swap within 25 % 0 \(0 %\), cache 1 \(33 %\)$'
expect_match "$out" '^held: 1 configurations: density equal 1 \(100 %\), off by more than one 0; swap within 25 % 1 \(100 %\), cache within 25 % 1 \(100 %\); swapped in the kernel 0 \(0 %\); the kernel against itself, every run: density equal 1, swap within 25 % 1, cache within 25 % 1; a run against the mean of its others: 3 runs, swap within 25 % 3 \(100 %\), cache 3 \(100 %\)$'
expect_match "$out" '^\| a \| fit \| 2 \(1-3\) \| 3 \| 100 \(0-300\) \| 0 \| 20 \(10-30\) \| 3 \| 7.5 \| never \|$'
# the plot of real against model density, where gnuplot is
if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
	[ "$(head -c 4 "$tmp/plots/calibration.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
		fail "no PNG in $tmp/plots/calibration.png"
	grep -q '<svg' "$tmp/plots/calibration.svg" || fail "no SVG in $tmp/plots/calibration.svg"
fi

# staggered: with 1 s between starts the instances end at 3, 4 and 5 s
printf 'c fit %s read-copy 3 64M 1\n' "$tmp/t.trace" >"$tmp/corpus"
run c 1 4.5 100 10
rm -f "$tmp/res/c/run-2.json" "$tmp/res/c/run-3.json"
expect_status 0 sh "$top_srcdir/bench/calibrate.sh" --report-only -c "$tmp/corpus" -o "$tmp/res" -p "$tmp/plots"
expect_match "$(sed -n 2p "$tmp/res/summary.csv")" '^c,fit,.*,read-copy,3,64M,1,1,2,3,'

# refusals
expect_status 1 sh "$top_srcdir/bench/calibrate.sh" --runs 0
expect_match "$err" "^calibrate: --runs: a number from 1, not '0'\$"
printf 'x fit %s read-copy 3 64M\n' "$tmp/t.trace" >"$tmp/corpus"
expect_status 1 sh "$top_srcdir/bench/calibrate.sh" --report-only -c "$tmp/corpus" -o "$tmp/res" -p "$tmp/plots"
expect_match "$err" ':1: 7 fields expected$'
finish
