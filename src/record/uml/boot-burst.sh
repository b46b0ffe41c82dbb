#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# boot-burst.sh - what the host memory a booting User-Mode Linux holds is
# made of, sampled at a fine interval through one boot in a memory cgroup.
set -u
HL_NAME=boot-burst
here=$(cd "$(dirname "$0")" && pwd)
rec=$(cd "$here/.." && pwd)	# the shared recorder: its scripts and built tools
. "$rec/hostlib.sh"

usage() {
	cat <<USAGE
usage: boot-burst.sh [options] -i IMAGE -o CSV

Boots one UML (linux mem=MEM ubd0=DISK root=/dev/ubda rw init=INIT
con=null con0=fd:0,fd:1 under setarch -R, as density-real.sh does) in a
memory cgroup without limit, on a fresh copy of IMAGE (or a fresh
copy-on-write layer over it, -l cow), and every INTERVAL seconds until
the guest prints "anonsim-phase work-done" writes one row of CSV:

  t_s         seconds since UML started
  usage_kib   memory.usage_in_bytes
  kmem_kib    memory.kmem.usage_in_bytes (kernel memory: page tables,
              kernel stacks, slab; part of usage)
  rss_kib     memory.stat rss (anonymous memory, not tmpfs)
  cache_kib   memory.stat cache (page cache and tmpfs)
  shmem_kib   memory.stat shmem (UML's memory file)
  mapped_kib  memory.stat mapped_file
  procs       host processes of the cgroup (UML and its guest processes)
  threads     their threads (each has a kernel stack)
  pte_kib     the sum of their VmPTE (/proc/PID/status)
  anon_kib    the sum of their RssAnon
  host_kib    usage - cache: what no trace sees (rss + kernel memory)

and at the end a summary on standard error: the peak of host_kib, when,
and what it was made of, beside the figures at work-done.

  -i, --image FILE    the image (mkimage-busybox.sh or mkimage-debian.sh)
  -l, --layout L      private (default) or cow
  -o, --output CSV    where the samples go
      --interval S    seconds between samples (default: 0.02)
      --mem SIZE      UML memory, mem= (default: 64M)
      --init PATH     the guest's init (default: /sbin/anonsim-init)
      --uml PATH      the UML binary (default: /usr/bin/linux)
      --timeout S     most seconds to work-done (default: 300)
  -d, --dir DIR       scratch directory's parent, on a disk filesystem
                      (default: \$TMPDIR, else /var/tmp)
      --tools DIR     the built recorder (anonsim-rec-host; default: src/record
                      of an in-tree build)
  -h, --help          this text

Everything it made (UML, cgroups, scratch) is undone at exit and on INT,
TERM and HUP.  Exit status: 0 done; 1 usage error; 5 a system or UML
failure; 77 cannot run here (not Linux, not root, no cgroup v1 memory
controller, no UML).
USAGE
}

usage_error() { hl_log "$* (see --help)"; exit 1; }
fail() { hl_log "$*"; exit 5; }

image= layout=private out= interval=0.02 mem=64M init=/sbin/anonsim-init
uml=/usr/bin/linux timeout_s=300 parent=${TMPDIR:-/var/tmp} tools=$rec
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	-i|--image|-l|--layout|-o|--output|--interval|--mem|--init|--uml|--timeout|-d|--dir|--tools)
		[ $# -ge 2 ] || usage_error "$1 needs an argument"
		case $1 in
		-i|--image) image=$2 ;;
		-l|--layout) layout=$2 ;;
		-o|--output) out=$2 ;;
		--interval) interval=$2 ;;
		--mem) mem=$2 ;;
		--init) init=$2 ;;
		--uml) uml=$2 ;;
		--timeout) timeout_s=$2 ;;
		-d|--dir) parent=$2 ;;
		--tools) tools=$2 ;;
		esac
		shift 2 ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
