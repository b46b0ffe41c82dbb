#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Version 2 of the format: the hand-made v2.trace (every piece version 2
# adds) and its binary twin v2.atr round-trip exactly, stat adds it up
# (vmm, pmem windows, discards), discards survive the binary decoder's
# batches, so do requests (request.trace, request.atr, and many), writers keep version 1 for version 1 traces, and replay
# refuses a pmem device with status 2 and says which strategy will take it.
. "${top_srcdir:-.}/tests/lib.sh"
dir=$top_srcdir/tests/trace/traces
v2=$dir/v2.trace

expect_status 0 "$ANONSIM" trace check "$v2" "$dir/v2.atr"
[ "$out" = "$v2: ok, 7 events
$dir/v2.atr: ok, 7 events" ] || fail "check: $out"

# text -> binary is v2.atr byte for byte; binary -> text is the canonical text
cat >"$tmp/canonical.trace" <<'TRACE'
anonsim-trace 2
page-size 4096
memory 1048576
device vda size=65536 backing=tiny-image
device pmem0 size=131072 backing=dax-image pmem=262144
device pmem1 size=4096 backing=dax-small pmem=262176
readahead-kb 128
vmm qemu 7.2
recorder hand-made
events
0 mmap 0x7f0000000000 1048576 0
10 read vda 0 8192 100
20 touch 7 2
30 discard 100 2
40 discard 0 16
50 touch 0 1
60 footprint cache:pmem0 3
TRACE
expect_status 0 "$ANONSIM" trace convert "$v2" "$tmp/a.atr"
cmp -s "$tmp/a.atr" "$dir/v2.atr" || fail "text -> binary differs from v2.atr"
# round_trip FROM CANONICAL: FROM through every encoding and back to text is CANONICAL
round_trip() {
	for via in b.atr c.trace.gz d.atr.gz e.trace; do
		expect_status 0 "$ANONSIM" trace convert "$1" "$tmp/$via"
		expect_status 0 "$ANONSIM" trace convert "$tmp/$via" "$tmp/back-$via.trace"
		cmp -s "$tmp/back-$via.trace" "$2" || fail "round trip of ${1##*/} through $via differs"
	done
}
round_trip "$tmp/a.atr" "$tmp/canonical.trace"
# the binary version field and the record of kind 11
[ "$(od -An -tx1 -j8 -N4 "$dir/v2.atr" | tr -d ' ')" = 02000000 ] || fail "binary version field"

expect_status 0 "$ANONSIM" trace stat "$dir/v2.atr"
cat >"$tmp/want" <<WANT
file: $dir/v2.atr
encoding: binary
version: 2
page-size: 4096
memory: 1048576 bytes, 256 pages
device 0: vda size=65536 backing=tiny-image
device 1: pmem0 size=131072 backing=dax-image pmem=262144
device 2: pmem1 size=4096 backing=dax-small pmem=262176
vmm: qemu 7.2
readahead-kb: 128
recorder: hand-made
notes: 0
events: 7
  read: 1
  write: 0
  touch: 2
  free: 0
  mmap: 1
  munmap: 0
  mapdup: 0
  phase: 0
  footprint: 1
  host: 0
  discard: 2
  request: 0
read vda: 1 requests, 8192 bytes, 2 pages, 2 distinct pages
written vda: 0 requests, 0 bytes
read pmem0: 0 requests, 0 bytes, 0 pages, 0 distinct pages
written pmem0: 0 requests, 0 bytes
read pmem1: 0 requests, 0 bytes, 0 pages, 0 distinct pages
written pmem1: 0 requests, 0 bytes
read: 1 requests, 8192 bytes, 2 pages, 2 distinct pages
written: 0 requests, 0 bytes
touched: 3 pages
freed: 0 pages
discarded: 18 pages
requests: 0, 0 bytes, 0 reads their parts
host reads: 1 (requests and the reads outside them)
duration: 60 us (first event at 0, last at 60)
WANT
[ "$out" = "$(cat "$tmp/want")" ] || fail "stat: $out"
expect_status 0 "$ANONSIM" trace stat --csv "$v2"
[ "$out" = "trace,encoding,version,page_size_bytes,memory_bytes,devices,readahead_kb,events,read_events,write_events,touch_events,free_events,mmap_events,munmap_events,mapdup_events,phase_events,footprint_events,host_events,discard_events,request_events,read_requests,read_bytes,read_pages,read_distinct_pages,write_requests,write_bytes,touched_pages,freed_pages,discarded_pages,vmm,vmm_version,request_bytes,request_parts,host_reads,first_event_s,last_event_s,duration_s
$v2,text,2,4096,1048576,3,128,7,1,0,2,0,1,0,0,0,1,0,2,0,1,8192,2,2,0,0,3,0,18,qemu,7.2,0,0,1,0,0.00006,0.00006" ] ||
	fail "stat --csv: $out"

# Discards among many records: the binary decoder's batches (runs,
# shapes, wide deltas) give back exactly what was written.
{
	sed -n '/^anonsim-trace/,/^events/p' "$tmp/canonical.trace"
	awk 'BEGIN {
		print "0 mmap 0x7f0000000000 1048576 0"
		t = 0
		for (i = 0; i < 600; i++) {
			t += (i % 97 == 0) ? 5000000000 : 3
			p = (i * 37) % 250
			# %.0f: times past 2^31 print whole in every awk
			if (i % 3 == 0) printf "%.0f touch %d %d\n", t, p, 1 + i % 6
			else if (i % 3 == 1 || i % 50 < 10) printf "%.0f discard %d %d\n", t, p, 1 + i % 6
			else printf "%.0f free %d 1\n", t, p
		}
	}'
} >"$tmp/many.trace"
expect_status 0 "$ANONSIM" trace convert "$tmp/many.trace" "$tmp/many.atr"
expect_status 0 "$ANONSIM" trace convert "$tmp/many.atr" "$tmp/many-back.trace"
cmp -s "$tmp/many.trace" "$tmp/many-back.trace" || fail "600 events with discards: round trip differs"
expect_status 0 "$ANONSIM" trace stat --csv "$tmp/many.atr"
[ "$(echo "$out" | tail -1 | cut -d, -f19)" = "$(grep -c ' discard ' "$tmp/many.trace")" ] ||
	fail "discards counted in many.atr: $out"

# Requests: request.trace's binary twin is request.atr byte for byte, both
# round-trip, and stat counts the host's reads: a request is one, its
# parts none.
req=$dir/request.trace
expect_status 0 "$ANONSIM" trace convert "$req" "$tmp/req.atr"
cmp -s "$tmp/req.atr" "$dir/request.atr" || fail "text -> binary differs from request.atr"
grep -v '^#' "$req" | sed 's/[[:space:]]*#.*//; s/[[:space:]][[:space:]]*/ /g' >"$tmp/req-canonical.trace"
round_trip "$dir/request.atr" "$tmp/req-canonical.trace"
# the record of kind 12: kind byte, delta 10, device 0, offset 0, length 16384
[ "$(od -An -tx1 -j193 -N22 "$dir/request.atr" | tr -d ' \n')" = 0c0a0000000000000000000000000040000000000000 ] ||
	fail "request record: $(od -An -tx1 -j193 -N22 "$dir/request.atr")"
expect_status 0 "$ANONSIM" trace stat "$dir/request.atr"
[ "$(echo "$out" | sed -n '/^  request:/p; /^read:/,/^host reads/p')" = "  request: 3
read: 7 requests, 29184 bytes, 8 pages, 8 distinct pages
written: 0 requests, 0 bytes
touched: 1 pages
freed: 0 pages
discarded: 0 pages
requests: 3, 25088 bytes, 5 reads their parts
host reads: 5 (requests and the reads outside them)" ] || fail "stat of request.atr: $out"
expect_status 0 "$ANONSIM" trace stat --json "$req"
case $out in *'"request_bytes": 25088,'*'"request_parts": 5,'*'"host_reads": 5,'*) ;;
*) fail "stat --json of request.trace: $out" ;; esac

