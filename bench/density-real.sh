#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# density-real.sh - boot N = 1, 2, ... real User-Mode Linux instances one
# after another in a memory cgroup, measure the host memory they use and
# the first N at which the host swaps, and hold "anonsim density" on a
# trace of the same image and command line to it.
set -u
HL_NAME=density-real
here=$(cd "$(dirname "$0")" && pwd)
rec=$(cd "$here/../src/record" && pwd)	# the recorder: its scripts and built tools
. "$rec/hostlib.sh"

usage() {
	cat <<USAGE
usage: density-real.sh [options] -i IMAGE -m SIZE -o DIR
       density-real.sh [options] --from DIR -o DIR

Boots UMLs (linux mem=MEM ubd0=DISK root=/dev/ubda rw init=INIT con=null
con0=fd:0,fd:1, under setarch -R, as anonsim-record runs them) one after
another: each starts when the one before has printed "anonsim-phase
work-done", and is then frozen (cgroup freezer) so that it keeps its
memory and powers nothing off.  Two runs of 1..MAX UMLs:

  free     a memory cgroup without limit: the memory N UMLs use (cgroup
           usage; tmpfs = its shmem, page cache of the images by mincore,
           the rest is overhead), after each one's work-done, and the peak
           while it booted
  limited  a memory cgroup of SIZE and a swap file: the first N at which
           the cgroup's swap (memory.stat, sampled every 0.1 s) is not
           zero; it stops two N after that

Every UML of both runs is recorded as it runs (anonsim-rec-host and
uml_preload.so, as anonsim-record, its trace ending where it was
frozen at work-done), and
"anonsim density -s read-copy" replays those very boots, UML N the
trace of UML N (a guest touches a different number of pages from boot
to boot, by 2-3.5 MiB here; the model given other boots of the same
image would answer for them, not for the boots measured): the free
run's for the memory curve, the limited run's for the density, at the
same host size and swap (--no-share for private images; the memory
UML's host processes hold, over time, from the traces' host events, or
if a trace has none a fixed overhead per UML as measured at N = 1;
--overhead sets a fixed one), and compares: the
density (largest N without a swap-out) must be equal and the memory
curve within the tolerance at every N.

  -i, --image FILE      the image (mkimage-busybox.sh or mkimage-debian.sh)
  -l, --layout L        private: a fresh copy of the image per UML; cow: a
                        fresh copy-on-write layer per UML over the one image
                        (default: private)
  -m, --host-mem SIZE   memory cgroup limit of the limited run, e.g. 160M
      --swap SIZE       swap file of the limited run (default: 256M)
  -n, --max N           at most N UMLs (default: 8)
      --mem SIZE        UML memory, mem= (default: 64M)
      --init PATH       the guest's init (default: /sbin/anonsim-init)
  -t, --trace FILE      replay these traces instead, UML N trace
                        (N-1) mod K + 1 of K (repeatable)
  -r, --record K        replay K traces recorded first from boots of
                        their own, each from a fresh copy or layer, as -t
      --overhead SIZE   the model's fixed memory per UML beyond tmpfs and
                        page cache, added to the traces' host events
                        (default: 0 if every trace has host events, else
                        measured at N = 1)
      --tolerance PCT   allowed difference of the memory curve (default: 5)
      --label NAME      series name in the outputs (default: the image's
                        name and the layout)
  -o, --output DIR      where the results go (made if missing)
  -d, --dir DIR         scratch directory's parent, on a disk filesystem
                        (default: \$TMPDIR, else /var/tmp)
      --tools DIR       the built recorder (anonsim-rec-host, uml_preload.so;
                        default: src/record of an in-tree build)
      --anonsim PATH    the anonsim command (default: \$ANONSIM, else
                        anonsim on PATH)
      --uml PATH        the UML binary (default: /usr/bin/linux)
      --timeout S       most seconds for one UML to reach work-done
                        (default: 300)
      --memcg-per-uml   each UML in a memory cgroup of its own inside the
                        run's (as libvirt puts each guest): the kernel then
                        keeps LRU lists per UML and reclaims from each in
                        turn, where the model keeps one for the host; by
                        default every UML is in the run's cgroup, and a
                        UML's host events are what the cgroup holds beyond
                        what it held when the UML started
      --from DIR        boot nothing: compare the model with the real
                        figures of an earlier run's output DIR (its
                        params, real-*.csv and trace-*.gz)
  -h, --help            this text

