#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim live under pressure, real beside the model.  Needs root and the
# cgroup v1 memory controller; the cgroups and swap files are gone
# afterwards, also after a signal.
#
# Bounds, and why (README, "Under pressure", has the figures):
# - 4 instances of the 64M boot in 160 MiB fit (run --fast: no reclaim
#   that reads the clock happens): neither swaps; reclaim takes page cache
#   only, which ends within 5 % of the model's (the model charges the
#   per-instance overhead a probe measures before the first event; the
#   kernel holds about 0.3 MiB more per instance once pages are in, page
#   tables and xarray nodes: 4 x 0.3 MiB is 3 % of the cache left).
# - 6 instances of the files workload in 240 MiB, at the trace's pace (88 s;
#   bench/calibrate/corpus: files-240-6-rc) do not fit: each instance
#   reads its files again, the kernel brings those refaults back active
#   and swaps tmpfs while page cache is left.  Every page a read fills
#   holds data (live's default; a page of zeros the kernel would swap
#   without I/O).  The kernel's runs of it (README, "Zeros in the reads";
#   the corpus's three; this test's own, some with the test suite or a
#   sanitizer build beside it): first swap-out at 31.8 s once, 33.9 s
#   once and about 41.3 s in the others, as the third instance works (the
#   second ended at 28.277 s, the third ends at 42.971 s): density 2; swap
#   used 16070 to 21579 pages; page cache left 982 to 7215, in two ways
#   (about 1000 to 2400, and 5200 to 7200): the kernel's own runs spread
#   1.34 and 7.3 times.  The model, as live runs it (no UML, so without the trace's
#   host events), with the overhead the corpus's probe measured pinned
#   (--overhead 224K --overhead-anon 288K; the model's end figures move
#   with it: all 512 KiB charged as fixed memory gives page cache 598):
#   41.9 s, density 2, swap 16267 (the kernel's 0.99 to 1.33 times it),
#   page cache 968 (the kernel's 1.01 to 7.5 times it: the model keeps
#   less page cache here than any kernel run; before a reclaim that
#   frees nothing walked again, README "Under pressure", 15684 and 829,
#   the kernel's 1.02 to 1.38 and 1.18 to 8.7 times them, and the lower
#   bound on page cache was 1.1).  Bounds, round the kernel's spread
#   with room beyond it: both first swap-outs while the third instance
#   runs (the same density); swap from 0.75 to 1.5 times the model's;
#   page cache left from 0.9 to 10 times it.  The first
#   swap-out's time is not bounded: the kernel's came 8 s before the
#   model's in one run.  One run in the test suite, outside every bound,
#   is kept out of the spread above: swap 39801 and page cache 24676
#   (first swap-out 40.7 s), 2.4 and 12 times the others' middle; the
#   same test run again at once on the same tree gave 17269 and 1945.
. "${top_srcdir:-.}/tests/lib.sh"

"$ANONSIM" --help 2>&1 | grep -q '^ *live ' || {
	echo "anonsim live is not built here (Linux only)"; exit 77; }
as_root || { echo "needs root: a memory cgroup and a swap file"; exit 77; }
[ -w /sys/fs/cgroup/memory/memory.limit_in_bytes ] || [ -d /sys/fs/cgroup/memory ] || {
	echo "needs the cgroup v1 memory controller at /sys/fs/cgroup/memory"; exit 77; }
[ -f /sys/fs/cgroup/memory/memory.memsw.usage_in_bytes ] || {
	echo "needs swap accounting in the memory cgroup (memory.memsw.*)"; exit 77; }
# the bounds are the kernel's against the model; a sanitizer's shadow
# memory and quarantine, charged to the same cgroup, are neither
[ -z "${SAN_CFLAGS:-}" ] || {
	echo "a sanitizer build: its own memory would count in the cgroup"; exit 77; }