# Requests among many records, with wide deltas: the binary decoder's
# batches give back exactly what was written; 150 requests of 1-4 parts.
{
	sed -n '/^anonsim-trace/,/^events/p' "$tmp/req-canonical.trace"
	awk 'BEGIN {
		print "0 mmap 0x7f0000000000 1048576 0"
		t = 0
		for (i = 0; i < 150; i++) {
			t += (i % 23 == 0) ? 5000000000 : 7
			n = 1 + i % 4
			printf "%.0f request vda %d %d\n", t, i * 4096, n * 4096
			for (k = 0; k < n; k++)
				printf "%.0f read vda %d 4096 %d\n", t, (i + k) * 4096, (i * 7 + k * 3) % 250
			if (i % 5 == 0) printf "%.0f touch %d 1\n", t, i % 250
		}
	}'
} >"$tmp/many-req.trace"
expect_status 0 "$ANONSIM" trace convert "$tmp/many-req.trace" "$tmp/many-req.atr"
expect_status 0 "$ANONSIM" trace convert "$tmp/many-req.atr" "$tmp/many-req-back.trace"
cmp -s "$tmp/many-req.trace" "$tmp/many-req-back.trace" || fail "150 requests: round trip differs"
expect_status 0 "$ANONSIM" trace stat "$tmp/many-req.atr"
case $out in *"requests: 150, 1527808 bytes, 373 reads their parts"*) ;;
*) fail "stat of 150 requests: $out" ;; esac

# version 1 stays version 1: the writer keeps the header's version
expect_status 0 "$ANONSIM" trace convert "$dir/small.trace" "$tmp/small.atr"
[ "$(od -An -tx1 -j8 -N4 "$tmp/small.atr" | tr -d ' ')" = 01000000 ] || fail "small.atr is not version 1"
expect_status 0 "$ANONSIM" trace stat "$tmp/small.atr"
case $out in *vmm*|*discard*) fail "version 1 stat shows version 2 lines: $out" ;; esac

# replay refuses a pmem device before anything runs
for s in read-copy punch; do
	expect_status 2 "$ANONSIM" replay -s "$s" "$v2"
	[ "$err" = "anonsim replay: $v2: device pmem0 is mapped into guest physical memory (pmem, DAX): the guest's reads of it are page faults no recorder sees; record the guest with the image as a disk (cache=writeback) and replay that with -s dax" ] ||
		fail "replay -s $s of a pmem trace: $err"
done
finish
