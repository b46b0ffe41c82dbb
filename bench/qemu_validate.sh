#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# qemu_validate.sh - the model held to real QEMU guests: a small guest
# recorded once under cache=writeback, then booted for real under each
# strategy, 1, 2 and 4 at a time sharing one read-only image, its RAM and
# the image's page cache measured at each phase and at the end, beside
# what replay predicts from the writeback recording alone.
set -u

usage() {
	cat <<USAGE
usage: bench/qemu_validate.sh [options]

Builds a small guest (src/record/images/mkguest-qemu.sh: the Debian cloud
kernel, a busybox initramfs reading one file of an ext4 image, then
dropping its caches), records it once under cache=writeback with
"anonsim-record --vmm qemu", then for each strategy and each number of
guests N boots N guests for real, one after another (each stopped when it
reaches its end, so that they hold their memory as the model's instances
do), all on one read-only image whose host page cache is dropped before
each run.  At each phase marker of a guest's console ("anonsim-phase
NAME") the guest is frozen and measured: the resident pages of its RAM
memfd and the image's pages in the host page cache (cachestat, mincore
before Linux 6.5); at the end, every guest.  The model's figures come from
"anonsim replay" of the writeback recording under each strategy, the
recording cut at the same phase, the guests before it whole: none, dax
and reporting are predicted, not recorded.  A point passes when the page
cache is within 2 % and the guest's RAM within 5 % of the model.

With --density SIZE it measures how many guests really fit instead: for
each strategy, guests booted one after another (each stopped at its end)
in a memory cgroup of SIZE, with a swap file of --swap made for the run,
the cgroup's memory and swap measured at each guest's end, until two in a
row have swapped or --max have run; beside it "anonsim density" of the
writeback recording at the same host size and swap, the recording's host
events charging QEMU's own memory (TCG's translation cache among it).
The density is the guests before the first whose run swaps.

Strategies (-s): writeback (cache=writeback, virtio-blk), none
(cache=none), dax (virtio-pmem, ext4 -o dax=always in the guest) and
reporting (writeback with virtio-balloon free-page-reporting=on, the
model's --report-order 9; the guest waits --settle seconds after its
last free, two reporting passes and more, before its end).

  -s, --strategies LIST   comma-separated (default: writeback,none,dax,reporting)
  -g, --guests LIST       numbers of guests, comma-separated, 1 to 8
                          (default: 1,2,4)
      --density SIZE      measure the density on a host of SIZE (such as 1G)
      --swap SIZE         with --density: the swap file (default: 256M)
      --max N             with --density: the most guests, 2 to 12
                          (default: 6)
      --resume            with --density and -o: go on from what DIR holds
                          (its recording, the strategies measured already)
  -o, --output DIR        keep there the table (table.txt), the points
                          (points.csv; with --density, density.csv), the
                          recording and the consoles
  -d, --scratch DIR       where the image and the logs are made, a disk
                          filesystem (default: \$TMPDIR, else /var/tmp)
      --accel A           tcg or kvm (default: kvm where /dev/kvm and the
                          processor's vmx or svm are, else tcg with --tb-size)
      --tb-size MIB       TCG's translation cache (default: 64)
      --mem SIZE          each guest's RAM (default: 256M)
      --file SIZE         the file the guest reads (default: 48M: more than
                          the guest frees at boot, so that its copy costs RAM)
      --settle S          seconds the guest waits after its last free
                          (default: 6)
      --hold S            seconds the guest pauses after each marker, in
                          which it is frozen (default: 1)
      --kaslr             boot the guests, the recorded one too, with the
                          kernel's address randomisation on (default:
                          nokaslr: where the kernel decompresses itself
                          changes which RAM a boot touches, by up to 5 %
                          of it from boot to boot, which no one recording
                          can predict)
      --timeout S         the most a guest may take (default: 300)
      --kernel-cache DIR  keep the guest kernel package there between
                          runs (mkguest-qemu.sh --cache; default:
                          \$QEMU_KERNEL_CACHE, else fetched for the run)
  -h, --help              this text

