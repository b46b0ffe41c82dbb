#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim sweep: the grid's rows (figures worked out in basic.trace's
# header), the same file from one process, from -j 1, from jobs run by GNU
# parallel and from the Slurm array script run task by task; merge errors.
. "${top_srcdir:-.}/tests/lib.sh"
basic="$top_srcdir/tests/model/replay/basic.trace"
boot="$top_srcdir/traces/debian-boot-64M.trace.gz"
grid="-s read-copy,punch,devanon -m unlimited,160M --swap 64M -n 1,3 --check"

# 2 traces x 2 host sizes x 2 instance counts x 4 strategy runs (devanon:
# fixed and posted) = 32 rows, numbered in order
expect_status 0 "$ANONSIM" sweep -q $grid -o "$tmp/single.csv" "$basic" "$boot"
[ "$(awk -F, 'NR > 1 { n++; if ($1 != n - 1) bad = 1 } END { print n, bad + 0 }' \
	"$tmp/single.csv")" = "32 0" ] || fail "rows are not combinations 0 to 31"
# strategies vary fastest, then instances, host memory, traces
order=$(awk -F, 'NR > 1 && NR < 7 { printf "%s/%s/%s/%s ", $2 ~ /basic/ ? "basic" : "boot", $3, $8, $7 }' \
	"$tmp/single.csv")
[ "$order" = "basic/0/1/read-copy basic/0/1/punch basic/0/1/devanon/fixed basic/0/1/devanon/posted basic/0/3/read-copy " ] ||
	fail "combination order: $order"
# basic.trace, unlimited host, one instance: tmpfs and page cache pages
row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR > 1 && $2 ~ /basic/ && $3 == 0 && $c["instances"] == 1 {
		printf "%s:%s+%s ", $c["strategy"], $c["final_tmpfs_pages"], $c["final_cache_pages"] }' \
	"$tmp/single.csv")
[ "$row" = "read-copy:5+3 punch:2+3 devanon/fixed:2+3 devanon/posted:2+3 " ] ||
	fail "basic.trace rows: $row"
# a row is the replay's own CSV row behind the parameters
"$ANONSIM" replay -q --csv --pages -s punch -m 160M --swap 64M -n 3 --check "$boot" |
	sed -n 2p >"$tmp/replay.row"
awk -F, '$2 ~ /boot/ && $3 == 167772160 && $7 == "punch" && $8 == 3' "$tmp/single.csv" |
	cut -d, -f7- >"$tmp/sweep.row"
cmp -s "$tmp/replay.row" "$tmp/sweep.row" ||
	fail "sweep row differs from replay's: $(cat "$tmp/sweep.row") vs $(cat "$tmp/replay.row")"

expect_status 0 "$ANONSIM" sweep -q -j 1 $grid -o "$tmp/j1.csv" "$basic" "$boot"
cmp -s "$tmp/single.csv" "$tmp/j1.csv" || fail "-j 1 wrote another file than -j 2"

# jobs: every line run by GNU parallel, the parts merged
expect_status 0 "$ANONSIM" sweep --emit-jobs "$tmp/jobs" $grid "$basic" "$boot"
expect_match "$err" "sweep: 32 jobs in .*/jobs.txt"
[ "$(wc -l <"$tmp/jobs/jobs.txt")" -eq 32 ] || fail "jobs.txt: $(wc -l <"$tmp/jobs/jobs.txt") lines"
if command -v parallel >/dev/null 2>&1; then
	parallel --will-cite <"$tmp/jobs/jobs.txt" || fail "a job failed under GNU parallel"
	expect_status 0 "$ANONSIM" sweep --merge -o "$tmp/merged.csv" "$tmp"/jobs/part-*.csv
	cmp -s "$tmp/single.csv" "$tmp/merged.csv" ||
		fail "the merged parts differ from the single-process sweep"
else
	echo "GNU parallel is not installed (Debian package parallel): its run skipped"
fi

# the Slurm array script, task by task
rm -f "$tmp"/jobs/part-*.csv
k=0
while [ $k -lt 32 ]; do
	SLURM_ARRAY_TASK_ID=$k sh "$tmp/jobs/sweep.sbatch" || fail "array task $k failed"
	k=$((k + 1))
done
expect_status 0 "$ANONSIM" sweep --merge -o "$tmp/slurm.csv" "$tmp"/jobs/part-*.csv
cmp -s "$tmp/single.csv" "$tmp/slurm.csv" || fail "the array's parts merge to another file"
expect_status 0 "$ANONSIM" sweep --merge --json -o "$tmp/merged.json" "$tmp"/jobs/part-*.csv
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.results | length' "$tmp/merged.json")" = 32 ] || fail "JSON: not 32 objects"
	[ "$(jq -r '.results[1] | "\(.combo) \(.strategy) \(.final_tmpfs_pages) \(.first_swap_out_s)"' "$tmp/merged.json")" = \
		"1 punch 2 null" ] || fail "JSON row 1: $(jq -c '.results[1]' "$tmp/merged.json")"
	[ "$(jq -r '.command' "$tmp/merged.json")" = sweep ] || fail "JSON: no command"
fi

