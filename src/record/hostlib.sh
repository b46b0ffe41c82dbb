# SPDX-License-Identifier: GPL-2.0-only
# hostlib.sh - what a run of real UMLs changes on the host, and its undoing.
# Sourced by the recorder scripts (src/record, bench/density-real.sh); POSIX sh.
#
# A memory cgroup (v1) with or without a limit, a freezer cgroup per UML,
# a swap file, DAMON proactive reclaim paused, scratch files: each is
# registered as it is made, and hl_cleanup undoes them all (kills the UMLs
# first, so swapoff has nothing to read back), on exit and on INT, TERM and
# HUP once hl_traps has run.  hl_cleanup may run more than once.

HL_MEMCG=/sys/fs/cgroup/memory
HL_FREEZER=/sys/fs/cgroup/freezer
hl_memcg=	# the memory cgroup of this run, HL_CGROUP.PID
HL_CGROUP=${HL_CGROUP:-anonsim-density}
hl_freezers=	# freezer cgroups, one per UML
hl_swap=	# the swap file, swapped on
hl_scratch=	# the scratch directory, removed with all it holds
hl_damon=	# the tool that paused DAMON for this shell (hl_damon_pause)
hl_damon_state=	# after hl_damon_pause: none, paused or running
hl_child=	# a long foreground command, killed on a signal
hl_pids=	# every UML started (for their ~/.uml directories)
hl_uml_pidfiles=	# UMLs started under the recorder: files with their pids
hl_cats=	# writers of their preload logs
hl_watchers=	# the console watchers that freeze UMLs at work-done

hl_log() { echo "${HL_NAME:-hostlib}: $*" >&2; }

# Root, Linux, cgroup v1 memory and freezer controllers, UML: else say why
# and exit 77 (the test suite's "skipped").
hl_require() {	# UML-BINARY
	[ "$(uname -s)" = Linux ] || { hl_log "SKIP: needs a Linux host"; exit 77; }
	[ "$(id -u)" = 0 ] || { hl_log "SKIP: needs root (memory cgroup, swap file)"; exit 77; }
	[ -f "$HL_MEMCG/memory.limit_in_bytes" ] && [ -f "$HL_MEMCG/memory.memsw.limit_in_bytes" ] ||
		{ hl_log "SKIP: needs the cgroup v1 memory controller with swap accounting at $HL_MEMCG"; exit 77; }
	[ -f "$HL_FREEZER/freezer.state" ] || [ -d "$HL_FREEZER" ] ||
		{ hl_log "SKIP: needs the cgroup v1 freezer at $HL_FREEZER"; exit 77; }
	command -v "$1" >/dev/null 2>&1 || { hl_log "SKIP: UML binary $1 not found (Debian: user-mode-linux)"; exit 77; }
	command -v setarch >/dev/null 2>&1 || { hl_log "SKIP: setarch (util-linux) not found"; exit 77; }
	command -v mkswap >/dev/null 2>&1 || { hl_log "SKIP: mkswap (util-linux) not found"; exit 77; }
}

hl_traps() {
	trap hl_cleanup EXIT
	trap 'hl_cleanup; trap - EXIT; exit 130' INT
	trap 'hl_cleanup; trap - EXIT; exit 143' TERM
	trap 'hl_cleanup; trap - EXIT; exit 129' HUP
}

# A command run in a freezer cgroup of its own and waited for, so that a
# signal is handled at once and cleanup kills it with every process it
# started (a recording's UML among them).
hl_run() {	# NAME COMMAND...
	hl_freezer_new "$1" || return 1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 126; shift; exec "$@"' sh "$hl_fz" "$@" &
	hl_child=$!
	wait "$hl_child"
	_st=$?
	hl_child=
	return $_st
}

hl_to_bytes() {
	case $1 in
	*[kK]) echo $(( ${1%?} * 1024 )) ;;
	*[mM]) echo $(( ${1%?} * 1048576 )) ;;
	*[gG]) echo $(( ${1%?} * 1073741824 )) ;;
	*[!0-9]*|'') return 1 ;;
	*) echo "$1" ;;
	esac
}

hl_scratch_open() {	# PARENT: a scratch directory on PARENT (not a tmpfs)
	[ "$(stat -f -c %T "$1" 2>/dev/null)" != tmpfs ] ||
		{ hl_log "$1 is a tmpfs: images need a disk filesystem (-d)"; return 1; }
	hl_scratch=$(mktemp -d "$1/anonsim-density.XXXXXX") || { hl_scratch=; return 1; }
}

