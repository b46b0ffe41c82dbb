#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mkguest-qemu.sh - a small QEMU guest for the recorder, from Debian
# packages: the cloud kernel (apt-get download), a busybox initramfs with
# the virtio modules, the in-guest page-flags sampler and an init that
# reads the files of an ext4 disk, and that disk (4 KiB blocks, made by
# mke2fs -d); or, with --root, the kernel and an initramfs that boots a
# Debian image of mkimage-debian.sh.  No root needed.
set -eu

usage() {
	cat <<USAGE
usage: mkguest-qemu.sh [options] DIR
       mkguest-qemu.sh --root [--sampler FILE] [--kernel-deb FILE] [--cache DIR] DIR

Writes into DIR: vmlinuz, initrd.img and disk.img, and prints the files
the disk holds ("PATH BYTES", one a line, in the order the guest reads
them).  The guest (kernel command line console=ttyS0) loads the virtio
modules, starts /sbin/kpage-sampler (when given), prints
"anonsim-phase boot-done", mounts /dev/vda read-only, reads each file
under its data/ with cat, prints "anonsim-phase read-done", unmounts,
drops its caches, waits anonsim.wait=S seconds of the kernel command
line (default 1: free page reporting gives back what it freed about 2 s
later), prints "anonsim-phase work-done" and powers off.  After each
marker it pauses anonsim.hold=S seconds (default 0), time for a host
watching the console to stop and measure it; anonsim.disk=pmem mounts
/dev/pmem0 (a virtio-pmem device) with -o dax=always instead of /dev/vda.

  --root             no disk: the guest's disk /dev/vda is an image of
                     mkimage-debian.sh or mkimage-works.sh (ext4, its own
                     sampler and /sbin/anonsim-init); the initramfs loads
                     the virtio modules, mounts /dev/vda read-write and
                     switch_roots to /sbin/anonsim-init, which boots with
                     rcS, runs the work phase the kernel command-line word
                     anonsim.work=NAME names and powers off.  Writes
                     vmlinuz and initrd.img only
  --sampler FILE     the static in-guest sampler (kpage-sampler)
  --file NAME=SIZE   a file of SIZE bytes (K, M, G suffixes) of random data
                     on the disk under data/ (repeatable; default
                     blob=4M); SIZE a multiple of 4096
  --disk-size SIZE   size of disk.img (default: the files plus 16M)
  --kernel-deb FILE  the kernel package to use (default: the package
                     linux-image-cloud-amd64 depends on, fetched with
                     apt-get download into --cache)
  --cache DIR        where the kernel package is kept between runs
                     (default: DIR itself)
  --busybox FILE     busybox binary (default: busybox on PATH; static)

Exit status: 0 written, 1 usage or a build step failed, 2 the kernel
package could not be found or fetched.
USAGE
}

die() { echo "mkguest-qemu.sh: $*" >&2; exit "${2:-1}"; }

sampler= files= disk_size= kdeb= cache= busybox= root=
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=1; shift ;;
	--sampler) sampler=$2; shift 2 ;;
	--file) files="$files $2"; shift 2 ;;
	--disk-size) disk_size=$2; shift 2 ;;
	--kernel-deb) kdeb=$2; shift 2 ;;
	--cache) cache=$2; shift 2 ;;
	--busybox) busybox=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 1; }
out=$1
[ -z "$root" ] || [ -z "$files$disk_size" ] || die "--root makes no disk: --file and --disk-size do not apply"
[ -n "$files" ] || files=blob=4M
PATH=$PATH:/sbin:/usr/sbin

[ -n "$busybox" ] || busybox=$(command -v busybox || true)
[ -n "$busybox" ] && [ -x "$busybox" ] || die "busybox not found (Debian: busybox-static)"
if command -v file >/dev/null 2>&1 && file -L "$busybox" | grep -q 'dynamically linked'; then
	die "$busybox is dynamically linked; install busybox-static"
fi
command -v mke2fs >/dev/null 2>&1 || die "mke2fs not found (Debian: e2fsprogs)"
command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found (a Debian host is needed)" 2
[ -z "$sampler" ] || [ -x "$sampler" ] || die "sampler $sampler not found"

to_bytes() {
	case $1 in
	*[kK]) echo $(( ${1%?} * 1024 )) ;;
	*[mM]) echo $(( ${1%?} * 1048576 )) ;;
	*[gG]) echo $(( ${1%?} * 1073741824 )) ;;
	*[!0-9]*|'') return 1 ;;
	*) echo "$1" ;;
	esac
}

mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$cache" ] || cache=$out
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-qguest.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

