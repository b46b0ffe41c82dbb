#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/reclaim_trace.sh --from: a kernel trace read into the model's
# columns without root.  The hand-made trace below holds two reclaims,
# three swap writes, two samples of the lists (--lists), three folios
# added and two removed (--folios), two flushes of the statistics and a
# burst of 700 swap writes; what each line of kernel.csv, lists.csv,
# folios.csv, folios-deleted.csv, flushes.csv and latency.txt must say is
# worked out beside it.
. "${top_srcdir:-.}/tests/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "needs jq"; exit 77; }
script=$top_srcdir/bench/reclaim_trace.sh
export ANONSIM
d=$tmp/run
mkdir "$d"

# task 100, a page fault's reclaim (full): 100 swap-backed pages scanned at
# priority 2, 20 freed, 50 written; then 32 file pages at priority 0, 12
# freed; 8 file pages deactivated; 32 reclaimed in all, from 10.000000 to
# 10.000264 s: 264 us for 132 pages, 2.00 us a page, and it wrote 50.
# task 200, readahead's (GFP_NOFS): 40 swap-backed pages scanned at
# priority 12, none freed; 10 file pages freed.  Writes to the disk: three
# bios, 200, 100 and 400 us from submission to completion (the read and the
# write that never completes count for nothing), and the burst's two
# requests below, 1000 and 3072: median 400, 10 % below 100 (the first
# of five), 90 % below 3072 (the fifth).
{
	echo '# tracer: nop'
	t='         anonsim-100   [000] .....'
	u='         anonsim-200   [001] .....'
	# --lists' first sample, the machine's lists before the run: the base
	echo "              sh-300     [001] ..... 9.800000: tracing_mark_write: anonsim_lists: inactive_anon=1000 active_anon=500 inactive_file=20000 active_file=30000 shmem=700 workingset_refault_file=5000 workingset_activate_file=4000 workingset_restore_file=100 pgactivate=7000 pgdeactivate=9000"
	echo "$t 10.000000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE"
	echo "$t 10.000010: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=100 nr_reclaimed=20 nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 nr_ref_keep=0 nr_unmap_fail=0 priority=2 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC"
	i=0
	while [ $i -lt 50 ]; do
		echo "$t 10.000012: mm_vmscan_write_folio: page=0000000000000000 pfn=0x$((4096 + i)) flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC"
		i=$((i + 1))
	done
	echo "$t 10.000015: block_bio_queue: 254,0 W 1000 + 8 [anonsim]"
	echo "$t 10.000016: block_bio_queue: 254,0 WS 2000 + 8 [anonsim]"
	echo "$t 10.000017: block_bio_queue: 254,0 W 3000 + 8 [anonsim]"
	echo "$t 10.000018: block_bio_queue: 254,0 W 4000 + 8 [anonsim]"
	echo "$t 10.000019: block_bio_queue: 254,0 R 5000 + 8 [anonsim]"
	echo "$t 10.000020: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=12 nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 nr_ref_keep=0 nr_unmap_fail=0 priority=0 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC"
	echo "$t 10.000030: mm_vmscan_lru_shrink_active: nid=0 nr_taken=8 nr_active=0 nr_deactivated=8 nr_referenced=0 priority=0 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC"
	echo "          <idle>-0       [001] .Ns1. 10.000116: block_rq_complete: 254,0 WS () 2000 + 8 be,0,4 [0]"
	echo "          <idle>-0       [001] .Ns1. 10.000119: block_rq_complete: 254,0 R () 5000 + 8 be,0,4 [0]"
	echo "          <idle>-0       [001] .Ns1. 10.000215: block_rq_complete: 254,0 W () 1000 + 8 be,0,4 [0]"
	echo "$t 10.000264: mm_vmscan_memcg_reclaim_end: nr_reclaimed=32"
	echo "          <idle>-0       [001] .Ns1. 10.000417: block_rq_complete: 254,0 W () 3000 + 8 be,0,4 [0]"
	# --folios: two folios anonsim adds (order 2 at page 16, order 0 at
	# page 7), and one another task adds, left out
	echo "$t 10.400000: mm_filemap_add_to_page_cache: dev 254:1 ino 2a pfn=0x1234 ofs=65536 order=2"
	echo "$u 10.400100: mm_filemap_add_to_page_cache: dev 254:1 ino 2a pfn=0x1238 ofs=28672 order=0"
	echo "            cat-77     [000] ..... 10.400200: mm_filemap_add_to_page_cache: dev 254:1 ino 3b pfn=0x2000 ofs=0 order=0"
	# and one folio anonsim's reclaim removes (order 0 at page 7), one
	# another task's does, left out
	echo "$t 10.450000: mm_filemap_delete_from_page_cache: dev 254:1 ino 2a pfn=0x1238 ofs=28672 order=0"
	echo "            cat-77     [000] ..... 10.450100: mm_filemap_delete_from_page_cache: dev 254:1 ino 3b pfn=0x2000 ofs=0 order=0"
	# --lists' samples between the two reclaims: each less the base (the
	# active file list below it in the second); the counters in the first
	# (30 refaults, 25 of them activated, 4 restored; 12 pages activated
	# and 40 deactivated), none in the second (a trace from before them)
	echo "              sh-300     [001] ..... 10.500000: tracing_mark_write: anonsim_lists: inactive_anon=1300 active_anon=502 inactive_file=20040 active_file=30009 shmem=990 workingset_refault_file=5030 workingset_activate_file=4025 workingset_restore_file=104 pgactivate=7012 pgdeactivate=9040"
	echo "              sh-300     [000] ..... 10.600001: tracing_mark_write: anonsim_lists: inactive_anon=1280 active_anon=500 inactive_file=20061 active_file=29995 shmem=970"
	# two flushes of the statistics: the 2 s flusher's, and one another
	# task forced (a read of memory.stat)
	echo "    kworker/u8:0-7959    [001] ..... 10.700000: memcg_flush_stats: memcg_id=1 stats_updates=192 force=1 needs_flush=1"
	echo "             cat-78      [000] ..... 10.800000: memcg_flush_stats: memcg_id=5 stats_updates=0 force=0 needs_flush=0"
	echo "$u 11.000000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS|__GFP_HIGHMEM|__GFP_MOVABLE"
	echo "$u 11.000010: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=40 nr_reclaimed=0 nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 nr_ref_keep=0 nr_unmap_fail=0 priority=12 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC"
	echo "$u 11.000020: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=10 nr_reclaimed=10 nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 nr_ref_keep=0 nr_unmap_fail=0 priority=12 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC"
	echo "$u 11.000050: mm_vmscan_memcg_reclaim_end: nr_reclaimed=10"
	# a burst of 700 one-page swap writes queued 1 us apart, completed in
	# two requests of 350 pages, 2422 us apart: the device's pace 3.46 us
	# a page; each request completes the bio that began it, 1000 and 3072
	# us after it was queued
	i=0
	while [ $i -lt 700 ]; do
		printf '%s 12.%06d: block_bio_queue: 254,0 W %d + 8 [anonsim]\n' "$t" "$i" $((100000 + 8 * i))
		i=$((i + 1))
	done
	echo "          <idle>-0       [001] .Ns1. 12.001000: block_rq_complete: 254,0 W () 100000 + 2800 be,0,4 [0]"
	# a burst of one write, 2.3 ms after the first burst's last, before
	# that burst's second request completes (and itself never completing):
	# the first burst's pace still counts its last completion
	echo "$t 12.003000: block_bio_queue: 254,0 W 200000 + 8 [anonsim]"
	echo "          <idle>-0       [001] .Ns1. 12.003422: block_rq_complete: 254,0 W () 102800 + 2800 be,0,4 [0]"
} >"$d/trace.txt"
# the run's settings and end as anonsim live writes them (the window the
# trace recorded, 0); 1 MiB of memory
# is more than the trace ever holds (tmpfs 10 pages, page cache 8): the
# model never reclaims
cat >"$d/live.json" <<JSON
{"inputs": {"host_mem_mib": 1, "swap_mib": 1, "stagger_s": null, "instances": 1,
  "strategies": ["read-copy"]},
 "traces": [{"name": "tests/model/replay/writeback.trace"}],
 "results": [{"overhead_mib": 0, "readahead_kb": 0, "first_swap_out_s": 1.5,
   "points": [{"point": "end", "swap_pages": 5, "cache_pages": 7}]}]}