# The host's DAMON proactive reclaim drops page cache at times of its own
# (a virtual machine may run a context that pages out cold memory): paused
# for a run, shared with the runs beside it (anonsim live, other scripts:
# the last one out switches it on again; src/util/damon.h), registered
# under this shell's pid.  hl_damon_state: none (no context on), paused,
# or running (one could not be paused).
hl_damon_pause() {	# ANONSIM-REC-HOST
	hl_damon_state=$("$1" damon pause $$) || hl_damon_state=running
	hl_damon=$1
	[ "$hl_damon_state" != running ] ||
		hl_log "warning: cannot pause the host's DAMON contexts;" \
		       "the page cache measured may be lower than the run's"
}

hl_damon_resume() {
	[ -z "$hl_damon" ] || "$hl_damon" damon resume $$ || true
	hl_damon=
}

# The memory cgroup: LIMIT bytes, or -1 for none (memory and swap together
# unlimited either way).
hl_memcg_open() {	# LIMIT
	hl_memcg=$HL_MEMCG/$HL_CGROUP.$$
	mkdir "$hl_memcg" || { hl_memcg=; return 1; }
	echo "$1" >"$hl_memcg/memory.limit_in_bytes" ||
		{ hl_log "cannot set $hl_memcg/memory.limit_in_bytes to $1"; return 1; }
}

hl_memcg_read() {	# FILE (under the memory cgroup): its number
	cat "$hl_memcg/$1"
}

# "shmem cache rss swap" of the memory cgroup's memory.stat, in bytes,
# its child cgroups' (one per recorded UML) among them.
hl_memcg_stat() {
	awk '$1 == "total_shmem" { s = $2 } $1 == "total_cache" { c = $2 } $1 == "total_rss" { r = $2 }
	     $1 == "total_swap" { w = $2 } END { print s + 0, c + 0, r + 0, w + 0 }' "$hl_memcg/memory.stat"
}

# A memory cgroup without limit for one UML inside the run's, whose
# figures the run's include: the recorder's host events are this UML's.
hl_memcg_child() {	# NAME: sets hl_child_memcg
	hl_child_memcg=$hl_memcg/$1
	mkdir "$hl_child_memcg" || { hl_child_memcg=; return 1; }
}

# Kill every process of the cgroup DIR (frozen ones die when thawed) and
# wait until it is empty.
hl_group_kill() {	# DIR
	for _try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \
		    21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40; do
		_p=$(cat "$1/cgroup.procs" 2>/dev/null)
		[ -n "$_p" ] || return 0
		kill -9 $_p 2>/dev/null
		[ ! -f "$1/freezer.state" ] || echo THAWED >"$1/freezer.state" 2>/dev/null
		sleep 0.1
	done
	hl_log "warning: processes left in $1: $(cat "$1/cgroup.procs" 2>/dev/null | tr '\n' ' ')"
}

# A freezer cgroup for one UML: hl_fz.
hl_freezer_new() {	# NAME
	hl_fz=$HL_FREEZER/anonsim-density.$$.$1
	mkdir "$hl_fz" || return 1
	hl_freezers="$hl_freezers $hl_fz"
}

hl_freeze() {	# FREEZER-DIR: freeze and wait until frozen
	echo FROZEN >"$1/freezer.state" || return 1
	for _try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ "$(cat "$1/freezer.state")" = FROZEN ] && return 0
		sleep 0.05
	done
	return 1
}

# Start "setarch -R UML ARGS" in the memory cgroup and the freezer FZ,
# standard input from /dev/null, console to CONSOLE, TMPDIR unset (UML's
# memory file in /dev/shm, as in a recording), frozen when it prints
# "anonsim-phase work-done"; sets hl_pid.
hl_uml_start() {	# FZ CONSOLE UML ARGS...
	_fz=$1 _con=$2
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" || exit 126
	       shift 2; exec env -u TMPDIR setarch "$(uname -m)" -R "$@"' \
		sh "$hl_memcg" "$_fz" "$@" </dev/null >"$_con" 2>&1 &
	hl_pid=$!
	hl_pids="$hl_pids $hl_pid"
	# frozen the moment its console says work-done (tail -f follows the
	# file with inotify; a polling loop on a busy machine can be slower
	# than the guest's second before power-off); tail ends with the UML
	hl_freeze_at_work_done "$_con" "$_fz"
}