Outputs in DIR: params (the run's layout, sizes and label), real-free.csv and real-limited.csv (per N: seconds to
work-done, cgroup usage and peak, shmem, image page cache, swap, all in
bytes, and seconds from UML N's start to the first swap seen while it
booted), series.csv (the cgroup's memory and LRU lists every 0.1 s of
both runs; with --memcg-per-uml, booting_swap_mib is the swap of UML
N's own cgroup; the last six columns are /proc/vmstat's, machine-wide),
model-free.csv and model.csv (anonsim density --csv, memory
unlimited and on the host given), compare.csv (real beside model
per N), density.csv (both as series of plots/density.gp),
trace-free-N.gz and trace-limited-N.gz (the runs' UMLs; trace-K.gz
with -r), swapped-first.txt (recorded runs: after the first N that
swapped, each UML's swap and its host processes' swapped mappings),
summary.txt (with the model's density when each of the K
traces of the density goes first, UML N replaying trace (N-1+r) mod K
+ 1).  Everything the run made on the host (UMLs,
cgroups, swap file, scratch images, paused DAMON reclaim) is undone at
exit and on INT, TERM and HUP.

Exit status: 0 density equal and curve within tolerance; 1 usage error;
2 --from DIR without an earlier run's output; 4 a figure missed its
target (the summary says which); 5 a system or UML failure; 77 cannot
run here (not Linux, not root, no cgroup v1 memory controller or
freezer, no UML).
USAGE
}

usage_error() { hl_log "$* (see --help)"; exit 1; }
fail() { hl_log "$*"; exit 5; }

image= layout=private hostmem= swap=256M max=8 mem=64M init=/sbin/anonsim-init
traces= nrec= overhead= tol=5 label= outdir= parent=${TMPDIR:-/var/tmp} tools=$rec
anonsim=${ANONSIM:-} uml=/usr/bin/linux timeout_s=300 from= memcgs=shared
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--memcg-per-uml) memcgs=per-uml; shift; continue ;;
	-i|--image|-l|--layout|-m|--host-mem|--swap|-n|--max|--mem|--init|-t|--trace|-r|--record|\
	--overhead|--tolerance|--label|-o|--output|-d|--dir|--tools|--anonsim|--uml|--timeout|--from)
		[ $# -ge 2 ] || usage_error "$1 needs an argument"
		case $1 in
		-i|--image) image=$2 ;;
		-l|--layout) layout=$2 ;;
		-m|--host-mem) hostmem=$2 ;;
		--swap) swap=$2 ;;
		-n|--max) max=$2 ;;
		--mem) mem=$2 ;;
		--init) init=$2 ;;
		-t|--trace) [ -f "$2" ] || usage_error "trace $2 not found"
			traces="$traces $2" ;;
		-r|--record) nrec=$2 ;;
		--overhead) overhead=$2 ;;
		--tolerance) tol=$2 ;;
		--label) label=$2 ;;
		-o|--output) outdir=$2 ;;
		-d|--dir) parent=$2 ;;
		--tools) tools=$2 ;;
		--anonsim) anonsim=$2 ;;
		--uml) uml=$2 ;;
		--timeout) timeout_s=$2 ;;
		--from) from=$2 ;;
		esac
		shift 2 ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
done
[ -n "$outdir" ] || usage_error "no output directory (-o)"
if [ -n "$from" ]; then
	# the parameters of the earlier run, which the model must share
	for f in params real-free.csv real-limited.csv; do
		[ -f "$from/$f" ] || { hl_log "$from/$f: not found (not a density-real.sh output)"; exit 2; }
	done
	param() { sed -n "s/^$1=//p" "$from/params"; }
	layout=$(param layout) hostmem=$(param host_mem) swap=$(param swap) max=$(param max)
	[ -n "$label" ] || label=$(param label)
	if [ -z "$traces" ] && [ -f "$from/trace-limited-1.gz" ]; then
		nrec=in-place
	elif [ -z "$traces" ]; then
		traces=$(ls "$from"/trace-[0-9]*.gz 2>/dev/null | sort -V | tr '\n' ' ')
		[ -n "$traces" ] || usage_error "no trace: no $from/trace-*.gz; give -t"
	fi
	image=-