JSON

expect_status 0 sh "$script" --from "$d"
cat >"$tmp/kernel.want" <<'CSV'
strategy,time_s,kind,nr_pages,priority,reclaimed,anon_scanned,anon_written,anon_freed,file_freed,deactivated,tmpfs_pages,inactive_file_pages,active_file_pages,active_anon_pages
kernel,10.000000,full,,0,32,100,50,20,12,8,,,,
kernel,11.000000,nofs,,12,10,40,0,0,10,0,,,,
CSV
cmp -s "$tmp/kernel.want" "$d/kernel.csv" || fail "kernel.csv: $(diff "$tmp/kernel.want" "$d/kernel.csv")"
cat >"$tmp/lists.want" <<'CSV'
time_s,shmem_pages,inactive_anon_pages,active_anon_pages,inactive_file_pages,active_file_pages,workingset_refault_file,workingset_activate_file,workingset_restore_file,pgactivate,pgdeactivate
9.800000,0,0,0,0,0,0,0,0,0,0
10.500000,290,300,2,40,9,30,25,4,12,40
10.600001,270,280,0,61,-5,,,,,
CSV
cmp -s "$tmp/lists.want" "$d/lists.csv" || fail "lists.csv: $(diff "$tmp/lists.want" "$d/lists.csv")"
cat >"$tmp/folios.want" <<'CSV'
time_s,ino,index,order
10.400000,2a,16,2
10.400100,2a,7,0
CSV
cmp -s "$tmp/folios.want" "$d/folios.csv" || fail "folios.csv: $(diff "$tmp/folios.want" "$d/folios.csv")"
cat >"$tmp/deleted.want" <<'CSV'
time_s,ino,index,order
10.450000,2a,7,0
CSV
cmp -s "$tmp/deleted.want" "$d/folios-deleted.csv" ||
	fail "folios-deleted.csv: $(diff "$tmp/deleted.want" "$d/folios-deleted.csv")"
