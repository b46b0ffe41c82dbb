#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mkimage-busybox.sh - a tiny ext2 root for User-Mode Linux, made in seconds
# with mke2fs -d from busybox-static: no network, no root needed.
set -eu

usage() {
	cat <<USAGE
usage: mkimage-busybox.sh [--sampler FILE] [--size SIZE] IMAGE

Writes IMAGE: busybox with its applet links, /sbin/anonsim-init (mounts
/proc, starts the in-guest sampler if present, does some file work, marks
boot-done, powers off) and, with --sampler, the static guest sampler as
/sbin/kpage-sampler.
  --size SIZE     image size for mke2fs (default 16M)
  --busybox FILE  busybox binary (default: busybox on PATH; must be static)
USAGE
}

size=16M sampler= busybox=
while [ $# -gt 0 ]; do
	case $1 in
	--sampler) sampler=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--busybox) busybox=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "mkimage-busybox.sh: unknown option $1" >&2; usage >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 1; }
img=$1

[ -n "$busybox" ] || busybox=$(command -v busybox || true)
[ -n "$busybox" ] && [ -x "$busybox" ] ||
	{ echo "mkimage-busybox.sh: busybox not found (Debian: busybox-static)" >&2; exit 1; }
command -v mke2fs >/dev/null 2>&1 || [ -x /sbin/mke2fs ] ||
	{ echo "mkimage-busybox.sh: mke2fs not found (Debian: e2fsprogs)" >&2; exit 1; }
if command -v file >/dev/null 2>&1 && file -L "$busybox" | grep -q 'dynamically linked'; then
	echo "mkimage-busybox.sh: $busybox is dynamically linked; install busybox-static" >&2
	exit 1
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-bb.XXXXXX")
trap 'rm -rf "$root"' EXIT INT TERM

mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/etc" "$root/data"
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done
[ -z "$sampler" ] || install -m 755 "$sampler" "$root/sbin/kpage-sampler"
# Some data the workload reads back, so the trace has ubd reads beyond boot.
dd if=/dev/urandom of="$root/data/blob" bs=1024 count=2048 2>/dev/null

cat >"$root/sbin/anonsim-init" <<'INIT'
#!/bin/sh
# Boot under the anonsim recorder: sample page frees, read and write some
# files (page cache, anonymous memory, frees), power off.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t tmpfs tmpfs /tmp
[ -x /sbin/kpage-sampler ] && /sbin/kpage-sampler 50 &
sleep 1
echo "anonsim-phase boot-done"
md5sum /data/blob >/tmp/sum
cat /data/blob /data/blob >/tmp/copy
rm /tmp/copy
sha1sum /bin/busybox >/dev/null
echo 3 >/proc/sys/vm/drop_caches
sleep 1
echo "anonsim-phase work-done"
sync
# a second up after work-done: density-real.sh freezes the UML there
sleep 1
poweroff -f
INIT
chmod 755 "$root/sbin/anonsim-init"

rm -f "$img"
mke2fs -q -F -t ext2 -d "$root" "$img" "$size"
echo "mkimage-busybox.sh: wrote $img"
