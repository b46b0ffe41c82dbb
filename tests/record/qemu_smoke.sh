#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Record a real QEMU guest (TCG, the Debian cloud kernel, a busybox
# initramfs) reading a 4 MiB file of an ext4 disk, then freeing it, end
# to end: the trace passes anonsim's own check, holds the guest's reads
# with their pages in its RAM, exactly the file's bytes read from the
# file's blocks, the RAM free page reporting gave back once the guest
# dropped its caches, and the footprint, which replay matches for RAM
# and, within 2 %, for the page cache;
# and the set-ups the recorder cannot record are refused with exit
# status 4.
# Skips (77) when not on Linux, or qemu-system-x86_64, the image tools or
# the kernel package are missing; with QEMU_REQUIRED=1 each of those is a
# failure instead.  As root (and not ANONSIM_TESTS_UNPRIVILEGED=1) QEMU
# runs in a memory cgroup of its own and its host events are checked too.
. "${top_srcdir:-.}/tests/lib.sh"

rec=$top_srcdir/src/record
tools=$top_builddir/src/record
PATH=$PATH:/sbin:/usr/sbin
[ "$(uname -s)" = Linux ] || qemu_skip "the recorder needs a Linux host"
command -v qemu-system-x86_64 >/dev/null 2>&1 || qemu_skip "qemu-system-x86_64 is not installed (Debian: qemu-system-x86)"
command -v mke2fs >/dev/null 2>&1 || qemu_skip "mke2fs (e2fsprogs) is not installed"
command -v debugfs >/dev/null 2>&1 || qemu_skip "debugfs (e2fsprogs) is not installed"
command -v busybox >/dev/null 2>&1 || qemu_skip "busybox (busybox-static) is not installed"
[ -x "$tools/anonsim-rec-host" ] && [ -f "$tools/qemu_preload.so" ] &&
	[ -x "$tools/kpage-sampler" ] || qemu_skip "the recorder was not built"

# stopped by a signal: the EXIT trap of tests/lib.sh removes $tmp, after
# the recorder, which stops QEMU, has ended
recorder=
stop() {
	[ -z "$recorder" ] || { kill -TERM "$recorder" 2>/dev/null; wait "$recorder" 2>/dev/null; }
	rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- the guest: kernel package (QEMU_KERNEL_CACHE keeps it between runs) ----------
cache=${QEMU_KERNEL_CACHE:-$tmp/guest}
sh "$rec/images/mkguest-qemu.sh" --sampler "$tools/kpage-sampler" --file blob=4M \
	--cache "$cache" "$tmp/guest" >"$tmp/files" 2>"$tmp/mkguest.err"
case $? in
0) ;;
2) qemu_skip "no kernel package: $(cat "$tmp/mkguest.err")" ;;
*) fail "mkguest-qemu.sh: $(cat "$tmp/mkguest.err")"; finish ;;
esac
expect_match "$(cat "$tmp/files")" '^data/blob 4194304$'
g=$tmp/guest
disk_bytes=$(stat -c %s "$g/disk.img")
expect_match "$disk_bytes" '^20971520$'	# the file and 16 MiB

# the blocks of the file on the disk, one a line
debugfs -R "blocks /data/blob" "$g/disk.img" 2>/dev/null | tr ' ' '\n' | sed '/^$/d' >"$tmp/blocks"
expect_match "$(grep -c '' "$tmp/blocks")" '^1024$'

# --root: no disk, an initramfs that switch_roots into the Debian image
# on /dev/vda (what the shipped QEMU traces boot; no QEMU run here)
expect_status 0 sh "$rec/images/mkguest-qemu.sh" --root --cache "$cache" "$tmp/rootguest"
[ -s "$tmp/rootguest/vmlinuz" ] && [ ! -e "$tmp/rootguest/disk.img" ] ||
	fail "mkguest-qemu.sh --root: not a kernel without a disk: $(ls "$tmp/rootguest")"
mkdir "$tmp/rootfs"
(cd "$tmp/rootfs" && gzip -dc "$tmp/rootguest/initrd.img" | busybox cpio -i -d 2>/dev/null)
expect_match "$(cat "$tmp/rootfs/init")" 'exec switch_root /newroot /sbin/anonsim-init'
expect_match "$(tr '\n' ' ' <"$tmp/rootfs/lib/modules/order")" 'virtio_pci\.ko .*virtio_blk\.ko'
expect_status 1 sh "$rec/images/mkguest-qemu.sh" --root --file x=4K "$tmp/rootguest2"