else
	[ -n "$image" ] || usage_error "no image (-i)"
	[ -f "$image" ] || usage_error "image $image not found"
	[ -n "$hostmem" ] || usage_error "no host memory (-m)"
fi
case $layout in private|cow) ;; *) usage_error "--layout: private or cow, not '$layout'" ;; esac
limit=$(hl_to_bytes "$hostmem") || usage_error "-m: not a size: '$hostmem'"
swap_bytes=$(hl_to_bytes "$swap") || usage_error "--swap: not a size: '$swap'"
[ "$swap_bytes" -ge 1048576 ] || usage_error "--swap: at least 1M"
hl_to_bytes "$mem" >/dev/null || usage_error "--mem: not a size: '$mem'"
case $max in ''|*[!0-9]*|0) usage_error "--max: a number of UMLs from 1" ;; esac
case $timeout_s in ''|*[!0-9]*|0) usage_error "--timeout: seconds from 1" ;; esac
case $tol in ''|*[!0-9.]*) usage_error "--tolerance: a percentage" ;; esac
[ -z "$overhead" ] || hl_to_bytes "$overhead" >/dev/null || usage_error "--overhead: not a size: '$overhead'"
case $nrec in in-place) ;; *[!0-9]*|0) usage_error "--record: a number of traces from 1" ;; esac
# the runs' own UMLs are recorded unless traces are given or recorded apart
[ -n "$traces" ] || [ -n "$nrec" ] || nrec=in-place
if [ -z "$anonsim" ]; then
	anonsim=$(command -v anonsim || true)
	[ -n "$anonsim" ] || [ ! -x "$here/../anonsim" ] || anonsim=$here/../anonsim
fi
[ -n "$anonsim" ] && [ -x "$anonsim" ] || usage_error "no anonsim command: build it, or give --anonsim"
[ -n "$label" ] || label=$(basename "$image" | sed 's/\.[^.]*$//; s/[^A-Za-z0-9_.-]/_/g')-$layout
case $label in *[!A-Za-z0-9_.-]*) usage_error "--label: letters, digits, _ . - only" ;; esac
mkdir -p "$outdir" || fail "cannot make $outdir"
outdir=$(cd "$outdir" && pwd -P)
if [ -z "$from" ]; then
	hl_require "$uml"
	rechost=$tools/anonsim-rec-host
	[ -x "$rechost" ] || fail "$rechost not found: build the recorder (make) or give --tools"
	image=$(cd "$(dirname "$image")" && pwd -P)/$(basename "$image")
	hl_traps
	hl_scratch_open "$parent" || fail "cannot make a scratch directory under $parent"
	printf 'layout=%s\nhost_mem=%s\nswap=%s\nmax=%s\nmem=%s\nlabel=%s\nimage=%s\nmemcgs=%s\n' \
		"$layout" "$limit" "$swap_bytes" "$max" "$mem" "$label" "$(basename "$image")" \
		"$memcgs" >"$outdir/params"
else
	from=$(cd "$from" && pwd -P)
	if [ "$from" != "$outdir" ]; then
		cp "$from/params" "$from/real-free.csv" "$from/real-limited.csv" "$outdir/" ||
			fail "cannot copy $from into $outdir"
	fi
fi

now() { date +%s.%N; }
mib() { awk -v b="$1" 'BEGIN { printf "%.3f", b / 1048576 }'; }

# ---- the disks: a fresh copy or layer per UML ---------------------------------------
# disk_arg K: the ubd0= value of UML K.
disk_arg() {
	if [ "$layout" = private ]; then
		echo "$hl_scratch/disk-$1.img"
	else
		echo "$hl_scratch/disk-$1.cow,$image"
	fi
}

