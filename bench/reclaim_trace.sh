#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# reclaim_trace.sh - one pressured live run with the kernel's vmscan
# tracepoints on, each memory cgroup reclaim summed as the model's
# --reclaim-log writes its own, and the two set side by side.
set -u
usage() {
	cat <<USAGE
usage: bench/reclaim_trace.sh [options] -m SIZE TRACE
       bench/reclaim_trace.sh --from DIR

Runs "anonsim live --json" on TRACE in a memory cgroup of SIZE with the
kernel's vmscan tracepoints on (memcg reclaim begin and end, shrink of the
inactive and active lists, folio writes) and /proc/vmstat read before and
after, then "anonsim replay --reclaim-log" with the same instances,
memory, swap, strategy, overhead (fixed and anonymous) and readahead window as the live run, without
the trace's host events, as live runs it.  Writes
into OUT:
  live.json     the live run
  trace.txt     the kernel's trace (tens of MB)
  vmstat.diff   what changed in /proc/vmstat over the run
  kernel.csv    each kernel reclaim, in the model's columns
  model.csv     each model reclaim (anonsim replay --reclaim-log)
  flushes.csv   each flush of the memory cgroups' statistics, which
                reclaim's choices read, on kernel.csv's clock (where the
                kernel has the memcg_flush_stats tracepoint: 6.10 on)
and prints, per kind of reclaim (nofs: readahead's charge, which may not
write tmpfs; full: any other), the kernel's counts beside the model's:
calls, calls down to priority 0, swap-backed pages scanned, written, freed,
page cache freed, deactivated.  The tracing settings are put back after
the run, also on INT, TERM and HUP; tracefs is unmounted if this mounted it.

  -m SIZE           the memory cgroup (required)
  -n N              instances (default: 1)
  -s STRATEGY       (default: read-copy)
      --swap SIZE   swap file (default: 256M)
      --stagger S   seconds between instances' starts
      --read-zeros  reads leave the sparse disk files' zeros (anonsim(1))
      --latency     also trace the block layer's writes (block_bio_queue,
                    block_rq_complete) and write OUT/latency.txt: how long
                    a write takes from its submission to its completion,
                    reclaim's time per page scanned in the reclaims that
                    write, and the swap device's pace in bursts of 700
                    pages or more (the figures behind the model's swap
                    cache, src/model/host.c)
      --lists       also write OUT/lists.csv: the lists (inactive and
                    active anon and file, shmem) and the counters of file
                    refaults (workingset_refault_file, _activate_file,
                    _restore_file) and of (de)activations (pgactivate,
                    pgdeactivate) every 0.1 s, written into
                    the trace as it runs (trace_marker), so that their
                    times are the reclaims' (the model's lists after each
                    reclaim are model.csv's last three columns).  Read from
                    /proc/vmstat, the machine's, as changes since the run
                    began: a read of the cgroup's memory.stat flushes its
                    statistics, which reclaim reads, and changes the run
                    (keep the machine quiet)
      --folios      also trace the page cache's additions and removals
                    (mm_filemap_add_to_page_cache, _delete_from_page_cache)
                    and write OUT/folios.csv: each folio anonsim's tasks
                    add, its file's inode, first page and order
                    (readahead's folio sizes), and OUT/folios-deleted.csv:
                    each they remove, in the same columns (their reclaims'
                    evictions; the largest traces grow by a few MB a
                    second)
  -o, --output DIR  (default: a new directory under \${TMPDIR:-/tmp})
  -h, --help        this text
Environment: ANONSIM (default: ./anonsim of the build tree), JQ (jq).
Exit status: 0 done; 1 usage error; 5 a run failed, or another pressured
run is under way (the tracepoints would count its reclaims); 77 cannot run here
(not root, not Linux, no tracefs with the vmscan events, no jq).
USAGE
}
top=$(cd "$(dirname "$0")/.." && pwd)
anonsim=${ANONSIM:-$top/anonsim} jq=${JQ:-jq}
mem= n=1 strat=read-copy swap=256M stagger= zeros= latency= lists= folios= out= trace= from=
while [ $# -gt 0 ]; do
	case $1 in
	-m|-n|-s|--swap|--stagger|-o|--output|--from)
		[ $# -ge 2 ] || { echo "reclaim_trace: $1 needs a value" >&2; exit 1; } ;;
	esac
	case $1 in
	-m) mem=$2; shift 2 ;;
	-n) n=$2; shift 2 ;;
	-s) strat=$2; shift 2 ;;
	--swap) swap=$2; shift 2 ;;
	--stagger) stagger=$2; shift 2 ;;
	--read-zeros) zeros=--read-zeros; shift ;;
	--latency) latency=1; shift ;;
	--lists) lists=1; shift ;;
	--folios) folios=1; shift ;;
	--from) from=$2; shift 2 ;;
	-o|--output) out=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "reclaim_trace: unknown option '$1' (see --help)" >&2; exit 1 ;;
	*) [ -z "$trace" ] || { echo "reclaim_trace: one trace only" >&2; exit 1; }
	   trace=$1; shift ;;
	esac