Environment: ANONSIM (default: ./anonsim of the build tree), ANONSIM_TOOLS
(the built recorder, default: src/record of the build tree).
Needs root (memory cgroups, the freezer, QEMU's memfd under /proc), the
cgroup v1 memory and freezer controllers, qemu-system-x86_64, mke2fs,
busybox-static and the built recorder.  Everything it makes (cgroups, QEMU
processes, the scratch directory) is undone at the end and on SIGINT,
SIGTERM and SIGHUP; it makes a swap file only with --density (the
validation runs are without memory pressure).
Exit status: 0 every point within its tolerance (--density: every
density equal); 1 usage error; 4 a point beyond its tolerance (a density
not equal); 5 a run failed; 77 skipped: not root, or QEMU or another
requirement missing (the message says which).
USAGE
}

top=$(cd "$(dirname "$0")/.." && pwd)
anonsim=${ANONSIM:-$top/anonsim}
tools=${ANONSIM_TOOLS:-$top/src/record}
strategies=writeback,none,dax,reporting guests=1,2,4 out= scratch_parent=${TMPDIR:-/var/tmp}
accel= tb=64 mem=256M file=48M settle=6 hold=1 timeout_s=300 kcache=${QEMU_KERNEL_CACHE:-}
density= swap=256M max=6 resume= kaslr=nokaslr

die() { echo "qemu_validate: $*" >&2; exit 5; }
bad() { echo "qemu_validate: $*" >&2; exit 1; }
skip() { echo "qemu_validate: SKIP: $*" >&2; exit 77; }

while [ $# -gt 0 ]; do
	case $1 in
	-s|--strategies|-g|--guests|-o|--output|-d|--scratch|--accel|--tb-size|--mem|--file|\
	--settle|--hold|--timeout|--kernel-cache|--density|--swap|--max)
		[ $# -ge 2 ] || bad "$1 needs a value (see --help)" ;;
	esac
	case $1 in
	-s|--strategies) strategies=$2; shift 2 ;;
	-g|--guests) guests=$2; shift 2 ;;
	-o|--output) out=$2; shift 2 ;;
	-d|--scratch) scratch_parent=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--tb-size) tb=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--file) file=$2; shift 2 ;;
	--settle) settle=$2; shift 2 ;;
	--hold) hold=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--kernel-cache) kcache=$2; shift 2 ;;
	--density) density=$2; shift 2 ;;
	--swap) swap=$2; shift 2 ;;
	--max) max=$2; shift 2 ;;
	--resume) resume=1; shift ;;
	--kaslr) kaslr=; shift ;;
	-h|--help) usage; exit 0 ;;
	*) bad "unknown argument '$1' (see --help)" ;;
	esac
done
strategies=$(echo "$strategies" | tr ',' ' ')
for s in $strategies; do
	case $s in
	writeback|none|dax|reporting) ;;
	*) bad "--strategies '$s': expected writeback, none, dax or reporting" ;;
	esac
done
guests=$(echo "$guests" | tr ',' ' ')
for n in $guests; do
	case $n in
	[1-8]) ;;
	*) bad "--guests '$n': expected a number of guests from 1 to 8" ;;
	esac
done
[ -n "$strategies" ] && [ -n "$guests" ] || bad "--strategies and --guests need a value"
case $accel in ''|tcg|kvm) ;; *) bad "--accel '$accel': expected tcg or kvm" ;; esac
for v in "$tb" "$settle" "$hold" "$timeout_s"; do
	case $v in ''|*[!0-9]*) bad "--tb-size, --settle, --hold and --timeout take whole numbers ('$v')" ;; esac