mkdir "$tmp/scratch"
# the host's DAMON contexts: paused for each run; the pause is shared with
# the runs beside it (src/util/damon.h), so a run's end is judged by the
# registry: no run that has ended is left in it, and once no run is, it
# lists nothing and the contexts on before are on again
damon_states() { cat /sys/kernel/mm/damon/admin/kdamonds/*/state 2>/dev/null | tr '\n' ' '; }
damon_registry=/run/lock/anonsim-damon
[ -w /run/lock ] || damon_registry=/tmp/anonsim-damon.lock
damon_on=$(grep -lx on /sys/kernel/mm/damon/admin/kdamonds/*/state 2>/dev/null)
# what a run starting now reports of DAMON: "paused" if a context is on or
# another run holds them paused, else "none"
damon_expect() {
	if grep -qx on /sys/kernel/mm/damon/admin/kdamonds/*/state 2>/dev/null ||
		grep -q '^paused ' "$damon_registry" 2>/dev/null; then
		echo paused
	else
		echo none
	fi
}
# damon_left WHEN: the runs ended have given their pause back
damon_left() {
	for _u in $(awk '$1 == "user" { print $2 }' "$damon_registry" 2>/dev/null); do
		kill -0 "$_u" 2>/dev/null || fail "DAMON $1: ended run $_u still registered"
	done
	grep -q '^user ' "$damon_registry" 2>/dev/null && return 0
	! grep -q '^paused ' "$damon_registry" 2>/dev/null ||
		fail "DAMON $1: no run left, yet $(grep '^paused ' "$damon_registry") listed"
	for _s in $damon_on; do
		[ "$(cat "$_s")" = on ] || fail "DAMON $1: no run left, $_s is $(cat "$_s")"
	done
}
boot="$top_srcdir/traces/debian-boot-64M.trace.gz"

# column VALUE of the row whose point is POINT
col() { awk -F, -v p="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i }
	NR > 1 && $4 == p { print $k[c] }' "$1"; }

# one run at a time has a swap file (src/live/cgroup.c): with its lock
# held elsewhere for 2 s, this run waits for it, says so, and goes on
lock=/run/lock/anonsim-swap
[ -w /run/lock ] || lock=/tmp/anonsim-swap.lock
flock "$lock" sh -c ': >"$1/held"; sleep 2' sh "$tmp" &
holder=$!
i=0
while [ ! -f "$tmp/held" ] && [ $i -lt 9000 ]; do sleep 0.1; i=$((i + 1)); done
expect_status 0 "$ANONSIM" live --fast --csv -s read-copy -n 4 -m 160M --swap 256M \
	-d "$tmp/scratch" "$boot"
wait $holder
expect_match "$err" "^anonsim live: waiting for another run's swap file to go \($lock\)\$"
printf '%s\n' "$out" >"$tmp/four.csv"
[ "$(col "$tmp/four.csv" end swap_pages)/$(col "$tmp/four.csv" end model_swap_pages)" = 0/0 ] ||
	fail "4 instances swapped: real $(col "$tmp/four.csv" end swap_pages), model $(col "$tmp/four.csv" end model_swap_pages)"
[ -z "$(col "$tmp/four.csv" end first_swap_out_s)" ] ||
	fail "4 instances: a real swap-out at $(col "$tmp/four.csv" end first_swap_out_s) s"
[ "$(col "$tmp/four.csv" end tmpfs_pages)" = "$(col "$tmp/four.csv" end model_tmpfs_pages)" ] ||
	fail "4 instances: tmpfs $(col "$tmp/four.csv" end tmpfs_pages), model $(col "$tmp/four.csv" end model_tmpfs_pages)"
real=$(col "$tmp/four.csv" end cache_pages)
model=$(col "$tmp/four.csv" end model_cache_pages)
[ "$real" -lt 12711 ] || fail "4 instances: the cgroup reclaimed no page cache ($real pages)"
awk -v r="$real" -v m="$model" 'BEGIN { d = (m - r) / r; exit !(d <= 0.05 && d >= -0.05) }' ||
	fail "4 instances: page cache $real, model $model: beyond 5 %"

files="$top_srcdir/traces/debian-files-64M.trace.gz"
expect_status 0 "$ANONSIM" live --csv -s read-copy -n 6 -m 240M --swap 256M --overhead 224K --overhead-anon 288K \
	-d "$tmp/scratch" "$files"
printf '%s\n' "$out" >"$tmp/six.csv"
real_first=$(col "$tmp/six.csv" end first_swap_out_s)
model_first=$(col "$tmp/six.csv" end model_first_swap_out_s)
real_swap=$(col "$tmp/six.csv" end swap_pages)
model_swap=$(col "$tmp/six.csv" end model_swap_pages)
real_cache=$(col "$tmp/six.csv" end cache_pages)
model_cache=$(col "$tmp/six.csv" end model_cache_pages)
echo "6 file readers, paced: first swap-out real $real_first s, model $model_first s;" \
	"swap real $real_swap, model $model_swap; cache real $real_cache, model $model_cache pages"
# the second instance ended at 28.277 s of host time, the third ends at 42.971
third() { awk -v t="$1" 'BEGIN { exit !(t != "" && t + 0 > 28.277 && t + 0 <= 42.971) }'; }
third "$real_first" && third "$model_first" ||
	fail "6 file readers: first swap-out real $real_first s, model $model_first s: not both while the third runs"
[ "$model_swap" -gt 0 ] && [ $((4 * real_swap)) -ge $((3 * model_swap)) ] &&
	[ $((2 * real_swap)) -le $((3 * model_swap)) ] ||
	fail "6 file readers: swap used real $real_swap pages, model $model_swap: not 0.75 to 1.5 times it"
[ $((10 * real_cache)) -ge $((9 * model_cache)) ] && [ "$real_cache" -le $((10 * model_cache)) ] ||
	fail "6 file readers: page cache real $real_cache pages, model $model_cache: not 0.9 to 10 times it"

# a signal in the middle: the instances, swap file, cgroup and files go
"$ANONSIM" live -s read-copy -n 6 -m 160M --swap 256M -d "$tmp/scratch" "$boot" >/dev/null 2>&1 &
pid=$!
i=0
# (up to 15 minutes: another run's swap file goes first, src/live/cgroup.c)
while ! grep -q "$tmp/scratch" /proc/swaps && [ $i -lt 9000 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
grep -q "$tmp/scratch" /proc/swaps || fail "the swap file never came on"
case " $(damon_states)" in *" on "*) fail "DAMON still on during a run: $(damon_states)" ;; esac
kill -INT $pid
wait $pid
status=$?
[ $status -eq 130 ] || fail "SIGINT: exit status $status, expected 130"
grep -q "$tmp/scratch" /proc/swaps && fail "the swap file is still on after SIGINT"
damon_left "after SIGINT"
[ -z "$(ls "$tmp/scratch")" ] || fail "scratch files left: $(ls -R "$tmp/scratch")"
# its own cgroup, by its process id: other runs on the host may have theirs
[ ! -d "/sys/fs/cgroup/memory/anonsim-live.$pid" ] ||
	fail "a memory cgroup was left behind: anonsim-live.$pid"

# the JSON under a memory cgroup: two instances of phases.trace in 64 MiB
# with no swap file (tmpfs pages worked out in the trace, the second
# instance adding the first's 5); the cgroup's pages given, nothing judged,
# the overhead the probe measured in each result, in whole pages
if command -v jq >/dev/null; then
	phases=$top_srcdir/tests/live/traces/phases.trace
	expect_status 0 "$ANONSIM" live --json -o "$tmp/cg.json" -s punch -n 2 -m 64M --swap 0 \
		-d "$tmp/scratch" "$phases"
	got=$(jq -c '[.inputs.host_mem_mib, .inputs.swap_mib, .inputs.overhead_mib,
		.inputs.overhead_anon_mib, .inputs.instances,
		(.results[0] | [.within_tolerance, .first_swap_out_s, .model_first_swap_out_s,
		(.points | map([.point, .tmpfs_pages, .model_tmpfs_pages, .swap_pages,
		(.cgroup_pages > 0), .within_tolerance]))])]' "$tmp/cg.json")
	want='[64,0,null,null,2,[null,null,null,[["1:one",3,3,0,true,null],["1:two",4,4,0,true,null],'
	want=$want'["1:three",5,5,0,true,null],["2:one",8,8,0,true,null],["2:two",9,9,0,true,null],'
	want=$want'["2:three",10,10,0,true,null],["end",10,10,0,true,null]]]]'
	[ "$got" = "$want" ] || fail "live --json under -m: $got"
	# of it, anonymous: the pages the process faulted once in the cgroup
	# (what it touched between its fork and joining the cgroup is charged
	# to the parent's), whole pages both
	pages=$(jq '.results[0].overhead_mib * 256' "$tmp/cg.json")
	anon=$(jq '.results[0].overhead_anon_mib * 256' "$tmp/cg.json")
	[ "$pages" -ge 0 ] 2>/dev/null && [ "$anon" -ge 0 ] 2>/dev/null &&
		[ $((pages + anon)) -gt 0 ] || fail "the probe measured $pages pages and $anon anonymous"

	# --probe: the same measure and nothing run, in the same whole pages
	expect_status 0 "$ANONSIM" live --probe --json -o "$tmp/probe.json" -s punch -m 64M --swap 0 \
		-d "$tmp/scratch" "$phases"
	got=$(jq -c '.results[0] | [(.overhead_mib * 256 | floor) == .overhead_mib * 256,
		(.overhead_anon_mib * 256 | floor) == .overhead_anon_mib * 256,
		.overhead_mib + .overhead_anon_mib > 0, .points, .first_swap_out_s]' "$tmp/probe.json")
	[ "$got" = '[true,true,true,[],null]' ] || fail "live --probe --json: $got"
	expect_status 0 "$ANONSIM" live --probe -s punch -m 64M --swap 0 -d "$tmp/scratch" "$phases"
	expect_match "$out" "^$phases: punch, memory cgroup of 64\.0 MiB: an instance holds [0-9]+ KiB and [0-9]+ KiB anonymous before its first event \(--overhead [0-9]+K --overhead-anon [0-9]+K\)\$"

	# paced: two instances of a trace whose last event is at 0.7 s end at
	# 1.4 s of host time, and the run cannot end sooner; --fast does not wait
	{ sed -n '1,/^events$/p' "$phases"; printf '0 mmap 0x60000000 65536 0\n'
	  printf '100 touch 0 2\n700000 touch 2 1\n'; } >"$tmp/slow.trace"
	# DAMON's state as the run begins, and as it ends: a run of the
	# suite beside this one may take or give back its pause in between
	damon_before=$(damon_expect)
	t0=$(date +%s%N)
	expect_status 0 "$ANONSIM" live --json -o "$tmp/paced.json" -s punch -n 2 -m 64M --swap 0 \
		-d "$tmp/scratch" "$tmp/slow.trace"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	damon_after=$(damon_expect)
	[ "$ms" -ge 1400 ] || fail "a paced run of 1.4 s of host time took $ms ms"
	got=$(jq -c '[.inputs.paced, .results[0].points[-1].time_s, .results[0].damon,
		(.results[0].late_max_s | type)]' "$tmp/paced.json")
	[ "$got" = "[true,1.4,\"$damon_before\",\"number\"]" ] ||
		[ "$got" = "[true,1.4,\"$damon_after\",\"number\"]" ] ||
		fail "paced run: $got (DAMON before it: $damon_before, after: $damon_after)"
	damon_left "after a run"
	expect_status 0 "$ANONSIM" live --fast --json -o "$tmp/fast.json" -s punch -n 2 -m 64M --swap 0 \
		-d "$tmp/scratch" "$tmp/slow.trace"
	got=$(jq -c '[.inputs.paced, .results[0].points[-1].tmpfs_pages, .results[0].late_max_s]' "$tmp/fast.json")
	[ "$got" = '[false,6,null]' ] || fail "--fast run: $got"
fi

expect_status 1 "$ANONSIM" live -n 65 "$boot"
expect_match "$err" "live: --instances '65': expected a number from 1 to 64"
finish