done
skip() { echo "reclaim_trace: SKIP: $*" >&2; exit 77; }
command -v "$jq" >/dev/null 2>&1 || skip "needs jq"
[ -x "$anonsim" ] || { echo "reclaim_trace: $anonsim: not built (make, or ANONSIM)" >&2; exit 1; }

# --lists: the machine's lists in pages and its counters of file refaults
# and (de)activations, into the trace every 0.1 s while the run lasts.
# Not the cgroup's memory.stat: reading it flushes the
# cgroup's statistics (mem_cgroup_flush_stats() in memcg1_stat_format()),
# which reclaim otherwise sees as the 2 s flusher left them; runs whose
# memory.stat was read every 0.1 s deactivated the page cache where runs
# left alone swapped (README of bench/results/reclaim-trace).
# /proc/vmstat's node counters are read without a flush; lists.csv holds
# their changes since the first sample, taken before the run starts.
sample_lists() {
	while :; do
		awk '$1 ~ /^(nr_(inactive_anon|active_anon|inactive_file|active_file|shmem)|workingset_(refault|activate|restore)_file|pg(de)?activate)$/ {
			k = $1; sub(/^nr_/, "", k); s = s " " k "=" $2 }
			END { if (s != "") print "anonsim_lists:" s }' \
			/proc/vmstat >"$T/trace_marker" 2>/dev/null
		sleep 0.1
	done
}