done
case $mem in [1-9]*[0-9MG]) ;; *) bad "--mem '$mem': a size such as 256M" ;; esac
case $file in [1-9]*[0-9KMG]) ;; *) bad "--file '$file': a size such as 8M" ;; esac
case $density in ''|[1-9]*[0-9MG]) ;; *) bad "--density '$density': a size such as 1G" ;; esac
case $swap in [1-9]*[0-9MG]) ;; *) bad "--swap '$swap': a size such as 256M" ;; esac
case $max in [2-9]|1[0-2]) ;; *) bad "--max '$max': expected a number of guests from 2 to 12" ;; esac
[ -z "$resume" ] || { [ -n "$density" ] && [ -n "$out" ]; } || bad "--resume goes with --density and -o"
[ -z "$resume" ] || [ -f "$out/recording.trace.gz" ] || resume=	# nothing to resume: a new run

# ---- what it needs: else skipped (77), saying why -----------------------------------
PATH=$PATH:/sbin:/usr/sbin
[ "$(uname -s)" = Linux ] || skip "needs a Linux host"
[ "$(id -u)" = 0 ] || skip "needs root (memory cgroups, the freezer, QEMU's memory under /proc)"
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 is not installed (Debian: qemu-system-x86)"
command -v mke2fs >/dev/null 2>&1 || skip "mke2fs is not installed (Debian: e2fsprogs)"
command -v busybox >/dev/null 2>&1 || skip "busybox is not installed (Debian: busybox-static)"
[ -x "$tools/anonsim-rec-host" ] && [ -f "$tools/qemu_preload.so" ] && [ -x "$tools/kpage-sampler" ] ||
	skip "the recorder is not built in $tools (make, or ANONSIM_TOOLS)"
[ -x "$anonsim" ] || skip "anonsim is not built ($anonsim; make, or ANONSIM)"
HL_NAME=qemu_validate HL_CGROUP=anonsim-validate
. "$top/src/record/hostlib.sh"
[ -f "$HL_MEMCG/memory.stat" ] || skip "needs the cgroup v1 memory controller at $HL_MEMCG"
[ -d "$HL_FREEZER" ] || skip "needs the cgroup v1 freezer at $HL_FREEZER"
if [ -z "$accel" ]; then
	# KVM where the processor has it (a /dev/kvm alone may not run a guest)
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		accel=kvm
	else
		accel=tcg
	fi
fi
case $accel in
kvm) accel_arg=kvm ;;
*) accel_arg=tcg,tb-size=$tb ;;
esac

# ---- undone at the end and on a signal -----------------------------------------------
recorder=
cleanup() {
	[ -z "$recorder" ] || { kill -TERM "$recorder" 2>/dev/null; wait "$recorder" 2>/dev/null; }
	recorder=
	hl_cleanup
}
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 130' INT
trap 'cleanup; trap - EXIT; exit 143' TERM
trap 'cleanup; trap - EXIT; exit 129' HUP

t0=$(date +%s)
hl_scratch_open "$scratch_parent" || die "cannot make a scratch directory in $scratch_parent"
w=$hl_scratch
hl_damon_pause "$tools/anonsim-rec-host"
[ -z "$out" ] || mkdir -p "$out" || die "cannot make $out"

# ---- the guest ------------------------------------------------------------------------
sh "$top/src/record/images/mkguest-qemu.sh" --sampler "$tools/kpage-sampler" \
	--file "blob=$file" ${kcache:+--cache "$kcache"} "$w/guest" >"$w/files" 2>"$w/mkguest.err"
case $? in
0) ;;
2) skip "no guest kernel package: $(cat "$w/mkguest.err")" ;;
*) die "mkguest-qemu.sh: $(cat "$w/mkguest.err")" ;;
esac
img=$w/guest/disk.img
img_bytes=$(stat -c %s "$img")
chmod 444 "$img"