done
[ -n "$image" ] || usage_error "no image (-i)"
[ -f "$image" ] || usage_error "image $image not found"
[ -n "$out" ] || usage_error "no output (-o)"
case $layout in private|cow) ;; *) usage_error "--layout: private or cow, not '$layout'" ;; esac
case $interval in ''|*[!0-9.]*) usage_error "--interval: seconds" ;; esac
case $timeout_s in ''|*[!0-9]*|0) usage_error "--timeout: seconds from 1" ;; esac
hl_to_bytes "$mem" >/dev/null || usage_error "--mem: not a size: '$mem'"
rechost=$tools/anonsim-rec-host
hl_require "$uml"
[ -x "$rechost" ] || fail "$rechost not found: build the recorder (make) or give --tools"
image=$(cd "$(dirname "$image")" && pwd -P)/$(basename "$image")
hl_traps
hl_scratch_open "$parent" || fail "cannot make a scratch directory under $parent"
hl_damon_pause "$rechost"

if [ "$layout" = private ]; then
	disk=$hl_scratch/disk.img
	cp --sparse=always "$image" "$disk" && "$rechost" evict "$disk" || fail "cannot copy $image"
else
	disk=$hl_scratch/disk.cow,$image
fi
"$rechost" evict "$image" || fail "cannot drop the page cache of $image"
cat "$uml" >/dev/null	# its page cache charged to no cgroup of the run
hl_memcg_open -1 || fail "cannot make the memory cgroup"
hl_freezer_new 1 || fail "cannot make a freezer cgroup"
con=$hl_scratch/console
echo "t_s,usage_kib,kmem_kib,rss_kib,cache_kib,shmem_kib,mapped_kib,procs,threads,pte_kib,anon_kib,host_kib" >"$out.tmp" ||
	fail "cannot write $out.tmp"
t0=$(date +%s.%N)
hl_uml_start "$hl_fz" "$con" "$uml" mem="$mem" ubd0="$disk" root=/dev/ubda rw init="$init" con=null con0=fd:0,fd:1
while :; do
	# one awk reads the cgroup's files and its processes' status
	procs=$(cat "$hl_memcg/cgroup.procs")
	files=
	for p in $procs; do files="$files /proc/$p/status"; done
	awk -v t0="$t0" -v now="$(date +%s.%N)" -v u="$(cat "$hl_memcg/memory.usage_in_bytes")" \
	    -v k="$(cat "$hl_memcg/memory.kmem.usage_in_bytes")" '
		FILENAME ~ /memory.stat$/ { if ($1 in want) s[$1] = $2; next }
		FNR == 1 { np++ }
		$1 == "Threads:" { th += $2 }
		$1 == "VmPTE:" { pte += $2 }
		$1 == "RssAnon:" { an += $2 }
		BEGIN { want["rss"]; want["cache"]; want["shmem"]; want["mapped_file"] }
		END { printf "%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", now - t0, u / 1024, k / 1024,
			s["rss"] / 1024, s["cache"] / 1024, s["shmem"] / 1024, s["mapped_file"] / 1024,
			np, th, pte, an, (u - s["cache"]) / 1024 }' \
		"$hl_memcg/memory.stat" $files 2>/dev/null >>"$out.tmp"
	grep -q 'anonsim-phase work-done' "$con" && break
	kill -0 "$hl_pid" 2>/dev/null || fail "UML ended before work-done; its console: $(tail -n 5 "$con" | tr '\n' ' ')"
	awk -v a="$t0" -v b="$(date +%s.%N)" -v m="$timeout_s" 'BEGIN { exit b - a < m ? 0 : 1 }' ||
		fail "UML did not reach work-done in $timeout_s s"
	sleep "$interval"
done
hl_umls_kill
mv "$out.tmp" "$out" || fail "cannot write $out"
awk -F, 'NR > 1 { if ($12 > peak) { peak = $12; pr = $0 } last = $0 }
	function show(what, r,   f) { split(r, f, ",")
		printf "%s at %.2f s: host %.1f MiB = rss %.1f + kmem %.1f (page tables %.1f, kernel stacks %.1f for %d threads, rest %.1f); %d processes, their RssAnon %.1f MiB; shmem %.1f MiB, usage %.1f MiB\n",
			what, f[1], f[12] / 1024, f[4] / 1024, f[3] / 1024, f[10] / 1024, f[9] * 16 / 1024, f[9],
			(f[3] - f[10] - f[9] * 16) / 1024, f[8], f[11] / 1024, f[6] / 1024, f[2] / 1024 }
	END { show("peak", pr); show("work-done", last) }' "$out" >&2