# the run: tracing on, the live run, tracing put back as it was
run_live() {
	[ -n "$mem" ] || { echo "reclaim_trace: -m SIZE is required (see --help)" >&2; exit 1; }
	[ -n "$trace" ] || { echo "reclaim_trace: no trace given (see --help)" >&2; exit 1; }
	[ -r "$trace" ] || { echo "reclaim_trace: $trace: cannot read it" >&2; exit 1; }
	[ "$(uname -s)" = Linux ] || skip "needs a Linux host"
	[ "$(id -u)" = 0 ] || skip "needs root (tracefs, a memory cgroup, a swap file)"

	# the tracepoints see every cgroup's reclaim: no other pressured run may
	# be under way (each holds the swap lock, src/live/cgroup.c)
	lock=/run/lock/anonsim-swap
	[ -w /run/lock ] || lock=/tmp/anonsim-swap.lock
	if [ -e "$lock" ] && ! flock -n "$lock" true; then
		echo "reclaim_trace: another pressured run holds $lock: its reclaims would be traced too; run this after it" >&2
		exit 5
	fi

	T=/sys/kernel/tracing
	mounted=
	if [ ! -d "$T/events" ]; then
		mount -t tracefs nodev "$T" 2>/dev/null || skip "cannot mount tracefs at $T"
		mounted=1
	fi
	events="vmscan/mm_vmscan_memcg_reclaim_begin vmscan/mm_vmscan_memcg_reclaim_end
		vmscan/mm_vmscan_lru_shrink_inactive vmscan/mm_vmscan_lru_shrink_active
		vmscan/mm_vmscan_write_folio"
	[ -z "$latency" ] || events="$events block/block_bio_queue block/block_rq_complete"
	[ -z "$folios" ] || events="$events filemap/mm_filemap_add_to_page_cache
		filemap/mm_filemap_delete_from_page_cache"
	# the statistics flushes reclaim's decisions wait for (Linux 6.10 on)
	[ ! -w "$T/events/memcg/memcg_flush_stats/enable" ] ||
		events="$events memcg/memcg_flush_stats"
	for e in $events; do
		[ -w "$T/events/$e/enable" ] || {
			[ -z "$mounted" ] || umount "$T"
			skip "no tracepoint $e in $T"
		}
	done
	if [ -z "$out" ]; then
		out=$(mktemp -d "${TMPDIR:-/tmp}/reclaim-trace.XXXXXX") || exit 5
	else
		mkdir -p "$out" || exit 5
	fi

	# the settings as they were, put back however the run ends
	# a buffer never used reads "7 (expanded: 1408)": the size tracing
	# would take is the one to put back
	saved_on=$(cat "$T/tracing_on")
	saved_kb=$(sed 's/.*(expanded: \([0-9]*\))/\1/' "$T/buffer_size_kb")
	saved_events=
	for e in $events; do saved_events="$saved_events $(cat "$T/events/$e/enable")"; done
	restored= sampler= live=
	restore() {
		[ -z "$restored" ] || return 0
		restored=1
		[ -z "$sampler" ] || kill "$sampler" 2>/dev/null
		# a run in the background ignores the terminal's INT: end it, and
		# let it take down its cgroup and swap file, before tracing goes
		[ -z "$live" ] || { kill "$live" 2>/dev/null; wait "$live" 2>/dev/null; }
		echo 0 >"$T/tracing_on"
		set -- $saved_events
		for e in $events; do echo "$1" >"$T/events/$e/enable"; shift; done
		echo "$saved_kb" >"$T/buffer_size_kb"
		echo >"$T/trace"
		echo "$saved_on" >"$T/tracing_on"
		[ -z "$mounted" ] || umount "$T"
	}
	trap restore EXIT
	trap 'restore; exit 130' INT
	trap 'restore; exit 143' TERM
	trap 'restore; exit 129' HUP

	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo 65536 >"$T/buffer_size_kb"	# per CPU: a few hundred bytes a reclaim
	for e in $events; do echo 1 >"$T/events/$e/enable"; done
	set -- -s "$strat" -n "$n" -m "$mem" --swap "$swap"
	[ -z "$stagger" ] || set -- "$@" --stagger "$stagger"
	cat /proc/vmstat >"$out/vmstat.before"
	echo 1 >"$T/tracing_on"
	if [ -n "$lists" ]; then
		sample_lists &
		sampler=$!
		sleep 0.2	# the first sample, the lists before the run
	fi
	"$anonsim" live --json -o "$out/live.json" $zeros "$@" "$trace" &
	live=$!
	wait "$live" || { live=; echo "reclaim_trace: the live run failed" >&2; exit 5; }
	live=
	[ -z "$sampler" ] || { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; sampler=; }
	echo 0 >"$T/tracing_on"
	cat /proc/vmstat >"$out/vmstat.after"
	cat "$T/trace" >"$out/trace.txt"
	grep -q 'LOST EVENTS' "$out/trace.txt" &&
		echo "reclaim_trace: warning: the trace buffer overflowed: the kernel's counts are short" >&2
	restore
	awk 'NR == FNR { b[$1] = $2; next } $2 != b[$1] { print $1, $2 - b[$1] }' \
		"$out/vmstat.before" "$out/vmstat.after" >"$out/vmstat.diff"
}