# Run COMMAND... with QEMU's arguments for STRATEGY after it, the guest's
# console on QEMU's standard output; it replaces the shell: "qemu_run ... &".
qemu_run() {	# STRATEGY COMMAND...
	_s=$1
	shift
	set -- "$@" qemu-system-x86_64 -nodefaults -no-user-config -display none -serial stdio \
		-no-reboot -accel "$accel_arg" -object "memory-backend-memfd,id=m,size=$mem" \
		-machine q35,memory-backend=m -kernel "$w/guest/vmlinuz" -initrd "$w/guest/initrd.img"
	_append="console=ttyS0 quiet panic=-1 anonsim.wait=$settle anonsim.hold=$hold${kaslr:+ $kaslr}"
	_drive="file=$img,format=raw,if=virtio,readonly=on,aio=threads"
	# one machine for every strategy: virtio-pmem needs a memory slot, and
	# with one the guest sets up its 64 MiB swiotlb buffer (the slot lies
	# above 4 GiB), under every strategy alike
	set -- "$@" -m "$mem,slots=1,maxmem=$(( $(hl_to_bytes "$mem") / 1048576 + img_bytes / 1048576 + 2 ))M"
	case $_s in
	writeback) set -- "$@" -drive "$_drive,cache=writeback" ;;
	none) set -- "$@" -drive "$_drive,cache=none" ;;
	reporting) set -- "$@" -drive "$_drive,cache=writeback" \
		-device virtio-balloon-pci,free-page-reporting=on ;;
	dax)
		_append="$_append anonsim.disk=pmem"
		set -- "$@" -object "memory-backend-file,id=pm,mem-path=$img,size=$img_bytes,share=on,readonly=on" \
			-device virtio-pmem-pci,memdev=pm,id=pmem0 ;;
	esac
	exec "$@" -append "$_append"
}
# how each strategy's guests reach the image
setup_of() {	# STRATEGY
	case $1 in
	writeback) echo "virtio-blk cache=writeback" ;;
	none) echo "virtio-blk cache=none" ;;
	dax) echo "virtio-pmem, ext4 dax=always" ;;
	reporting) echo "virtio-blk cache=writeback, free page reporting" ;;
	esac
}

# ---- the recording (the model's input) -------------------------------------------------
if [ -n "$resume" ] && [ -f "$out/recording.trace.gz" ]; then
	echo "qemu_validate: resuming: the recording kept in $out" >&2
	gzip -dc "$out/recording.trace.gz" >"$w/rec.trace" || die "cannot read $out/recording.trace.gz"
	# the guests measured now must boot as the recorded one did
	kept=with want=with
	grep -q '^note qemu: .* -append .*nokaslr' "$w/rec.trace" && kept=without
	[ -z "$kaslr" ] || want=without
	[ "$kept" = "$want" ] ||
		bad "--resume: the recording in $out was made $kept --kaslr; resume it the same way"
else
	echo "qemu_validate: recording the guest under writeback ($accel)" >&2
	qemu_run writeback sh "$top/src/record/uml/anonsim-record" --vmm qemu --tools "$tools" \
		--timeout "$timeout_s" --keep "$w/rec" -o "$w/rec.trace" -- \
		>"$w/rec.out" 2>"$w/rec.err" &
	recorder=$!
	wait "$recorder"
	st=$?
	recorder=
	[ "$st" -eq 0 ] || die "the recording failed (status $st): $(tail -n 3 "$w/rec.err")"
fi
phases=$(awk 'f && $2 == "phase" { printf "%s ", $3 } $1 == "events" { f = 1 }' "$w/rec.trace")
[ "$phases" = "boot-done read-done work-done " ] ||
	die "the recorded guest's phases are '$phases', not boot-done read-done work-done: $(tail -n 5 "$w/rec/console.log")"
[ -z "$out" ] || gzip -9 -n <"$w/rec.trace" >"$out/recording.trace.gz"

# the recording cut at the phase event NAME: the guest at that point, the
# phase event kept so that the model's clock reaches the phase's time (a
# reporting pass due before it has run, as in the guest measured then)
for p in boot-done read-done work-done; do
	awk -v p="$p" '{ print } f && $2 == "phase" && $3 == p { exit } $1 == "events" { f = 1 }' \
		"$w/rec.trace" >"$w/cut-$p.trace"