# ---- the kernel: the package behind linux-image-cloud-amd64 -----------------
if [ -z "$kdeb" ]; then
	command -v apt-cache >/dev/null 2>&1 || die "apt-cache not found (a Debian host is needed)" 2
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || die "apt-cache knows no linux-image-cloud-amd64 (apt-get update?)" 2
	kdeb=$(ls "$cache/${pkg}_"*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$kdeb" ]; then
		# downloaded beside the work, then moved in whole: another run
		# sharing the cache never sees half a package
		mkdir "$work/dl"
		(cd "$work/dl" && apt-get download -q "$pkg" >/dev/null 2>"$work/apt.err") ||
			die "apt-get download $pkg failed: $(tail -n 1 "$work/apt.err")" 2
		kdeb=$(ls "$work/dl/${pkg}_"*.deb | tail -n 1)
		mv "$kdeb" "$cache/${kdeb##*/}.tmp$$" && mv "$cache/${kdeb##*/}.tmp$$" "$cache/${kdeb##*/}" ||
			die "cannot keep the kernel package in $cache" 2
		kdeb=$cache/${kdeb##*/}
	fi
fi
[ -f "$kdeb" ] || die "kernel package $kdeb not found" 2
dpkg-deb -x "$kdeb" "$work/k" || die "dpkg-deb -x $kdeb failed" 2
cp "$work/k"/boot/vmlinuz-* "$out/vmlinuz"
kmods=$(echo "$work/k"/lib/modules/*/kernel)

# ---- the initramfs ----------------------------------------------------------------
r=$work/root
mkdir -p "$r/bin" "$r/sbin" "$r/proc" "$r/sys" "$r/dev" "$r/mnt" "$r/tmp" "$r/lib/modules"
cp "$busybox" "$r/bin/busybox"
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$r/bin/$a"
done
[ -z "$sampler" ] || install -m 755 "$sampler" "$r/sbin/kpage-sampler"
# virtio: the cloud kernel has these as modules, each after what it needs
: >"$r/lib/modules/order"
for m in virtio/virtio_ring virtio/virtio virtio/virtio_pci_legacy_dev \
	virtio/virtio_pci_modern_dev virtio/virtio_pci ../drivers/block/virtio_blk \
	virtio/virtio_balloon nvdimm/libnvdimm nvdimm/nd_btt nvdimm/nd_pmem \
	nvdimm/nd_virtio nvdimm/virtio_pmem; do
	f=$(ls "$kmods/drivers/$m.ko"* 2>/dev/null | head -n 1 || true)
	[ -n "$f" ] || die "$(basename "$m") not in $kdeb"
	case $f in *.ko) ;; *) die "$f: compressed modules are not handled" ;; esac
	cp "$f" "$r/lib/modules/"
	basename "$f" >>"$r/lib/modules/order"
done

# Both inits start alike: the kernel's filesystems, the disk's modules.
cat >"$r/init" <<'INIT'
#!/bin/sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/order); do insmod "/lib/modules/$m"; done
INIT
if [ -n "$root" ]; then
	cat >>"$r/init" <<'INIT'
# Boot the Debian image on /dev/vda: its init runs the recorded guest.
mkdir -p /newroot
mount -t ext4 /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; poweroff -f; }
# the image's /dev holds only static nodes: the kernel's devices with it
mount --move /dev /newroot/dev
umount /sys /proc
exec switch_root /newroot /sbin/anonsim-init
INIT
else
	cat >>"$r/init" <<'INIT'
# The recorded guest: read the disk's files, free, power off.
wait_s=1 hold=0 disk=/dev/vda opts=ro,noload
for a in $(cat /proc/cmdline); do
	case $a in
	anonsim.wait=*) wait_s=${a#anonsim.wait=} ;;
	anonsim.hold=*) hold=${a#anonsim.hold=} ;;
	anonsim.disk=pmem) disk=/dev/pmem0 opts=ro,noload,dax=always ;;
	esac
done
# a phase marker, then a pause of anonsim.hold=S seconds in which a host
# that watches the console stops the guest and measures it
phase() {
	echo "anonsim-phase $1"
	sleep "$hold"
}
[ -x /sbin/kpage-sampler ] && /sbin/kpage-sampler 50 &
sleep 1
phase boot-done
# the marker's time is when the recorder reads the console: on a loaded
# host it may come late, and the reads must not overtake it
sleep 2
mount -t ext4 -o "$opts" "$disk" /mnt || echo "anonsim-init: cannot mount $disk"
for f in $(cat /mnt/files); do cat "/mnt/$f" >/dev/null; done
phase read-done
umount /mnt
echo 3 >/proc/sys/vm/drop_caches
sleep "$wait_s"
phase work-done
poweroff -f
INIT
fi
chmod 755 "$r/init"
(cd "$r" && find . | "$busybox" cpio -o -H newc 2>/dev/null) | gzip -9 -n >"$out/initrd.img"

[ -z "$root" ] || exit 0

# ---- the disk ---------------------------------------------------------------------------
d=$work/disk
mkdir -p "$d/data"
total=0
: >"$d/files"
for spec in $files; do
	name=${spec%%=*}
	case $name in ''|*[!A-Za-z0-9_.-]*) die "--file $spec: a name of letters, digits, _ . -" ;; esac
	bytes=$(to_bytes "${spec#*=}") || die "--file $spec: not a size"
	[ $((bytes % 4096)) -eq 0 ] && [ "$bytes" -gt 0 ] || die "--file $spec: a multiple of 4096"
	head -c "$bytes" /dev/urandom >"$d/data/$name"
	echo "data/$name" >>"$d/files"
	total=$((total + bytes))
done
[ -n "$disk_size" ] || disk_size=$((total / 1048576 + 16))M
rm -f "$out/disk.img"
# 4 KiB blocks (1 KiB blocks give sub-page reads); tables written now, so
# that the guest's lazy init writes none
mke2fs -q -F -t ext4 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
	-d "$d" "$out/disk.img" "$disk_size" >"$work/mke2fs.out" || die "mke2fs failed"
while read -r f; do
	echo "$f $(stat -c %s "$d/$f")"
done <"$d/files"
