#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/qemu_validate.sh on one real QEMU guest (TCG) under cache=writeback
# and cache=none: the guest recorded under writeback, booted again under
# each, its RAM (the memfd's resident pages) within 5 % and the image's
# page cache within 2 % of the model's replay of the recording at each
# phase and at the end (under none the page cache exactly 0, the model's
# 0); every point of the two runs there, and nothing the runs made left
# on the host (memory and freezer cgroups, QEMU processes, the scratch
# directory), after a run and after a SIGTERM in the middle of one, which
# ends it with status 143.  Then --density: three writeback guests in a
# memory cgroup of 640 MiB with a swap file (two fit, as the model says),
# --resume (and --resume refused on a recording made without --kaslr
# when given it), and a SIGTERM once the swap file is on (swapped off,
# removed).
# Skips (77) where bench/qemu_validate.sh does (not root, no QEMU, no
# kernel package, the cgroup v1 controllers missing); with
# QEMU_REQUIRED=1 a skip is a failure.  QEMU_KERNEL_CACHE keeps the
# guest's kernel package between runs, as for tests/record/qemu_smoke.sh.
. "${top_srcdir:-.}/tests/lib.sh"

as_root || qemu_skip "needs root (memory cgroups, the freezer) and not ANONSIM_TESTS_UNPRIVILEGED=1"

ANONSIM_TOOLS=$top_builddir/src/record
export ANONSIM_TOOLS
script=$top_srcdir/bench/qemu_validate.sh
cache=${QEMU_KERNEL_CACHE:-$tmp/kernel}
mkdir -p "$cache" "$tmp/scratch"
memcg=/sys/fs/cgroup/memory freezer=/sys/fs/cgroup/freezer