if [ -n "$from" ]; then
	[ -z "$mem$trace" ] || {
		echo "reclaim_trace: --from takes the run's settings from its live.json: no -m or TRACE with it" >&2
		exit 1; }
	[ -r "$from/trace.txt" ] && [ -r "$from/live.json" ] || {
		echo "reclaim_trace: $from: no trace.txt and live.json (a directory a run of this script wrote)" >&2
		exit 1; }
	out=$from
	settings=$("$jq" -r '.inputs | [.strategies[0], .instances, .host_mem_mib, .swap_mib,
		(.stagger_s // "")] | @tsv' "$out/live.json") || {
		echo "reclaim_trace: $out/live.json: not the JSON of anonsim live" >&2; exit 1; }
	IFS='	' read -r strat n mem swap stagger <<EOF_SETTINGS
$settings
EOF_SETTINGS
	mem=${mem}M swap=${swap}M
	trace=$("$jq" -r '.traces[0].name' "$out/live.json")
	[ -r "$trace" ] || [ ! -r "$top/$trace" ] || trace=$top/$trace
	[ -r "$trace" ] || { echo "reclaim_trace: $trace (from $out/live.json): cannot read it" >&2; exit 1; }
	! grep -q 'block_rq_complete:' "$out/trace.txt" || latency=1
else
	run_live
fi
set -- -s "$strat" -n "$n" -m "$mem" --swap "$swap"
[ -z "$stagger" ] || set -- "$@" --stagger "$stagger"

# a trace line's task, time and KEY=value fields, for both readings below
trace_fields='
function pid_of(line) { match(line, /-[0-9]+ +\[/); return substr(line, RSTART + 1, RLENGTH - 3) + 0 }
function val(line, key,   v) { v = line; if (!sub(".*" key "=", "", v)) return 0; return v + 0 }
function when(line,   t, a, n) { t = line; sub(/: (block_|mm_vmscan|memcg_).*/, "", t); n = split(t, a, " "); return a[n] + 0 }
'

# each reclaim of the kernel: from its begin to its end on the same task
awk -v OFS=, "$trace_fields"'
BEGIN { print "strategy,time_s,kind,nr_pages,priority,reclaimed,anon_scanned,anon_written,anon_freed,file_freed,deactivated,tmpfs_pages,inactive_file_pages,active_file_pages,active_anon_pages" }
/mm_vmscan_memcg_reclaim_begin:/ {
	p = pid_of($0); on[p] = 1; t0[p] = when($0)
	kind[p] = ($0 ~ /__GFP_FS|GFP_KERNEL|GFP_USER|GFP_HIGHUSER/ && $0 !~ /GFP_NOFS/) ? "full" : "nofs"
	prio[p] = 12; as[p] = aw[p] = af[p] = ff[p] = d[p] = 0
	next
}
/mm_vmscan_lru_shrink_inactive:/ {
	p = pid_of($0); if (!on[p]) next
	if (val($0, "priority") < prio[p]) prio[p] = val($0, "priority")
	if ($0 ~ /RECLAIM_WB_ANON/) { as[p] += val($0, "nr_scanned"); af[p] += val($0, "nr_reclaimed") }
	else ff[p] += val($0, "nr_reclaimed")
	next
}
/mm_vmscan_lru_shrink_active:/ {
	p = pid_of($0); if (on[p] && $0 ~ /RECLAIM_WB_FILE/) d[p] += val($0, "nr_deactivated")
	next
}
/mm_vmscan_write_folio:/ { p = pid_of($0); if (on[p]) aw[p]++; next }
/mm_vmscan_memcg_reclaim_end:/ {
	p = pid_of($0); if (!on[p]) next
	on[p] = 0
	print "kernel", sprintf("%.6f", t0[p]), kind[p], "", prio[p], val($0, "nr_reclaimed"),
		as[p], aw[p], af[p], ff[p], d[p], "", "", "", ""
}' "$out/trace.txt" >"$out/kernel.csv"

# the lists sampled into the trace (--lists), on the reclaims' clock
if grep -q 'anonsim_lists:' "$out/trace.txt"; then
	awk -v OFS=, 'BEGIN { print "time_s,shmem_pages,inactive_anon_pages,active_anon_pages,inactive_file_pages," \
		"active_file_pages,workingset_refault_file,workingset_activate_file,workingset_restore_file," \
		"pgactivate,pgdeactivate" }
	/tracing_mark_write: anonsim_lists:/ {
		t = $0; sub(/: tracing_mark_write:.*/, "", t); n = split(t, a, " ")
		delete v
		for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2]
		if (!based) { based = 1; for (k in v) b[k] = v[k] }	# the first: before the run
		print sprintf("%.6f", a[n]), v["shmem"] - b["shmem"], v["inactive_anon"] - b["inactive_anon"],
			v["active_anon"] - b["active_anon"], v["inactive_file"] - b["inactive_file"],
			v["active_file"] - b["active_file"], d("workingset_refault_file"),
			d("workingset_activate_file"), d("workingset_restore_file"), d("pgactivate"),
			d("pgdeactivate")
	}
	# a counter since the first sample; empty where the trace has none (--lists before them)
	function d(k) { return (k in v) && (k in b) ? v[k] - b[k] : "" }' "$out/trace.txt" >"$out/lists.csv"
fi

# the memory cgroup statistics' flushes, where the kernel has the tracepoint
if grep -q 'memcg_flush_stats:' "$out/trace.txt"; then
	awk -v OFS=, "$trace_fields"'BEGIN { print "time_s,task,stats_updates,force" }
	/memcg_flush_stats:/ { task = $1; sub(/-[0-9]+$/, "", task)
		print sprintf("%.6f", when($0)), task, val($0, "stats_updates"), val($0, "force") }' \
		"$out/trace.txt" >"$out/flushes.csv"
fi

# the folios anonsim's tasks added to the page cache and removed from it
# (--folios): folios.csv and folios-deleted.csv
folio_events() {	# EVENT OUTPUT
	grep -q "$1:" "$out/trace.txt" || return 0
	awk -v OFS=, -v ev="$1" 'BEGIN { print "time_s,ino,index,order" }
	$0 ~ "^ *anonsim-[0-9]+ .*" ev ":" {
		t = $0; sub(": " ev ":.*", "", t); n = split(t, a, " ")
		ino = $0; sub(/.* ino /, "", ino); sub(/ .*/, "", ino)
		ofs = $0; sub(/.* ofs=/, "", ofs); sub(/ .*/, "", ofs)
		order = $0; sub(/.* order=/, "", order)
		print sprintf("%.6f", a[n]), ino, int(ofs / 4096), order + 0
	}' "$out/trace.txt" >"$2"
}
folio_events mm_filemap_add_to_page_cache "$out/folios.csv"
folio_events mm_filemap_delete_from_page_cache "$out/folios-deleted.csv"

# the model with the run's memory, swap, overhead and readahead window
# (a run from before live split its probe gives no anonymous part: 0)
overhead=$("$jq" -r '.results[0].overhead_mib * 1024 | floor' "$out/live.json")
overhead_anon=$("$jq" -r '(.results[0].overhead_anon_mib // 0) * 1024 | floor' "$out/live.json")
readahead=$("$jq" -r '.results[0].readahead_kb' "$out/live.json")
"$anonsim" replay -q --json --no-host-events --reclaim-log "$out/model.csv" --overhead "${overhead}K" \
	--overhead-anon "${overhead_anon}K" --readahead "$readahead" "$@" "$trace" \
	>"$out/model.json" || { echo "reclaim_trace: the model's replay failed" >&2; exit 5; }

# per kind, the kernel's and the model's sums
summary() {	# CSV
	awk -F, 'NR > 1 { k = $3; n[k]++; if ($5 == 0) z[k]++; s[k] += $7; w[k] += $8
		f[k] += $9; c[k] += $10; d[k] += $11 }
	END { for (k in n) printf "%s %d %d %d %d %d %d %d\n", k, n[k], z[k], s[k], w[k], f[k], c[k], d[k] }' "$1"
}
summary "$out/kernel.csv" >"$out/kernel.sum"
summary "$out/model.csv" >"$out/model.sum"
printf '%-6s %-7s %7s %7s %10s %9s %9s %9s %9s\n' kind side calls "prio 0" "tmpfs scan" written \
	"tmpfs freed" "cache freed" deactivated