done

# model FIGURE STRATEGY K POINT: the model's FIGURE (tmpfs or cache, in
# pages) after K-1 whole guests and the Kth cut at POINT (a phase, or end)
model() {
	_f=$1 _s=$2 _k=$3 _p=$4
	_key=$_f.$_s.$_k.$_p
	_v=$(awk -v k="$_key" '$1 == k { print $2; exit }' "$w/model.memo" 2>/dev/null)
	[ -z "$_v" ] || { echo "$_v"; return 0; }
	[ "$_k" -gt 0 ] || { echo 0; return 0; }
	set --
	_j=1
	while [ "$_j" -lt "$_k" ]; do set -- "$@" "$w/rec.trace"; _j=$((_j + 1)); done
	if [ "$_p" = end ]; then set -- "$@" "$w/rec.trace"; else set -- "$@" "$w/cut-$_p.trace"; fi
	case $_s in
	reporting) _o="-s writeback --report-order 9" ;;
	*) _o="-s $_s" ;;
	esac
	# shellcheck disable=SC2086
	"$anonsim" replay -q $_o --pages --csv "$@" >"$w/replay.csv" 2>"$w/replay.err" ||
		die "anonsim replay $_o failed: $(cat "$w/replay.err")"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == 2 { print "tmpfs." k, $c["final_tmpfs_pages"]; print "cache." k, $c["final_cache_pages"] }' \
		k="$_s.$_k.$_p" "$w/replay.csv" >>"$w/model.memo"
	awk -v k="$_key" '$1 == k { print $2; exit }' "$w/model.memo"
}
# the model's RAM of guest K at POINT: what the K guests hold less what
# the K-1 before it held at their end
model_ram() {	# STRATEGY K POINT
	_a=$(model tmpfs "$1" "$2" "$3")
	_b=$(model tmpfs "$1" $(($2 - 1)) end)
	echo $((_a - _b))
}

