#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A broken simulator is reported as one: tests/model/anonsim_fault is anonsim with
# the fault hooks of src/model/fault.h, which break one piece of the model's
# state (ANONSIM_FAULT=KIND:EVENT:PAGE, before event EVENT of instance 0).
# replay --check must then name the strategy, the instance, the page, what
# disagrees, the trace, the event index and its text, and exit 3; selftest
# must name the check and exit 3.  Every message below is worked out from
# the traces' events (tests/model/replay/basic.trace, swapread.trace):
#
# basic.trace, 256 pages: event 0 "0 mmap 0x60000000 1048576 0" maps all
# of memory (map counts 1; the counts need an indirect and a leaf table
# page), event 1 "10 read ubda 0 12288 100" reads image pages 0-2 into
# pages 100-102 (devanon: the image is mapped over them, the memory file
# unmapped there, counts 0), event 2 "20 touch 7 2" makes tmpfs pages 7, 8,
# event 3 "30 free 101 1" (devanon: maps the memory file back at page 101,
# count 1; read-copy: nothing).
. "${top_srcdir:-.}/tests/lib.sh"
fault=$top_builddir/tests/model/anonsim_fault
[ -x "$fault" ] || { fail "$fault was not built"; finish; }
basic=$top_srcdir/tests/model/replay/basic.trace
swapread=$top_srcdir/tests/model/replay/swapread.trace
devanon="-s devanon --variant fixed"

# expect_failure FAULT MESSAGE ARGS...: replay under FAULT exits 3 with
# "anonsim replay: MESSAGE" as the last line of stderr
expect_failure() {
	f=$1 line=$2
	shift 2
	expect_status 3 env ANONSIM_FAULT="$f" "$fault" replay -q "$@"
	[ "$(printf '%s\n' "$err" | tail -n 1)" = "anonsim replay: $line" ] ||
		fail "$f: got: $err; expected: anonsim replay: $line"
}

# devanon before event 3: pages 7 and 8 are tmpfs, the instance counts 3
expect_failure tmpfs-count:3:0 \
	"devanon/fixed: simulator failure: instance 0, page 0: tmpfs page counts disagree with page states; at $basic: event 3 (30 free 101 1)" \
	--check --recount-every 1 $devanon "$basic"
# the host counts 3 tmpfs pages where the instances hold 2: found by the
# recount after event 3, or, at the default recount every 1024 events, by
# the one after the last event
expect_failure host-total:3:0 \
	"devanon/fixed: simulator failure: instance 0, page 0: host totals disagree with the pages; at $basic: event 3 (30 free 101 1)" \
	--check --recount-every 1 $devanon "$basic"
expect_failure host-total:3:0 \
	"devanon/fixed: simulator failure: instance 0, page 0: host totals disagree with the pages; at $basic: after the last event" \
	--check $devanon "$basic"
# read-copy: image pages 0-2 are cached (3); page 0 loses its flag
expect_failure cache-page:3:0 \
	"read-copy: simulator failure: instance 0, page 0: page cache count disagrees with its pages; at $basic: event 3 (30 free 101 1)" \
	--check --recount-every 1 -s read-copy "$basic"
# page 101 counted once more: event 3 maps it (1), the kernel code says 2
expect_failure map-count:3:101 \
	"devanon/fixed: simulator failure: instance 0, page 101: map count differs from the mappings; at $basic: event 3 (30 free 101 1)" \
	--check $devanon "$basic"
# --check forgets page 100's mapping: event 1 unmaps it
expect_failure shadow:1:100 \
	"devanon/fixed: simulator failure: instance 0, page 100: munmap of a page not mapped; at $basic: event 1 (10 read ubda 0 12288 100)" \
	--check $devanon "$basic"
# the indirect table page of event 0's counts cannot be had
expect_failure alloc:0:0 \
	"devanon/fixed: simulator failure: instance 0, page 0: mapping the memory file failed; at $basic: event 0 (0 mmap 0x60000000 1048576 0)" \
	--check $devanon "$basic"
# swapread.trace on a 4-page host under 2.4 (worked out in its header):
# page 0 goes to swap at event 2; event 3 reads into it, so swaps it in,
# and its swap entry is gone
expect_failure swap-entry:3:0 \
	"read-copy: simulator failure: instance 0, page 0: swapped page without a swap entry; at $swapread: event 3 (30 read ubda 20480 4096 0)" \
	--check -s read-copy --policy 2.4 --host-mem 16384 --swap 32768 "$swapread"

# selftest: the differential run's file, emptied by its teardown, gets one
# more mapping or swap entry; index 300 lies outside the run's windows
# (0-255, then from 912 on i386, 400 on x86_64) and needs an indirect and
# a leaf table page; below 16 an entry is direct
for c in "core-map:0:0|index 0: map count 1, model 0" \
	 "core-swap:0:5|index 5: swap entry 999999, model 0" \
	 "core-swap:0:300|swap table: 2 pages (held 2), model 0" \
	 "core-map:0:300|map table: 2 pages (held 2), model 0"; do
	f=${c%%|*} line=${c#*|}
	expect_status 3 env ANONSIM_FAULT="$f" "$fault" selftest
	[ "$out" = "ok i386 boundaries
FAIL i386 differential: $line
ok i386 anon posted
ok i386 anon fixed
ok x86_64 boundaries
FAIL x86_64 differential: $line
ok x86_64 anon posted
ok x86_64 anon fixed" ] || fail "selftest under $f: $out"
	[ "$err" = "anonsim selftest: 2 checks failed" ] || fail "selftest under $f: $err"
done

# anonsim itself has no hooks: the same fault changes nothing
expect_status 0 env ANONSIM_FAULT=tmpfs-count:3:0 "$ANONSIM" replay -q --check \
	--recount-every 1 $devanon "$basic"
if grep -q ANONSIM_FAULT "$ANONSIM"; then
	fail "$ANONSIM holds the fault hooks"
fi
# a fault spelled wrong is refused, not ignored
expect_status 1 env ANONSIM_FAULT=tmpfs-count:3 "$fault" replay -q "$basic"
[ "$err" = "ANONSIM_FAULT=tmpfs-count:3: not KIND:EVENT:PAGE" ] || fail "bad fault: $err"
finish