for k in nofs full; do
	for side in kernel model; do
		awk -v k="$k" -v s="$side" '$1 == k { printf "%-6s %-7s %7d %7d %10d %9d %9d %9d %9d\n",
			k, s, $2, $3, $4, $5, $6, $7, $8; found = 1 }
			END { if (!found) printf "%-6s %-7s %7d\n", k, s, 0 }' "$out/$side.sum"
	done
done
if [ -r "$out/vmstat.diff" ]; then
	pswpout=$(awk '$1 == "pswpout" { print $2 }' "$out/vmstat.diff")
	echo "kernel: ${pswpout:-0} pages written to swap with I/O (pswpout; the writes above without I/O held zeros)"
fi
# the end: the kernel's, as the live run measured it; the model's, as built now
model_end=$("$jq" -r '.results[0] | "\(.final_swap_mib * 256 | floor) \(.final_cache_mib * 256 | floor) \(.first_swap_out_s // "never")"' "$out/model.json")
rm -f "$out/model.json"
set -- $model_end
"$jq" -r --arg s "$1" --arg c "$2" --arg f "$3" '.results[0] | "end: swap used \(.points[-1].swap_pages) (model \($s)), page cache \(.points[-1].cache_pages) (model \($c)), first swap-out at \(.first_swap_out_s // "never") s (model \($f))"' "$out/live.json"