disks_make() {	# N: fresh disks 1..N (a private copy, or no layer yet), no page cache
	_k=1
	while [ "$_k" -le "$1" ]; do
		rm -f "$hl_scratch/disk-$_k.img" "$hl_scratch/disk-$_k.cow"
		if [ "$layout" = private ]; then
			cp --sparse=always "$image" "$hl_scratch/disk-$_k.img" || return 1
			"$rechost" evict "$hl_scratch/disk-$_k.img" || return 1
		fi
		_k=$((_k + 1))
	done
	"$rechost" evict "$image" || return 1
	# The UML binary's page cache, one copy for all UMLs, is charged to
	# the cgroup that reads it first: read here, outside the run's cgroup,
	# it is charged to neither run (the model has no one-off cost).
	cat "$uml" >/dev/null
}

disks_cached_pages() {	# N: page cache of the disks of UMLs 1..N (and the shared image)
	_sum=0
	[ "$layout" = private ] || _sum=$("$rechost" resident "$image")
	_k=1
	while [ "$_k" -le "$1" ]; do
		for _f in "$hl_scratch/disk-$_k.img" "$hl_scratch/disk-$_k.cow"; do
			[ -f "$_f" ] && _sum=$((_sum + $("$rechost" resident "$_f")))
		done
		_k=$((_k + 1))
	done
	echo "$_sum"
}

uml_args() {	# K
	echo "mem=$mem ubd0=$(disk_arg "$1") root=/dev/ubda rw init=$init con=null con0=fd:0,fd:1"
}

rec_devs() {	# K: the recorder's ANONSIM_REC_DEVS of UML K (uml_preload.c)
	if [ "$layout" = private ]; then
		echo "ubda=$hl_scratch/disk-$1.img"
	else
		echo "ubda=$hl_scratch/disk-$1.cow,ubda=$image"
	fi
}

# ---- the trace --------------------------------------------------------------------------
if [ -z "$from" ] && [ -z "$traces" ]; then
	[ -f "$tools/uml_preload.so" ] || fail "$tools/uml_preload.so not found: build the recorder"
	# paused here for the recordings and the runs (a recorder killed on a
	# signal could not switch it on again)
	hl_damon_pause "$rechost"
	case $hl_damon_state in
	paused) note="recorded by density-real.sh, which paused the host's DAMON proactive reclaim for its run" ;;
	*) note="recorded by density-real.sh; the host's DAMON proactive reclaim: $hl_damon_state" ;;
	esac
fi
if [ -z "$from" ] && [ "$nrec" != in-place ] && [ -z "$traces" ]; then
	j=1
	while [ "$j" -le "$nrec" ]; do
		disks_make 1 || fail "cannot make a disk in $hl_scratch"
		hl_log "recording trace $j of $nrec: $uml $(uml_args 1)"
		# shellcheck disable=SC2046
		hl_run record env TMPDIR="$hl_scratch" sh "$rec/uml/anonsim-record" --tools "$tools" \
			--timeout "$timeout_s" --note "$note" -o "$outdir/trace-$j.gz" -- "$uml" $(uml_args 1) ||
			fail "recording trace $j failed"
		hl_umls_kill
		traces="$traces $outdir/trace-$j.gz"
		j=$((j + 1))
	done
fi

# ---- one run: UMLs 1..MAX, each started when the one before is done ---------------
# Appends to real-PHASE.csv: N, seconds to work-done, usage, peak usage,
# shmem, image page cache, swap (bytes), seconds to the first swap-out
# (after UML N started; empty if none).
series=$outdir/series.csv

