#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# punch_guest.sh - why /dev/anon rather than a memfd with
# fallocate(PUNCH_HOLE), answered in the UML guest: boots the kernel of
# make kernel ($KERNEL_DIR, its /dev/anon in it) and runs there, on the
# same traces, anonsim live --strategy punch and --strategy devanon, each
# three ways: once timed, once under strace -c -f (its system calls, all
# of them in the console: live measures and touches too; under devanon it
# touches a page with pwrite64, where UML would store through its mapping),
# once with the driver's map-count table pages sampled every 10 ms (their
# peak).  Host memory is the tmpfs pages of the memory file at the trace's
# end (live's own figure) plus, for devanon, the table pages at their
# peak.  Prints a Markdown table on standard output, and the guest's
# console to $OUT/console.txt when OUT is set.
#
# Environment (make punch-guest sets the first four): KERNEL_DIR, ANONSIM,
# GUEST (tests/guest/devanon_guest), top_srcdir; TRACES (default: the two
# shipped Debian boots).  Needs strace, mke2fs; no root.
set -u
: "${KERNEL_DIR:?run through make punch-guest}" "${ANONSIM:?run through make punch-guest}"
: "${GUEST:?run through make punch-guest}" "${top_srcdir:?run through make punch-guest}"
top=$(cd "$top_srcdir" && pwd)
traces=${TRACES:-$top/traces/debian-boot-64M.trace.gz $top/traces/debian-cow-boot-64M.trace.gz}
PATH=$PATH:/sbin:/usr/sbin
for tool in strace mke2fs setsid; do
	command -v "$tool" >/dev/null 2>&1 || { echo "punch_guest.sh: $tool not found" >&2; exit 4; }
done
[ -x "$KERNEL_DIR/linux" ] || { echo "punch_guest.sh: no kernel in $KERNEL_DIR: make kernel" >&2; exit 4; }

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/anonsim-bench.XXXXXX") || exit 5
. "$top/tests/guest/lib.sh"
trap 'guest_stop; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

head -c 16384 /dev/zero >"$tmp/disk.img"
mkdir "$tmp/scratch"
mke2fs -q -F -t ext2 "$tmp/scratch.img" 3G || exit 5
anonsim=$(cd "${ANONSIM%/*}" && pwd)/${ANONSIM##*/}
guest=$(cd "${GUEST%/*}" && pwd)/${GUEST##*/}

# in the guest, after the driver's own scenarios: each trace and strategy
cat >"$tmp/then.sh" <<EOF
echo 0 >/sys/block/ubdb/queue/read_ahead_kb || exit 1
for t in $traces; do
	name=\${t##*/}
	for s in punch devanon; do
		live() { "$anonsim" live --strategy \$s --dir "$tmp/scratch" "\$t"; }
		a=\$(date +%s%N)
		live >"$tmp/scratch/out" || echo "bench: FAIL \$s \$name"
		b=\$(date +%s%N)
		echo "bench: ms \$s \$name \$(( (b - a) / 1000000 ))"
		echo "bench: tmpfs \$s \$name \$(awk '\$1 == "end" { print \$3 }' "$tmp/scratch/out")"
		strace -f -c -o "$tmp/scratch/calls" "$anonsim" live --strategy \$s \\
			--dir "$tmp/scratch" "\$t" >/dev/null 2>&1
		awk -v s=\$s -v n=\$name '\$4 ~ /^[0-9]+\$/ {
			print "bench: calls", s, n, \$NF, \$4 }' "$tmp/scratch/calls"
		rm -f "$tmp/scratch/stop"
		( peak=0
		  while [ ! -e "$tmp/scratch/stop" ]; do
			n=\$(cat /sys/class/misc/anon/map_table_pages)
			[ "\$n" -gt "\$peak" ] && peak=\$n
			sleep 0.01
		  done
		  echo "bench: tables \$s \$name \$peak" ) &
		live >/dev/null
		touch "$tmp/scratch/stop"
		wait
	done
done
EOF

guest_boot "$guest" ubd0="$tmp/disk.img" ubd1="$tmp/scratch.img" \
	guest_scratch="$tmp/scratch" guest_then="$tmp/then.sh"
[ -n "${OUT:-}" ] && cp "$tmp/console.txt" "$OUT/console.txt"
grep -q '^bench: FAIL' "$tmp/console.txt" && { grep '^bench: FAIL' "$tmp/console.txt" >&2; exit 5; }
grep -q '^bench: tables' "$tmp/console.txt" || { echo "punch_guest.sh: the guest measured nothing (status $status)" >&2; exit 5; }

# one row per trace and strategy
awk '
$1 == "bench:" { v[$3 " " $4 " " $2 ($2 == "calls" ? " " $5 : "")] = ($2 == "calls" ? $6 : $5)
	if (!(($4) in seen)) { seen[$4] = 1; order[++nt] = $4 } }
END {
	print "| trace | strategy | tmpfs pages | table pages (peak) | host memory | fallocate | mmap | pwrite64 | system calls | time |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nt; i++) {
		for (k = 1; k <= 2; k++) {
			s = k == 1 ? "punch" : "devanon"; key = s " " order[i]
			mem = (v[key " tmpfs"] + v[key " tables"]) * 4 / 1024
			printf "| %s | %s | %d | %d | %.1f MiB | %d | %d | %d | %d | %.1f s |\n", order[i], s,
			       v[key " tmpfs"], v[key " tables"], mem, v[key " calls fallocate"],
			       v[key " calls mmap"], v[key " calls pwrite64"], v[key " calls total"],
			       v[key " ms"] / 1000
		}
	}
}' "$tmp/console.txt"