cat >"$tmp/flushes.want" <<'CSV'
time_s,task,stats_updates,force
10.700000,kworker/u8:0,192,1
10.800000,cat,0,0
CSV
cmp -s "$tmp/flushes.want" "$d/flushes.csv" || fail "flushes.csv: $(diff "$tmp/flushes.want" "$d/flushes.csv")"
cat >"$tmp/latency.want" <<'TXT'
swap writes, submitted to completed: median 400.00 us, 10 % below 100.00, 90 % below 3072.00 (5)
reclaims that write 50 pages or more, time a page scanned: median 2.00 us, 10 % below 2.00, 90 % below 2.00 (1)
the swap device's pace in bursts of 700 pages or more written, a page: median 3.46 us, 10 % below 3.46, 90 % below 3.46 (1)
TXT
cmp -s "$tmp/latency.want" "$d/latency.txt" || fail "latency.txt: $(diff "$tmp/latency.want" "$d/latency.txt")"
[ "$(wc -l <"$d/model.csv")" -eq 1 ] || fail "model.csv: the model reclaimed in 1 MiB: $(cat "$d/model.csv")"
printf '%s\n' "$out" | grep -qx 'full   kernel        1       1        100        50        20        12         8' ||
	fail "no full kernel line of 1 call, 100 scanned, 50 written, 20 freed, 12 and 8 in: $out"
expect_match "$out" '^end: swap used 5 \(model 0\), page cache 7 \(model 8\), first swap-out at 1\.5 s \(model never\)$'
[ ! -e "$d/model.json" ] || fail "model.json left in $d"

# errors: each names what to fix, exit 1, and writes nothing
expect_status 1 sh "$script" --from "$tmp/none"
expect_match "$err" "$tmp/none: no trace.txt and live.json"
expect_status 1 sh "$script" --from "$d" -m 1M
expect_match "$err" 'no -m or TRACE with it'
expect_status 1 sh "$script" --bogus
expect_match "$err" "unknown option '--bogus'"
expect_status 1 sh "$script" "$top_srcdir/tests/model/replay/writeback.trace"
expect_match "$err" '-m SIZE is required'
expect_status 0 sh "$script" --help
expect_match "$out" '--from DIR'
finish