# Freeze FZ the moment CONSOLE says work-done, then (given) send SIG to
# hl_pid; the watcher ends with hl_pid (hl_umls_kill ends it at once).
hl_freeze_at_work_done() {	# CONSOLE FZ [SIG]
	tail --pid="$hl_pid" -n +1 -f "$1" 2>/dev/null |
		{ grep -q 'anonsim-phase work-done' && echo FROZEN >"$2/freezer.state" &&
		  { [ -z "${3:-}" ] || kill -"$3" "$hl_pid"; }; } &
	hl_watchers="$hl_watchers $!"
}

# hl_uml_start, with UML recorded: under anonsim-rec-host (TOOLS) with
# uml_preload.so, their logs into LOGS (host.log, io.log, console.log).
# The recorder runs outside the run's cgroups, UML in the freezer FZ and
# the memory cgroup MEMCG: one of its own (hl_memcg_child), or the run's
# (hl_memcg), shared with the UMLs frozen before it, when the recorder
# takes off what that held when UML started; either way the recorder's
# host events are this UML's.  The preload library's log goes through a FIFO to
# a writer outside them too, so that its page cache is not the run's.
# DEVS is ANONSIM_REC_DEVS (uml_preload.c), MEM UML's memory in bytes.
hl_uml_start_recorded() {	# FZ MEMCG LOGS TOOLS DEVS MEM UML ARGS...
	_fz=$1 _mcg=$2 _logs=$3 _tools=$4 _devs=$5 _mem=$6
	shift 6
	mkdir -p "$_logs" && rm -f "$_logs/io.fifo" && mkfifo "$_logs/io.fifo" || return 1
	cat "$_logs/io.fifo" >"$_logs/io.log" &
	hl_cats="$hl_cats $!"
	hl_uml_pidfiles="$hl_uml_pidfiles $_logs/uml.pid"
	# a timeout of a day: the run times the boot, and a frozen UML waits
	_shared=
	[ "$_mcg" != "$hl_memcg" ] || _shared=1
	ANONSIM_REC_MEMCG=$_mcg ANONSIM_REC_MEMCG_SHARED=$_shared ANONSIM_REC_LOG=$_logs/io.fifo ANONSIM_REC_DEVS=$_devs ANONSIM_REC_MEM=$_mem \
		"$_tools/anonsim-rec-host" run "$_logs/host.log" 10 86400 "$_logs/console.log" -- \
		sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2" || exit 126
		       shift 2; exec env -u TMPDIR setarch "$(uname -m)" -R "$@"' \
		sh "$_fz" "$_logs/uml.pid" env LD_PRELOAD="$_tools/uml_preload.so" "$@" \
		</dev/null >/dev/null 2>"$_logs/rec-host.err" &
	hl_pid=$!
	hl_pids="$hl_pids $hl_pid"
	: >>"$_logs/console.log"
	# told its UML is frozen, the recorder logs what it holds then and
	# samples no more (the trace ends there; recorders sampling frozen
	# UMLs would slow the boots after them)
	hl_freeze_at_work_done "$_logs/console.log" "$_fz" USR1
}