# ---- the real runs -----------------------------------------------------------------------
# Start a guest of STRATEGY in the run's memory cgroup and a freezer
# cgroup of its own: sets pid (QEMU), fz, con (its console).
guest_start() {	# STRATEGY NAME
	con=$w/console-$2.log
	hl_freezer_new "$2" || die "cannot make a freezer cgroup under $HL_FREEZER"
	fz=$hl_fz
	qemu_run "$1" sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" || exit 126
	       shift 2; exec "$@"' sh "$hl_memcg" "$fz" </dev/null >"$con" 2>&1 &
	pid=$!
	hl_pids="$hl_pids $pid"
}
# resident pages of guest J's RAM memfd (QEMU's fd of /memfd:memory-backend-memfd)
ram_of() {	# PID
	for _l in /proc/"$1"/fd/*; do
		case $(readlink "$_l" 2>/dev/null) in
		/memfd:memory-backend-memfd*) "$tools/anonsim-rec-host" resident "$_l"; return ;;
		esac
	done
	echo "?"
}
cache_of() { "$tools/anonsim-rec-host" resident "$img"; }

# a point: real beside model, within tolerance or not
point() {	# STRATEGY N K POINT RAM CACHE
	_mr=$(model_ram "$1" "$3" "$4")
	_mc=$(model cache "$1" "$3" "$4")
	_ok=$(awk -v r="$5" -v mr="$_mr" -v c="$6" -v mc="$_mc" 'BEGIN {
		dr = r - mr; if (dr < 0) dr = -dr; dc = c - mc; if (dc < 0) dc = -dc
		print (r != "?" && dr * 20 <= mr && dc * 50 <= mc) ? "ok" : "beyond"
	}')
	echo "$1,$2,$3,$4,$5,$_mr,$6,$_mc,$_ok" >>"$w/points.csv"
	[ "$_ok" = ok ] || misses=$((misses + 1))
	printf '  %-18s %8s %8s %8s %8s%s\n' "guest $3 $4" "$5" "$_mr" "$6" "$_mc" \
		"$([ "$_ok" = ok ] || echo '  beyond tolerance')" >>"$w/table.txt"
}

# ---- --density: how many guests really fit ------------------------------------------------
# The model's density of STRATEGY: "anonsim density" of the recording on
# the same host size and swap; its rows kept in model-STRATEGY.csv.  The
# recording cut at work-done, where the real guests are frozen: after it
# the recorded QEMU ended and gave back its own memory.
model_density() {	# STRATEGY
	case $1 in
	reporting) _o="-s writeback --report-order 9" ;;
	*) _o="-s $1" ;;
	esac
	# shellcheck disable=SC2086
	"$anonsim" density --csv -q $_o -m "$density" --swap "$swap" --max "$max" \
		-o "$w/model-$1.csv" "$w/cut-work-done.trace" 2>"$w/density.err" ||
		die "anonsim density $_o failed: $(cat "$w/density.err")"
	# every N tried fits: ">=max", as the real run says it
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ d = $c["density"]; n = $c["instances"] }
		END { print (d == n ? ">=" : "") d }' "$w/model-$1.csv"
}

# Guests of STRATEGY one after another in a memory cgroup of --density,
# each frozen at its work-done and measured then: the cgroup's usage and
# swap.  Stops after two guests in a row that swapped, or at --max.
# Appends to density.csv; sets real (the guests before the first that
# swapped, or ">=max").
density_run() {	# STRATEGY
	_s=$1
	"$tools/anonsim-rec-host" evict "$img"
	hl_memcg_open "$(hl_to_bytes "$density")" || die "cannot make a memory cgroup under $HL_MEMCG"
	real= hl_swapping=0 k=1 _pids=
	while [ "$k" -le "$max" ]; do
		guest_start "$_s" "$_s-density-$k"
		_pids="$_pids $pid"
		start=$(date +%s)
		until tr -d '\r' <"$con" | grep -q '^anonsim-phase work-done$'; do
			hl_running "$pid" || die "$_s, guest $k: QEMU ended before work-done: $(tail -n 3 "$con")"
			[ $(($(date +%s) - start)) -le "$timeout_s" ] || die "$_s, guest $k: no work-done within $timeout_s s"
			sleep 0.1
		done
		hl_freeze "$fz" || die "cannot freeze guest $k"
		# the guests still there: with the swap file full, the memory
		# cgroup's OOM killer ends one
		_alive=0
		for _p in $_pids; do hl_running "$_p" && _alive=$((_alive + 1)); done
		set -- $(hl_memcg_stat)
		usage=$(hl_memcg_read memory.usage_in_bytes)
		echo "$_s,$k,$usage,$4,$1,$(( $(cache_of) * 4096 )),$(($(date +%s) - start)),$_alive" >>"$w/density.csv"
		echo "qemu_validate: $_s, guest $k at work-done: $((usage / 1048576)) MiB used, swap $(($4 / 1048576)) MiB$([ "$_alive" -eq "$k" ] || echo ", $((k - _alive)) guest(s) killed")" >&2
		[ "$4" -eq 0 ] || [ -n "$real" ] || real=$((k - 1))
		hl_sweep_goes_on "$([ "$4" -gt 0 ] && echo 1 || echo 0)" || break
		k=$((k + 1))
	done
	[ -n "$real" ] || real=">=$max"
	hl_umls_kill
	hl_memcg_close
}

if [ -n "$density" ]; then
	[ -f "$HL_MEMCG/memory.memsw.usage_in_bytes" ] ||
		skip "--density needs swap accounting in the memory cgroup (memory.memsw.*)"
	hl_swap_open "$(hl_to_bytes "$swap")" || die "cannot make and swap on a swap file in $w"
	if [ -n "$resume" ] && [ -f "$out/density.csv" ]; then
		cp "$out/density.csv" "$w/density.csv" || die "cannot read $out/density.csv"
	else
		echo "strategy,guests,usage_bytes,swap_bytes,shmem_bytes,image_cache_bytes,seconds,alive" >"$w/density.csv"
		[ -z "$out" ] || rm -f "$out/density.done"
	fi
	{
		echo "Real QEMU guests against the model: how many fit in a memory cgroup of $density"
		echo "with a swap file of $swap, one after another ($accel; guest RAM $mem, image $((img_bytes / 4096)) pages)"
		printf '  %-10s %6s %10s %10s %12s %10s\n' strategy guests "real MiB" swap "model demand" swap
	} >"$w/table.txt"
	misses=0 summary=
	for s in $strategies; do
		real=
		[ -z "$resume" ] || real=$(awk -v s="$s" '$1 == s { print $2 }' "$out/density.done" 2>/dev/null)
		if [ -n "$real" ]; then
			echo "qemu_validate: resuming: $s measured already (density $real)" >&2
		else
			echo "qemu_validate: $s, guests until the host swaps" >&2
			density_run "$s"
			# kept as each strategy ends: a run stopped resumes there
			[ -z "$out" ] || { cp "$w/density.csv" "$out/density.csv" &&
				echo "$s $real" >>"$out/density.done"; } || die "cannot write to $out"
		fi
		m=$(model_density "$s")
		# the rows side by side: real usage and swap, the model's total and swap used
		awk -F, -v s="$s" 'FNR == 1 { next }
			FILENAME ~ /density\.csv$/ { if ($1 == s) { u[$2] = $3 / 1048576; w[$2] = $4 / 1048576; n[$2] = 1
				a[$2] = ($8 != "" && $8 < $2) ? sprintf("  %d killed (OOM)", $2 - $8) : "" } next }
			{ mt[$2] = $8; ms[$2] = $10 }
			END { for (k = 1; k in n; k++)
				printf "  %-10s %6d %10.1f %10.1f %12s %10s%s\n", s, k, u[k], w[k],
					(k in mt) ? sprintf("%.1f", mt[k]) : "-", (k in ms) ? sprintf("%.1f", ms[k]) : "-", a[k] }' \
			"$w/density.csv" "$w/model-$s.csv" >>"$w/table.txt"
		if [ "$real" = "$m" ]; then ok=equal; else ok="NOT equal"; misses=$((misses + 1)); fi
		summary="$summary$(printf '  %-10s real %s, model %s: %s' "$s" "$real" "$m" "$ok")
"
		# the curves, real against model, in anonsim density's columns
		# (the real total: what the guests hold in memory and in swap)
		[ -f "$w/density-plot.csv" ] || head -n 1 "$w/model-$s.csv" >"$w/density-plot.csv"
		awk -F, -v s="$s" -v d="$real" -v h="$(($(hl_to_bytes "$density") / 1048576))" '
			NR > 1 && $1 == s { m = 1048576
			printf "%s-real,%d,%.3f,%.3f,0,0,%.3f,%.3f,%.3f,%.3f,,,%d,%s\n", s, $2, $5 / m, $6 / m,
				($3 - $5 - $6) / m, ($3 + $4) / m, ($3 + $4) / m, $4 / m, h, d }' \
			"$w/density.csv" >>"$w/density-plot.csv"
		awk -F, -v s="$s" 'NR > 1 { $1 = s "-model"; print }' OFS=, "$w/model-$s.csv" >>"$w/density-plot.csv"
	done
	if command -v gnuplot >/dev/null 2>&1; then
		gnuplot -e "data='$w/density-plot.csv'; out='$w/density'; trace='real QEMU guests (memory cgroup) and anonsim density'; host='host: $density memory cgroup, $swap swap; guest RAM $mem; $accel'; yname='guests memory, in RAM and swap (model: demanded) MiB'" \
			"$top/plots/density.gp" || die "gnuplot failed"
	fi
	t=$(($(date +%s) - t0))
	{
		cat "$w/table.txt"
		echo "density (guests before the first that swaps):"
		printf '%s' "$summary"
		echo "$misses densit$([ "$misses" -eq 1 ] && echo y || echo ies) not equal; $t s"
	} >"$w/report.txt"
	cat "$w/report.txt"
	if [ -n "$out" ]; then
		cp "$w/report.txt" "$out/table.txt" && cp "$w/density.csv" "$out/density.csv" &&
			cp "$w"/model-*.csv "$w/density-plot.csv" "$out/" &&
			{ [ ! -f "$w/density.png" ] || cp "$w/density.png" "$w/density.svg" "$out/"; } &&
			cp "$w"/console-*.log "$w/rec/console.log" "$out/" 2>/dev/null
	fi
	[ "$misses" -eq 0 ] || exit 4
	exit 0
fi

echo "strategy,guests,guest,point,ram_pages,model_ram_pages,cache_pages,model_cache_pages,within" >"$w/points.csv"
: >"$w/table.txt"
misses=0
for s in $strategies; do
	for n in $guests; do
		echo "qemu_validate: $s, $n guest(s)" >&2
		printf '%s: %s, %d guest%s, %s, image %d pages\n  %-18s %8s %8s %8s %8s\n' \
			"$s" "$(setup_of "$s")" \
			"$n" "$([ "$n" -gt 1 ] && echo s)" "$accel" $((img_bytes / 4096)) \
			"point" "RAM" "model" "cache" "model" >>"$w/table.txt"
		"$tools/anonsim-rec-host" evict "$img"
		hl_memcg_open -1 || die "cannot make a memory cgroup under $HL_MEMCG"
		pids=
		k=1
		while [ "$k" -le "$n" ]; do
			guest_start "$s" "$s-$n-$k"
			pids="$pids $pid"
			seen=0 start=$(date +%s) last=
			while [ "$last" != work-done ]; do
				hl_running "$pid" || die "$s, guest $k of $n: QEMU ended before work-done: $(tail -n 3 "$con")"
				[ $(($(date +%s) - start)) -le "$timeout_s" ] || die "$s, guest $k of $n: no work-done within $timeout_s s"
				new=$(tr -d '\r' <"$con" | sed -n 's/^anonsim-phase \([a-z-]*\)$/\1/p')
				cnt=$(echo "$new" | grep -c .)
				if [ "$cnt" -gt "$seen" ]; then
					hl_freeze "$fz" || die "cannot freeze guest $k"
					last=$(echo "$new" | sed -n "${cnt}p")
					[ $((cnt - seen)) -eq 1 ] ||
						echo "qemu_validate: warning: $s, guest $k: $((cnt - seen)) markers at once, measured at $last" >&2
					seen=$cnt
					point "$s" "$n" "$k" "$last" "$(ram_of "$pid")" "$(cache_of)"
					[ "$last" = work-done ] || echo THAWED >"$fz/freezer.state"
				else
					sleep 0.1
				fi
			done
			k=$((k + 1))
		done
		# the end: every guest, frozen at its work-done
		c=$(cache_of)
		k=1
		for pid in $pids; do
			point "$s" "$n" "$k" end "$(ram_of "$pid")" "$c"
			k=$((k + 1))
		done
		hl_umls_kill
		hl_memcg_close
	done
done

t=$(($(date +%s) - t0))
{
	echo "Real QEMU guests against the model (RAM: resident pages of each guest's memfd,"
	echo "within 5 %; cache: the image's pages in the host page cache, within 2 %)"
	cat "$w/table.txt"
	echo "$misses point(s) beyond tolerance; $t s"
} >"$w/report.txt"
cat "$w/report.txt"
if [ -n "$out" ]; then
	cp "$w/report.txt" "$out/table.txt" && cp "$w/points.csv" "$out/points.csv" &&
		cp "$w"/console-*.log "$w/rec/console.log" "$out/" 2>/dev/null
fi
[ "$misses" -eq 0 ] || exit 4
exit 0