# left_over PID: what a run of process PID left: its cgroups (which cannot
# be removed while a QEMU process of theirs is alive) and the content of
# its scratch directory
left_over() {
	ls -d "$memcg/anonsim-validate.$1" "$freezer/anonsim-density.$1".* "$tmp/scratch"/* 2>/dev/null
}

# usage errors, before anything runs
expect_status 1 sh "$script" -s writeback,floppy
expect_match "$err" "--strategies 'floppy': expected writeback, none, dax or reporting"
expect_status 1 sh "$script" -g 9
expect_match "$err" "--guests '9': expected a number of guests from 1 to 8"
expect_status 1 sh "$script" --density 1X
expect_match "$err" "--density '1X': a size such as 1G"
expect_status 1 sh "$script" --density 1G --max 13
expect_match "$err" "--max '13': expected a number of guests from 2 to 12"
expect_status 0 sh "$script" --help
expect_match "$out" '^Exit status: 0 every point within its tolerance \(--density: every$'

# ---- one guest, writeback and none ------------------------------------------------------
sh "$script" -s writeback,none -g 1 --file 8M -d "$tmp/scratch" --kernel-cache "$cache" \
	-o "$tmp/res" >"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!
wait "$pid"
st=$?
case $st in
77) qemu_skip "$(grep SKIP "$tmp/run.err")" ;;
0) ;;
*) fail "qemu_validate.sh exited $st: $(tail -n 5 "$tmp/run.err")"; cat "$tmp/run.out" >&2 ;;
esac
[ -f "$tmp/res/points.csv" ] || { fail "no points.csv"; finish; }
# every point there, each within its tolerance
expect_match "$(awk -F, 'NR > 1 { printf "%s/%s/%s/%s=%s ", $1, $2, $3, $4, $9 }' "$tmp/res/points.csv")" \
	'^writeback/1/1/boot-done=ok writeback/1/1/read-done=ok writeback/1/1/work-done=ok writeback/1/1/end=ok none/1/1/boot-done=ok none/1/1/read-done=ok none/1/1/work-done=ok none/1/1/end=ok $'
# the guest recorded, as every guest booted, without address randomisation
expect_match "$(gzip -dc "$tmp/res/recording.trace.gz" | grep -c '^note qemu: .* -append .* nokaslr$')" '^1$'
# the tolerances, recomputed: RAM 5 %, cache 2 %
bad=$(awk -F, 'NR > 1 {
	dr = $5 - $6; if (dr < 0) dr = -dr; dc = $7 - $8; if (dc < 0) dc = -dc
	if (dr * 20 > $6 || dc * 50 > $8) print $1, $4, $5, $6, $7, $8 }' "$tmp/res/points.csv")
[ -z "$bad" ] || fail "points beyond tolerance: $bad"
# under none no page cache, real or model; under writeback at least the
# 8 MiB file read (2048 pages) by read-done, at most the image (6144)
expect_match "$(awk -F, '$1 == "none" { printf "%s/%s ", $7, $8 }' "$tmp/res/points.csv")" '^(0/0 ){4}$'
expect_match "$(awk -F, '$1 == "writeback" && $4 == "end" { print ($7 >= 2048 && $7 <= 6144) ? "in" : $7 }' "$tmp/res/points.csv")" '^in$'
expect_match "$(cat "$tmp/run.out")" '^0 point\(s\) beyond tolerance; [0-9]+ s$'
expect_match "$(cat "$tmp/run.out")" '^  guest 1 read-done +[0-9]+ +[0-9]+ +0 +0$'
[ -f "$tmp/res/recording.trace.gz" ] || fail "the recording was not kept (-o)"
cat "$tmp/run.out"	# real beside model, into the test's log
[ -z "$(left_over "$pid")" ] || fail "left after the run: $(left_over "$pid")"

# ---- the density: three writeback guests in 640 MiB with a 256 MiB swap file -------------
# each about 280 MiB (its RAM, 8 MiB of the file, QEMU's own): two fit,
# the third swaps; the model (the recording cut at work-done) says 2 too
memsw=yes
[ -f "$memcg/memory.memsw.usage_in_bytes" ] || {
	memsw=no; echo "no swap accounting in the memory cgroup: --density not tested"; }
[ $memsw = no ] || {
sh "$script" --density 640M --swap 256M --max 3 -s writeback --file 8M -d "$tmp/scratch" \
	--kernel-cache "$cache" -o "$tmp/dres" >"$tmp/den.out" 2>"$tmp/den.err" &
pid=$!
wait "$pid"
st=$?
[ "$st" -eq 0 ] || fail "qemu_validate.sh --density exited $st: $(tail -n 5 "$tmp/den.err")"
cat "$tmp/den.out"
expect_match "$(sed 1d "$tmp/dres/density.csv" | cut -d, -f1,2,8 | tr '\n' ' ')" '^writeback,1,1 writeback,2,2 writeback,3,3 $'
expect_match "$(awk -F, 'NR > 1 { printf "%s ", ($4 > 0 ? "swap" : "none") }' "$tmp/dres/density.csv")" '^none none swap $'
expect_match "$(cat "$tmp/den.out")" '^  writeback  real 2, model 2: equal$'
expect_match "$(awk -F, 'NR > 1 { print $1 }' "$tmp/dres/density-plot.csv" | sort -u | tr '\n' ' ')" '^writeback-model writeback-real $'
grep -q "$tmp/scratch" /proc/swaps && fail "the swap file is still on: $(cat /proc/swaps)"
[ -z "$(left_over "$pid")" ] || fail "left after the density run: $(left_over "$pid")"
# --resume: the strategy measured already, the model replayed again
expect_status 0 sh "$script" --density 640M --swap 256M --max 3 -s writeback --file 8M \
	-d "$tmp/scratch" --kernel-cache "$cache" -o "$tmp/dres" --resume
expect_match "$err" 'resuming: writeback measured already \(density 2\)'
expect_match "$out" '^  writeback  real 2, model 2: equal$'
# a resume boots the guests as the recorded one booted, or refuses
expect_status 1 sh "$script" --density 640M --swap 256M --max 3 -s writeback --file 8M \
	-d "$tmp/scratch" --kernel-cache "$cache" -o "$tmp/dres" --resume --kaslr
expect_match "$err" 'was made without --kaslr; resume it the same way$'
}

# ---- a SIGTERM in the middle of a run undoes it all ------------------------------------------
sh "$script" -s none -g 1 --file 8M -d "$tmp/scratch" --kernel-cache "$cache" >"$tmp/term.out" 2>"$tmp/term.err" &
pid=$!
# its guest's memory cgroup made: the run under way (recording done)
i=0
while [ ! -d "$memcg/anonsim-validate.$pid" ] && [ "$i" -lt 1200 ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.25
	i=$((i + 1))
done
[ -d "$memcg/anonsim-validate.$pid" ] || fail "no run under way to stop: $(tail -n 3 "$tmp/term.err")"
sleep 2
kill -TERM "$pid"
wait "$pid"
st=$?
[ "$st" -eq 143 ] || fail "after SIGTERM it exited $st, expected 143"
[ -z "$(left_over "$pid")" ] || fail "left after SIGTERM: $(left_over "$pid")"

# and in a density run, once its swap file is on: swapped off and gone
[ $memsw = no ] || {
sh "$script" --density 640M --max 3 -s none --file 8M -d "$tmp/scratch" --kernel-cache "$cache" \
	>"$tmp/term2.out" 2>"$tmp/term2.err" &
pid=$!
i=0
# (the recording first, then up to 15 minutes for another run's swap file to go)
while ! grep -q "$tmp/scratch" /proc/swaps && [ "$i" -lt 4800 ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.25
	i=$((i + 1))
done
grep -q "$tmp/scratch" /proc/swaps || fail "no swap file on to undo: $(tail -n 3 "$tmp/term2.err")"
sleep 2
kill -TERM "$pid"
wait "$pid"
st=$?
[ "$st" -eq 143 ] || fail "a density run after SIGTERM exited $st, expected 143"
grep -q "$tmp/scratch" /proc/swaps && fail "after SIGTERM the swap file is still on: $(cat /proc/swaps)"
[ -z "$(left_over "$pid")" ] || fail "left after SIGTERM in a density run: $(left_over "$pid")"
}
finish