# One row of the series: the cgroup's memory and its LRU lists (its
# memory.stat, UMLs' cgroups included), the swap of the UML booting when
# it has a cgroup of its own (--memcg-per-uml), and the machine's reclaim
# counters (/proc/vmstat, pages since boot: the runs are most of what
# reclaims on a quiet host).  Sets s_usage, s_swap.
sample() {	# RUN T0 N
	s_usage=$(hl_memcg_read memory.usage_in_bytes)
	_own=
	[ ! -f "$hl_memcg/uml-$3/memory.stat" ] || _own=$hl_memcg/uml-$3/memory.stat
	s_swap=$(awk -v r="$1" -v t0="$2" -v t="$(now)" -v n="$3" -v u="$s_usage" -v own="$_own" \
	    -v series="$series" '
		FILENAME == own { if ($1 == "swap") ow = $2; next }
		FILENAME ~ /vmstat$/ { v[$1] = $2; next }
		{ st[$1] = $2 }
		END {
			m = 1048576
			printf "%s,%.2f,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d,%d\n", r, t - t0, n,
				u / m, st["total_swap"] / m, st["total_shmem"] / m,
				(st["total_cache"] - st["total_shmem"]) / m, st["total_rss"] / m,
				own == "" ? "" : sprintf("%.3f", ow / m),
				st["total_inactive_anon"] / m, st["total_active_anon"] / m,
				st["total_inactive_file"] / m, st["total_active_file"] / m,
				v["pgscan_anon"], v["pgscan_file"], v["pgsteal_anon"], v["pswpout"],
				v["workingset_refault_file"], v["workingset_activate_file"] >>series
			print st["total_swap"] + 0
		}' "$hl_memcg/memory.stat" ${_own:+"$_own"} /proc/vmstat)
}

# What the host swapped, after the first N that swapped in the limited
# run: per UML the swapped part of its host processes' private mappings
# (smaps; forked processes share such pages, so each mapping is counted
# once, at its largest), and with --memcg-per-uml its cgroup's swap
# (pages), the rest of which is tmpfs.
swap_owners() {	# N
	echo "after UML $1's work-done: each UML's swap, and its host processes' private mappings with swap"
	_k=0
	for _fz in $hl_freezers; do
		_k=$((_k + 1))
		_stat=/dev/null
		[ ! -f "$hl_memcg/uml-$_k/memory.stat" ] || _stat=$hl_memcg/uml-$_k/memory.stat
		_smaps=
		for _p in $(cat "$_fz/cgroup.procs"); do _smaps="$_smaps /proc/$_p/smaps"; done
		# shellcheck disable=SC2086
		awk -v c="uml-$_k" -v own="$_stat" '
			FILENAME == own { if ($1 == "swap") w = $2 / 4096; next }
			/^[0-9a-f]+-[0-9a-f]+ / { m = $1; n = $6; sub(/.*\//, "", n); if (n == "") n = "anonymous"
				priv = $2 ~ /p$/; next }
			/^Swap:/ && priv && $2 > 0 { k = m " " n; if ($2 > kb[k]) kb[k] = $2 }
			END { printf "%s:", c
				if (own != "/dev/null") printf " swap %d pages;", w
				for (k in kb) { split(k, f, " "); printf " %s %s %d kB;", f[2], f[1], kb[k]; t += kb[k] }
				printf " private mappings %d pages", t / 4
				if (own != "/dev/null") printf ", tmpfs %d", w - t / 4
				printf "\n" }' \
			"$_stat" $_smaps 2>/dev/null
	done
}

run() {	# PHASE LIMIT
	phase=$1
	out=$outdir/real-$phase.csv
	echo "instances,boot_s,usage_bytes,peak_bytes,shmem_bytes,image_cache_bytes,swap_bytes,first_swap_out_s" >"$out"
	disks_make "$max" || fail "cannot make the disks in $hl_scratch"
	hl_memcg_open "$2" || fail "cannot make the memory cgroup"
	t0=$(now)
	hl_swapping=0
	k=1
	while [ "$k" -le "$max" ]; do
		hl_freezer_new "$k" || fail "cannot make a freezer cgroup"
		fz=$hl_fz
		con=$hl_scratch/console-$phase-$k
		echo 0 >"$hl_memcg/memory.max_usage_in_bytes"
		ts=$(now) first=
		if [ "$nrec" = in-place ]; then
			mcg=$hl_memcg
			if [ "$memcgs" = per-uml ]; then
				hl_memcg_child "uml-$k" || fail "cannot make UML $k's memory cgroup"
				mcg=$hl_child_memcg
			fi
			con=$hl_scratch/logs-$phase-$k/console.log
			# shellcheck disable=SC2046
			hl_uml_start_recorded "$fz" "$mcg" "$hl_scratch/logs-$phase-$k" "$tools" \
				"$(rec_devs "$k")" "$(hl_to_bytes "$mem")" "$uml" $(uml_args "$k") ||
				fail "cannot start UML $k under the recorder"
		else
			# shellcheck disable=SC2046
			hl_uml_start "$fz" "$con" "$uml" $(uml_args "$k")
		fi
		while :; do
			sample "$phase" "$t0" "$k"
			[ -n "$first" ] || [ "$s_swap" -eq 0 ] ||
				first=$(awk -v a="$ts" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
			if grep -q 'anonsim-phase work-done' "$con"; then
				hl_freeze "$fz" || fail "cannot freeze UML $k"
				# frozen before it powered off (a second after
				# work-done), or the figures would not be its own
				kill -0 "$hl_pid" 2>/dev/null && ! grep -qi 'power down\|halted' "$con" ||
					fail "UML $k ($phase run) powered off before it was frozen"
				break
			fi
			kill -0 "$hl_pid" 2>/dev/null ||
				fail "UML $k ($phase run) ended before work-done; the end of its console: $(tail -n 25 "$con")"
			elapsed=$(awk -v a="$ts" -v b="$(now)" 'BEGIN { printf "%d", b - a }')
			[ "$elapsed" -lt "$timeout_s" ] ||
				fail "UML $k ($phase run) did not reach work-done in $timeout_s s"
			sleep 0.1
		done
		boot=$(awk -v a="$ts" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
		sample "$phase" "$t0" "$k"
		[ -n "$first" ] || [ "$s_swap" -eq 0 ] || first=$boot
		set -- $(hl_memcg_stat)
		cached=$(disks_cached_pages "$k")
		echo "$k,$boot,$s_usage,$(hl_memcg_read memory.max_usage_in_bytes),$1,$((cached * 4096)),$s_swap,$first" >>"$out"
		hl_log "$phase run: UML $k at work-done after $boot s: $(mib "$s_usage") MiB used, swap $(mib "$s_swap") MiB"
		[ -z "$first" ] || [ "$phase" != limited ] || [ "$hl_swapping" -ne 0 ] || [ "$nrec" != in-place ] ||
			swap_owners "$k" >"$outdir/swapped-first.txt"
		hl_sweep_goes_on "$([ -n "$first" ] && echo 1 || echo 0)" || break
		k=$((k + 1))
	done
	[ "$k" -le "$max" ] || k=$max
	hl_umls_kill
	hl_memcg_close
	# the traces of the boots just measured, while their disks are there
	[ "$nrec" = in-place ] || return 0
	j=1
	while [ "$j" -le "$k" ]; do
		# shellcheck disable=SC2046
		sh "$rec/uml/anonsim-record" --from-logs "$hl_scratch/logs-$phase-$j" --until work-done \
			--reclaim "$hl_damon_state" --tools "$tools" \
			--note "$note; UML $j of its $phase run, frozen at work-done" \
			-o "$outdir/trace-$phase-$j.gz" -- "$uml" $(uml_args "$j") >/dev/null ||
			fail "cannot write the trace of UML $j ($phase run)"
		j=$((j + 1))
	done
}

if [ -z "$from" ]; then
	echo "run,t_s,instances,usage_mib,swap_mib,shmem_mib,cache_mib,rss_mib,booting_swap_mib,inactive_anon_mib,active_anon_mib,inactive_file_mib,active_file_mib,pgscan_anon,pgscan_file,pgsteal_anon,pswpout,workingset_refault_file,workingset_activate_file" >"$series"
	rm -f "$outdir"/trace-free-*.gz "$outdir"/trace-limited-*.gz "$outdir/swapped-first.txt"
	[ -n "$hl_damon_state" ] || hl_damon_pause "$rechost"
	hl_log "free run: up to $max UMLs, $layout disks of $image"
	run free -1
	hl_swap_open "$swap_bytes" || fail "cannot make and swap on a swap file in $hl_scratch"
	hl_log "limited run: memory cgroup of $hostmem, swap $swap"
	run limited "$limit"
	hl_swap_close
fi
# the first N whose boot saw swap
limited_swapped=$(awk -F, 'NR > 1 && $8 != "" { print $1; exit }' "$outdir/real-limited.csv")

# ---- the model ------------------------------------------------------------------------
# the boots of each run, in the order they ran; else the same traces for both
src=$outdir
[ -z "$from" ] || src=$from
if [ "$nrec" = in-place ]; then
	free_traces=$(ls "$src"/trace-free-*.gz 2>/dev/null | sort -V | tr '\n' ' ')
	traces=$(ls "$src"/trace-limited-*.gz 2>/dev/null | sort -V | tr '\n' ' ')
	[ -n "$free_traces" ] && [ -n "$traces" ] || fail "no trace of the runs' UMLs in $src"
else
	free_traces=$traces
fi
# traces with host events carry UML's host memory over time themselves
hosted=yes
for t in $free_traces $traces; do
	h=$("$anonsim" trace stat "$t" | sed -n 's/^  host: //p')
	[ -n "$h" ] || fail "anonsim trace stat $t: no host event count"
	[ "$h" -gt 0 ] || hosted=no
done
if [ -z "$overhead" ] && [ $hosted = yes ]; then
	overhead=0
elif [ -z "$overhead" ]; then
	# what UML 1 used beyond its tmpfs and the image page cache (bytes)
	overhead=$(awk -F, 'NR == 2 { v = $3 - $5 - $6; print (v > 0 ? v : 0) }' "$outdir/real-free.csv")
fi
ov_bytes=$(hl_to_bytes "$overhead")
ov_kib=$(( (ov_bytes + 1023) / 1024 ))
share=
[ "$layout" = cow ] || share=--no-share
# as the real runs: memory unlimited (the curve; anonsim density stops
# two N after the first that swaps), then the host given (the density)
"$anonsim" density --csv -q -s read-copy --max "$max" $share --overhead "${ov_kib}K" \
	-o "$outdir/model-free.csv" $free_traces &&
"$anonsim" density --csv -q -s read-copy -m "$limit" --swap "$swap_bytes" --max "$max" \
	$share --overhead "${ov_kib}K" -o "$outdir/model.csv" $traces ||
	fail "anonsim density failed on$traces"

# ---- real beside model ------------------------------------------------------------------
# the model starts UML N when the trace of UML N-1 ends: at (N-1) x its last event
last_us=
for t in $traces; do
	l=$("$anonsim" trace stat "$t" | sed -n 's/^duration: .* last at \([0-9]*\))$/\1/p')
	[ -n "$l" ] || fail "anonsim trace stat $t: no duration"
	last_us="$last_us $l"
done
awk -F, -v label="$label" -v tol="$tol" -v hostmib="$(mib "$limit")" \
    -v rswap="$limited_swapped" -v max="$max" -v ov="$(mib "$ov_bytes")" -v hosted=$hosted \
    -v last="$last_us" -v out="$outdir" '
# MiB to the 3 decimals printed: differences are those of the figures shown
function m(b) { return sprintf("%.3f", b / 1048576) + 0 }
function pct(r, s) { return r > 0 ? (s - r) / r * 100 : 0 }
function abs(x) { return x < 0 ? -x : x }
FNR == 1 { next }
FILENAME ~ /real-free/ { n = $1; free_n[n] = 1; use[n] = m($3); peak[n] = m($4); tm[n] = m($5)
	cache[n] = m($6); over[n] = m($3 - $5 - $6); next }
FILENAME ~ /real-limited/ { lim_swap[$1] = m($7); lim_first[$1] = $8; lim_seen[$1] = 1; next }
FILENAME ~ /model-free\.csv$/ { mt[$2] = m($8 * 1048576); mp[$2] = m($9 * 1048576); mrow[$2] = $0; next }
FILENAME ~ /model\.csv$/ { ms[$2] = $10; mouts[$2] = $11; mfirst_n[$2] = $12
	if ($11 > 0 && mfirst == "") mfirst = $12
	if ($11 > 0) mdens = $14; next }
END {
	rdens = rswap != "" ? rswap - 1 : ""
	cmp = out "/compare.csv"; dcsv = out "/density.csv"
	print "instances,real_mib,model_mib,diff_pct,real_peak_mib,model_peak_mib,peak_diff_pct,real_swap_mib,model_swap_mib,real_swapped,model_swapped" > cmp
	print "strategy,instances,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,overhead_mib,total_mib,peak_total_mib,swap_used_mib,swap_out_pages,first_swap_out_s,host_mem_mib,density" > dcsv
	for (n = 1; n <= max; n++) {
		if (!(n in free_n)) continue
		d = pct(use[n], mt[n]); dp = pct(peak[n], mp[n])
		if (abs(d) >= worst) { worst = abs(d); wn = n }
		if (abs(dp) >= pworst) { pworst = abs(dp); pwn = n }
		rsw = n in lim_seen ? sprintf("%.3f", lim_swap[n]) : ""
		rs = n in lim_seen ? (lim_first[n] != "" ? "yes" : "no") : ""
		msw = n in mouts ? sprintf("%.3f", ms[n]) : ""
		mss = n in mouts ? (mouts[n] > 0 ? "yes" : "no") : ""
		printf "%d,%.3f,%.3f,%+.2f,%.3f,%.3f,%+.2f,%s,%s,%s,%s\n", n, use[n], mt[n], d, peak[n], mp[n], dp,
			rsw, msw, rs, mss > cmp
		printf "%s-real,%d,%.3f,%.3f,0,0,%.3f,%.3f,%.3f,%s,,,%.3f,%s\n", label, n, tm[n], cache[n], over[n],
			use[n], peak[n], rsw, hostmib, rdens > dcsv
	}
	# the model: memory from the unlimited sweep, swap from the host given
	for (n = 1; n <= max; n++) {
		if (!(n in mrow)) continue
		split(mrow[n], f, ",")
		printf "%s-model,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.3f,%s\n", label, n, f[3], f[4], f[5], f[6], f[7],
			f[8], f[9], n in mouts ? ms[n] : "", n in mouts ? mouts[n] : "", n in mouts ? mfirst_n[n] : "",
			hostmib, mdens > dcsv
	}
	# a density is known once a run swapped within its N
	ok = rdens == mdens && rdens != "" && worst <= tol
	printf "%s: host %s MiB, model overhead %.2f MiB per UML%s\n", label, hostmib, ov,
		hosted == "yes" ? " and the host events of the traces" : ""
	printf "density: real %s, model %s%s\n", rdens != "" ? rdens : ">=" max, mdens != "" ? mdens : ">=" max,
		rdens == mdens ? (rdens != "" ? " (equal)" : " (neither swapped: not measured)") : " (DIFFER)"
	printf "memory after each boot: largest difference %.2f%% (N = %d), tolerance %s%%%s\n", worst, wn, tol,
		worst <= tol ? "" : " (BEYOND)"
	printf "peak while booting: largest difference %.2f%% (N = %d)\n", pworst, pwn
	if (rswap != "")
		printf "first swap-out, real: UML %d, %s s after it started (wall clock)\n", rswap, lim_first[rswap]
	if (mfirst != "") {
		# UML k starts as the trace of UML k-1 ends
		nt = split(last, len, " ")
		t = mfirst * 1e6
		for (k = 1; t >= len[(k - 1) % nt + 1]; k++)
			t -= len[(k - 1) % nt + 1]
		printf "first swap-out, model: UML %d, %.2f s into its trace\n", k, t / 1e6
	}
	exit ok ? 0 : 4
}' "$outdir/real-free.csv" "$outdir/real-limited.csv" "$outdir/model-free.csv" "$outdir/model.csv" \
	>"$outdir/summary.txt"
status=$?
# The density each of the K traces gives when it goes first (UML N then
# replays trace (N-1+r) mod K + 1): how much the draw of boots decides.
set -- $traces
rot= r=0
while [ $r -lt $# ]; do
	if [ $r -eq 0 ]; then
		f=$outdir/model.csv
	else
		f=$outdir/model-rot.csv
		# shellcheck disable=SC2046
		"$anonsim" density --csv -q -s read-copy -m "$limit" --swap "$swap_bytes" --max "$max" \
			$share --overhead "${ov_kib}K" -o "$f" $(shift $r; echo "$@") \
			$(i=0; for t in "$@"; do [ $i -lt $r ] && echo "$t"; i=$((i + 1)); done) ||
			fail "anonsim density failed on$traces"
	fi
	d=$(awk -F, 'NR > 1 && $11 > 0 { d = $14 } END { print d != "" ? d : ">='"$max"'" }' "$f")
	rot="$rot $d"
	r=$((r + 1))
done
rm -f "$outdir/model-rot.csv"
echo "model density with each trace first:$rot" >>"$outdir/summary.txt"
cat "$outdir/summary.txt"
exit $status