# ---- the set-ups it refuses, before anything runs -----------------------------
qemu="qemu-system-x86_64 -kernel $g/vmlinuz"
expect_status 4 sh "$rec/uml/anonsim-record" --vmm qemu --tools "$tools" -o "$tmp/no.trace" -- \
	$qemu -m 256M -drive file="$g/disk.img",format=raw
expect_match "$err" 'guest RAM is anonymous memory'
expect_status 4 sh "$rec/uml/anonsim-record" --vmm qemu --tools "$tools" -o "$tmp/no.trace" -- \
	$qemu -object memory-backend-memfd,id=m,size=256M -machine q35,memory-backend=m \
	-drive file="$g/disk.img",format=raw -chardev socket,id=c,path="$tmp/sock" \
	-device vhost-user-blk-pci,chardev=c
expect_match "$err" 'vhost-user-blk-pci: another process does its I/O'
[ ! -e "$tmp/no.trace" ] || fail "a refused set-up wrote a trace"

# ---- the recording ----------------------------------------------------------------
memcg=--no-memcg
as_root && [ -f /sys/fs/cgroup/memory/memory.stat ] && memcg=
nice -n 10 sh "$rec/uml/anonsim-record" --vmm qemu --tools "$tools" --timeout 180 $memcg \
	--keep "$tmp/raw" -o "$tmp/q.trace.gz" -- \
	qemu-system-x86_64 -nodefaults -no-user-config -display none -serial stdio -no-reboot \
	-accel tcg,tb-size=64 -object memory-backend-memfd,id=m,size=256M \
	-machine q35,memory-backend=m -m 256M \
	-kernel "$g/vmlinuz" -initrd "$g/initrd.img" -append "console=ttyS0 quiet panic=-1 anonsim.wait=3" \
	-drive file="$g/disk.img",format=raw,if=virtio,cache=writeback,aio=threads \
	-device virtio-balloon-pci,free-page-reporting=on \
	>"$tmp/rec.out" 2>"$tmp/rec.err" &
recorder=$!
wait "$recorder"
st=$?
recorder=
[ "$st" -eq 0 ] || { fail "the recorder exited $st: $(cat "$tmp/rec.err")"; finish; }
[ -s "$tmp/q.trace.gz" ] || { fail "no trace written"; finish; }
gzip -dc "$tmp/q.trace.gz" >"$tmp/q.trace"
t=$tmp/q.trace
# the kept logs merge again into the same trace (--from-logs)
expect_status 0 sh "$rec/uml/anonsim-record" --vmm qemu --from-logs "$tmp/raw" -o "$tmp/again.trace"
cmp -s "$t" "$tmp/again.trace" || fail "--from-logs of the kept logs wrote another trace"

# the header, exactly
version=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9]*\.[0-9]*\).*/\1/p')
expect_match "$(sed -n 1p "$t")" '^anonsim-trace 2$'
expect_match "$(grep '^memory ' "$t")" '^memory 268435456$'
expect_match "$(grep '^device ' "$t")" '^device disk0 size=20971520 backing=sha256:[0-9a-f]{64}$'
expect_match "$(grep '^vmm ' "$t")" "^vmm qemu $version\$"
expect_match "$(grep '^recorder ' "$t")" 'ram=memfd residency-interval-ms=10 guest-interval-ms=50 '

# the events: the one mapping of all RAM at offset 0, the init's phases,
# transfers inside the disk and RAM (65536 pages), touches and frees
body=$(sed '1,/^events$/d' "$t")
expect_match "$(printf '%s\n' "$body" | awk '$2 == "mmap" { print $4, $5 }' | tr '\n' ' ')" '^268435456 0 $'
phases=$(printf '%s\n' "$body" | awk '$2 == "phase" { printf "%s ", $3 }')
# a guest that never reached its work says why on its console
[ "$phases" = "boot-done read-done work-done " ] ||
	echo "the guest's console, last lines: $(tail -n 15 "$tmp/rec.out" "$tmp/raw/console.log" 2>/dev/null)"