# Whether process PID runs (kill -0 succeeds on a zombie too: ended, not
# yet waited for).
hl_running() {	# PID
	kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# Wait for child PID, TENTHS tenths of a second at most; then kill it,
# with a warning, and wait.
hl_wait_bounded() {	# PID TENTHS
	_n=0
	while hl_running "$1" && [ "$_n" -lt "$2" ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	if hl_running "$1"; then
		hl_log "warning: process $1 did not end; killed"
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
}

# Kill the UMLs of this run, and remove their ~/.uml directories (a UML
# killed leaves its own).
hl_umls_kill() {
	# the watchers first: one slow to act (a loaded host) would freeze
	# or signal what is being killed (a watcher's tail notices its UML
	# gone only at its next poll, 1 s)
	for _p in $hl_watchers; do
		kill "$_p" 2>/dev/null
	done
	for _p in $hl_pids; do
		pkill -f "^tail --pid=$_p " 2>/dev/null
	done
	for _p in $hl_watchers; do
		wait "$_p" 2>/dev/null
	done
	hl_watchers=
	for _f in $hl_freezers; do
		hl_group_kill "$_f"
		rmdir "$_f" 2>/dev/null
	done
	hl_freezers=
	[ -z "$hl_memcg" ] || hl_group_kill "$hl_memcg"
	_umls=$hl_pids
	for _f in $hl_uml_pidfiles; do
		[ -f "$_f" ] && _umls="$_umls $(cat "$_f")"
	done
	# each UML is gone, and its recorder (outside the cgroups) ends with
	# it; one still there after 10 s is killed, so that a run always ends
	for _p in $hl_pids; do
		hl_wait_bounded "$_p" 100
	done
	# with every UML gone a log writer reads to the end of its FIFO and
	# ends; one still there after 2 s waits on a UML that never opened it
	for _try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		_alive=
		for _p in $hl_cats; do hl_running "$_p" && _alive=1; done
		[ -n "$_alive" ] || break
		sleep 0.1
	done
	for _p in $hl_cats; do
		kill "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	hl_cats=
	for _p in $_umls; do
		for _d in "$HOME"/.uml/*/; do
			[ -f "$_d/pid" ] && [ "$(cat "$_d/pid" 2>/dev/null)" = "$_p" ] && rm -rf "$_d"
		done
	done
	hl_pids= hl_uml_pidfiles=
}

# A sweep of N = 1, 2, ... stops, as anonsim density does, after two N in
# a row that swapped: false then.  hl_swapping: the N in a row so far.
hl_swapping=0
hl_sweep_goes_on() {	# SWAPPED: 1 if N swapped, else 0
	if [ "$1" -ne 0 ]; then
		hl_swapping=$((hl_swapping + 1))
	else
		hl_swapping=0
	fi
	[ "$hl_swapping" -lt 2 ]
}

# A swap file of SIZE bytes in the scratch directory, swapped on.  The
# host's swap is one pool (any cgroup's pages go to any swap file, and a
# swapoff charges every page of its file back to its cgroup, an OOM kill
# where that is full): one run at a time has a swap file, under a lock
# anonsim live takes too, held on descriptor 9 until hl_swap_close (15
# minutes at most to get it).
hl_swap_lock=/run/lock/anonsim-swap
hl_swap_open() {	# BYTES
	[ -w /run/lock ] || hl_swap_lock=/tmp/anonsim-swap.lock
	exec 9>>"$hl_swap_lock" || return 1
	if ! flock -n 9; then
		hl_log "waiting for another run's swap file to go ($hl_swap_lock)"
		flock -w 900 9 || { hl_log "$hl_swap_lock: still held after 15 minutes"; exec 9>&-; return 1; }
	fi
	_sw=$hl_scratch/swap
	dd if=/dev/zero of="$_sw" bs=1M count=$(( $1 / 1048576 )) status=none &&
		chmod 600 "$_sw" && mkswap "$_sw" >/dev/null || return 1
	swapon "$_sw" || return 1
	hl_swap=$_sw
}

hl_swap_close() {
	[ -z "$hl_swap" ] || swapoff "$hl_swap" || hl_log "warning: swapoff $hl_swap failed"
	[ -z "$hl_swap" ] || rm -f "$hl_swap"
	hl_swap=
	exec 9>&-	# the lock, if held
}

hl_memcg_close() {
	[ -n "$hl_memcg" ] || return 0
	for _c in "$hl_memcg"/*/; do
		[ -d "$_c" ] || continue
		hl_group_kill "$_c"
		echo 0 >"$_c/memory.force_empty" 2>/dev/null
		rmdir "$_c" || hl_log "warning: cannot remove $_c"
	done
	echo -1 >"$hl_memcg/memory.limit_in_bytes" 2>/dev/null
	echo 0 >"$hl_memcg/memory.force_empty" 2>/dev/null
	rmdir "$hl_memcg" || hl_log "warning: cannot remove $hl_memcg"
	hl_memcg=
}

hl_cleanup() {
	hl_umls_kill
	[ -z "$hl_child" ] || wait "$hl_child" 2>/dev/null
	hl_child=
	hl_swap_close
	hl_memcg_close
	[ -z "$hl_scratch" ] || rm -rf "$hl_scratch"
	hl_scratch=
	hl_damon_resume
}

# A disk image's backing identity for a trace header: sha256 of its first
# MiB and its size, an opaque word.
hl_identity() {	# FILE
	{ head -c 1048576 "$1"; stat -L -c %s "$1"; } | sha256sum | cut -c1-64
}

# read_ahead_kb of the block device FILE lies on, or nothing.
hl_readahead_kb() {	# FILE
	_dev=$(stat -L -c %d "$1")
	_mm="$((_dev >> 8)):$((_dev & 255))"
	for _f in /sys/class/bdi/$_mm/read_ahead_kb /sys/dev/block/$_mm/queue/read_ahead_kb; do
		[ -r "$_f" ] && { cat "$_f"; return 0; }
	done
	return 0
}