# the writes' latency, and reclaim's time a page scanned where it writes
if [ -n "$latency" ]; then
	awk "$trace_fields"'
# a request completes the bio that began it: device and first sector
/block_bio_queue: [0-9,]+ [A-Z]*W/ { split($0, x, "block_bio_queue: "); split(x[2], f, " ")
	queued[f[1] " " f[3]] = when($0); next }
/block_rq_complete: [0-9,]+ [A-Z]*W/ { split($0, x, "block_rq_complete: "); split(x[2], f, " ")
	k = f[1] " " f[4]; if (k in queued) { print "write", (when($0) - queued[k]) * 1e6; delete queued[k] }
	next }
/mm_vmscan_memcg_reclaim_begin:/ { p = pid_of($0); t0[p] = when($0); sc[p] = w[p] = 0; next }
/mm_vmscan_lru_shrink_inactive:/ { sc[pid_of($0)] += val($0, "nr_scanned"); next }
/mm_vmscan_write_folio:/ { w[pid_of($0)]++; next }
/mm_vmscan_memcg_reclaim_end:/ { p = pid_of($0)
	if ((p in t0) && w[p] >= 50) print "scan", (when($0) - t0[p]) * 1e6 / sc[p]
	delete t0[p] }' "$out/trace.txt" >"$out/latency.raw"
	# the swap device's pace: the swap-out writes (from the first
	# write_folio on) in bursts queued less than 2 ms apart; a burst of
	# 700 pages or more outruns the device, whose pace is then the time
	# from the burst's first completion to its last, a page written (a
	# burst's writes may still complete after the next burst has begun)
	awk "$trace_fields"'
/mm_vmscan_write_folio:/ { swapping = 1; next }
/block_bio_queue: [0-9,]+ [A-Z]*W/ && swapping { split($0, x, "block_bio_queue: "); split(x[2], f, " ")
	t = when($0); if (!bn || t - bq > 0.002) bn++
	bq = t; pages[bn] += f[5] / 8; of[f[1] " " f[3]] = bn; next }
/block_rq_complete: [0-9,]+ [A-Z]*W/ { split($0, x, "block_rq_complete: "); split(x[2], f, " ")
	t = when($0)
	for (s = f[4]; s < f[4] + f[6]; s += 8) { k = f[1] " " s
		if (!(k in of)) continue
		b = of[k]; if (!(b in first)) first[b] = t; last[b] = t
		delete of[k] }
	next }
END { for (b = 1; b <= bn; b++) if (pages[b] >= 700 && (b in first))
	print "pace", (last[b] - first[b]) * 1e6 / pages[b] }' "$out/trace.txt" >>"$out/latency.raw"
	lat() {	# KIND WHAT
		awk -v k="$1" '$1 == k { print $2 }' "$out/latency.raw" | sort -n | awk -v what="$2" '
		{ v[NR] = $1 }
		END { if (!NR) { print what ": none"; exit }
			printf "%s: median %.2f us, 10 %% below %.2f, 90 %% below %.2f (%d)\n", what,
				v[int(NR / 2) + 1], v[int(NR * 0.1) + 1], v[int(NR * 0.9) + 1], NR }'
	}
	{ lat write "swap writes, submitted to completed"
	  lat scan "reclaims that write 50 pages or more, time a page scanned"
	  lat pace "the swap device's pace in bursts of 700 pages or more written, a page"; } >"$out/latency.txt"
	rm -f "$out/latency.raw"
	cat "$out/latency.txt"
fi
echo "reclaim_trace: results in $out"