# parts missing, twice, or of another kind
expect_status 2 "$ANONSIM" sweep --merge "$tmp/jobs/part-000000.csv" "$tmp/jobs/part-000002.csv"
expect_match "$err" "sweep: combination 1 is in no part given"
expect_status 2 "$ANONSIM" sweep --merge "$tmp/jobs/part-000000.csv" "$tmp/jobs/part-000000.csv"
expect_match "$err" "part-000000.csv:3: combination 0 again \(also in .*part-000000.csv:3\)"
expect_status 2 "$ANONSIM" sweep --merge "$basic"
[ "$err" = "anonsim sweep: $basic:1: not a part of a sweep (no identity line: parts are written by anonsim sweep --job)" ] ||
	fail "merge of a trace: $err"

# a part of another sweep (another grid) is refused by name, and so is
# one whose figure is not a number
id=$(sed -n 's/^# anonsim sweep part: identity=\([0-9a-f]*\) combinations=32$/\1/p' \
	"$tmp/jobs/part-000000.csv")
[ -n "$id" ] || fail "no identity line in part-000000.csv: $(head -1 "$tmp/jobs/part-000000.csv")"
expect_status 0 "$ANONSIM" sweep --job 1 -s read-copy,punch,devanon -m unlimited,160M --swap 32M \
	-n 1,3 --check -o "$tmp/other.csv" "$basic" "$boot"
other=$(sed -n 's/^# anonsim sweep part: identity=\([0-9a-f]*\) combinations=32$/\1/p' "$tmp/other.csv")
[ -n "$other" ] && [ "$other" != "$id" ] || fail "another grid, the same identity: $other"
expect_status 2 "$ANONSIM" sweep --merge "$tmp"/jobs/part-000000.csv "$tmp/other.csv"
[ "$err" = "anonsim sweep: $tmp/other.csv:1: a part of another sweep (identity $other, 32 combinations; $tmp/jobs/part-000000.csv has $id, 32)" ] ||
	fail "merge of another sweep's part: $err"
sed 's/^\(1,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,\)[0-9]*/\11x/' \
	"$tmp/jobs/part-000001.csv" >"$tmp/bad-figure.csv"
expect_status 2 "$ANONSIM" sweep --merge "$tmp/jobs/part-000000.csv" "$tmp/bad-figure.csv"
[ "$err" = "anonsim sweep: $tmp/bad-figure.csv:3: final_tmpfs_pages '1x' is not a number" ] ||
	fail "merge of a corrupt figure: $err"

# --emit-jobs into a directory holding another sweep's parts: refused,
# unless told to replace them
cp "$tmp/other.csv" "$tmp/jobs/part-000001.csv"
expect_status 1 "$ANONSIM" sweep --emit-jobs "$tmp/jobs" $grid "$basic" "$boot"
[ "$err" = "anonsim sweep: --emit-jobs $tmp/jobs: part-000001.csv is a part of another sweep: remove it, or give --replace" ] ||
	fail "emit over another sweep's parts: $err"
expect_status 0 "$ANONSIM" sweep --emit-jobs "$tmp/jobs" --replace $grid "$basic" "$boot"
[ ! -e "$tmp/jobs/part-000001.csv" ] || fail "--replace kept another sweep's part"
[ -e "$tmp/jobs/part-000000.csv" ] || fail "--replace removed a part of this sweep"

# a job line runs from any directory
line=$(sed -n 2p "$tmp/jobs/jobs.txt")
(cd / && sh -c "$line") || fail "job line 2 failed when run from /"
[ -s "$tmp/jobs/part-000001.csv" ] || fail "job line 2 run from / wrote no part"

# past Slurm's 1001 array tasks the script runs lines in groups: 64 host
# sizes x 17 swap sizes = 1088 combinations, 2 a task, 544 tasks
mems=$(awk 'BEGIN { for (i = 1; i <= 64; i++) printf "%s%dM", (i > 1 ? "," : ""), i }')
swaps=$(awk 'BEGIN { for (i = 1; i <= 17; i++) printf "%s%dM", (i > 1 ? "," : ""), i }')
expect_status 0 "$ANONSIM" sweep --emit-jobs "$tmp/big" -s read-copy -m "$mems" --swap "$swaps" "$basic"
grep -qx '#SBATCH --array=0-543' "$tmp/big/sweep.sbatch" ||
	fail "sweep.sbatch: $(grep array "$tmp/big/sweep.sbatch")"
(cd / && SLURM_ARRAY_TASK_ID=543 sh "$tmp/big/sweep.sbatch") || fail "array task 543 failed"
[ "$(ls "$tmp/big" | grep -c '^part-')" -eq 2 ] && [ -s "$tmp/big/part-001087.csv" ] ||
	fail "task 543 wrote: $(ls "$tmp/big")"
expect_status 2 "$ANONSIM" sweep --merge "$tmp/none.csv"
expect_match "$err" "none.csv: No such file or directory"

# options
expect_status 1 "$ANONSIM" sweep -m 256M,lots "$basic"
expect_match "$err" "sweep: --host-mem 'lots': expected a size such as 512M"
expect_status 1 "$ANONSIM" sweep -s read-copy,best "$basic"
expect_match "$err" "sweep: --strategy 'best'"
expect_status 1 "$ANONSIM" sweep --job 32 $grid "$basic" "$boot"
expect_match "$err" "sweep: --job 32: the grid has combinations 0 to 31"
expect_status 1 "$ANONSIM" sweep --merge --job 0 "$basic"
expect_match "$err" "exclude one another"
expect_status 1 "$ANONSIM" sweep
expect_match "$err" "sweep: no trace given"
finish