expect_match "$phases" '^boot-done read-done work-done $'
bad=$(printf '%s\n' "$body" | awk -v disk="$disk_bytes" '
	($2 == "read" || $2 == "write") && ($4 + $5 > disk || $6 + int(($5 + 4095) / 4096) > 65536) { print "bad transfer: " $0 }
	($2 == "touch" || $2 == "free") && $3 + $4 > 65536 { print "bad range: " $0 }' | head -n 3)
[ -z "$bad" ] || fail "$bad"
for kind in read touch free; do
	n=$(printf '%s\n' "$body" | awk -v k=$kind '$2 == k { n++ } END { print n + 0 }')
	[ "$n" -gt 0 ] || fail "no $kind events"
done
# the bytes read from the file's blocks: the file, once
fileread=$(printf '%s\n' "$body" | awk -v bl="$tmp/blocks" '
	BEGIN { while ((getline b < bl) > 0) blk[b] = 1 }
	$2 == "read" {
		for (b = int($4 / 4096); b * 4096 < $4 + $5; b++) {
			if (!(b in blk)) continue
			lo = b * 4096 > $4 ? b * 4096 : $4
			hi = (b + 1) * 4096 < $4 + $5 ? (b + 1) * 4096 : $4 + $5
			n += hi - lo
		}
	}
	END { print n + 0 }')
expect_match "$fileread" '^4194304$'
# ... all of them between the phases around the reading
expect_match "$(printf '%s\n' "$body" | awk -v bl="$tmp/blocks" '
	BEGIN { while ((getline b < bl) > 0) blk[b] = 1 }
	$2 == "phase" { ph = $3 }
	$2 == "read" && (int($4 / 4096) in blk) { print ph }' | sort -u | tr '\n' ' ')" '^boot-done $'
# free page reporting: RAM given back (punched); when is the guest's
# (2 s after a block is freed, later on a loaded host): at least once
[ "$(printf '%s\n' "$body" | awk '$2 == "discard" { n++ } END { print n + 0 }')" -gt 0 ] ||
	fail "no discard: free page reporting gave nothing back"
# the footprint at the end: RAM, and the page cache holds the file at least
expect_match "$(printf '%s\n' "$body" | tail -n 2 | awk '{ print $2, $3 }' | tr '\n' ' ')" \
	'^footprint tmpfs footprint cache:disk0 $'
cached=$(printf '%s\n' "$body" | awk '$2 == "footprint" && $3 == "cache:disk0" { print $4 }')
[ "$cached" -ge 1024 ] && [ "$cached" -le 5120 ] || fail "cache:disk0 $cached pages: not between the file's 1024 and the disk's 5120"
if [ -z "$memcg" ]; then
	n=$(printf '%s\n' "$body" | awk '$2 == "host" { n++ } END { print n + 0 }')
	[ "$n" -gt 0 ] || fail "no host events from QEMU's memory cgroup"
	expect_match "$(grep '^recorder ' "$t")" 'host-memory=memcg$'
else
	echo "host events not checked: they need root and the cgroup v1 memory controller"
fi

# the project's own reader, and replay's RAM against the RAM measured (the
# touches come from the residency samples: a difference is a recorder bug)
expect_status 0 "$ANONSIM" trace check "$tmp/q.trace.gz"
"$ANONSIM" fidelity "$tmp/q.trace.gz" >"$tmp/fid" 2>&1
st=$?
[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || fail "fidelity exited $st: $(cat "$tmp/fid")"
expect_match "$(awk -v f="$tmp/q.trace.gz" '$1 == f { print $2, $3 }' "$tmp/fid")" '^([0-9]+) \1$'
# QEMU reads with preadv of several buffers, each one request to the
# host's readahead: request events, and replay's page cache within 2 %
# of the measured (3844 pages here; 2308 with a read a buffer alone)
n=$(printf '%s\n' "$body" | awk '$2 == "request" { n++ } END { print n + 0 }')
[ "$n" -gt 0 ] || fail "no request events"
expect_match "$(awk -v f="$tmp/q.trace.gz" '$1 == f { d = $6 - $5; if (d < 0) d = -d
	print d * 50 <= $5 ? "within 2 %" : $5 " measured, " $6 " predicted" }' "$tmp/fid")" '^within 2 %$'
[ "$failures" -eq 0 ] || { cat "$tmp/fid" "$tmp/rec.err" >&2; }
finish
