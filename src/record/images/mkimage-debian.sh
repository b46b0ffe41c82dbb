#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mkimage-debian.sh - build a Debian bookworm minbase + sysvinit ext4 image
# for User-Mode Linux with debootstrap, from the archive apt already uses.
set -eu

usage() {
	cat <<USAGE
usage: mkimage-debian.sh [--size SIZE] [--mirror URL] [--suite SUITE] IMAGE

Runs debootstrap --variant=minbase --include=sysvinit-core,procps SUITE
into a temporary root, adds a /sbin/anonsim-init script and the in-guest
sampler (if built), and writes IMAGE with mkfs.ext4 -d -E
lazy_itable_init=0,lazy_journal_init=0: inode tables and journal written
at mkfs, as an image booted once has them (with lazy initialisation the
guest's ext4lazyinit zeroes the inode tables after mount through ubd's
write-zeroes, an fallocate on the image that drops those pages from the
host page cache and that no trace event holds). Needs root.
  --size SIZE     image size for mkfs.ext4 (default 1G)
  --mirror URL    Debian mirror (default: the first deb.debian.org-like URI
                  of apt's sources, else http://deb.debian.org/debian)
  --suite SUITE   default bookworm
  --sampler FILE  static guest sampler to install as /sbin/kpage-sampler
  --include LIST  extra packages (comma separated)
  --work FILE     script to install as /anonsim-work: the init runs it
                  after boot-done (e.g. to build a program)
  --work-choice FILE
                  script to install as /anonsim-work.d/NAME (NAME: FILE's
                  name less a leading work- and a trailing .sh), repeatable:
                  the init runs it instead of /anonsim-work when the kernel
                  command line has the word anonsim.work=NAME
  --add FILE      copy FILE into the image's /root (repeatable)
USAGE
}

size=1G suite=bookworm mirror= sampler= extra= work= choices= adds=
while [ $# -gt 0 ]; do
	case $1 in
	--size) size=$2; shift 2 ;;
	--mirror) mirror=$2; shift 2 ;;
	--suite) suite=$2; shift 2 ;;
	--sampler) sampler=$2; shift 2 ;;
	--include) extra=",$2"; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--work-choice) choices="$choices $2"; shift 2 ;;
	--add) adds="$adds $2"; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "mkimage-debian.sh: unknown option $1" >&2; usage >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 1; }
img=$1

command -v debootstrap >/dev/null || { echo "mkimage-debian.sh: debootstrap not installed" >&2; exit 1; }
command -v mkfs.ext4 >/dev/null || { echo "mkimage-debian.sh: mkfs.ext4 (e2fsprogs) not installed" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "mkimage-debian.sh: debootstrap needs root" >&2; exit 1; }

if [ -z "$mirror" ]; then
	# The Debian archive apt is configured with (deb822 or one-line format).
	mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)[[:space:]]*$/\1/p' | head -n 1)
	[ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\{1,\}\(http[^[:space:]]*\/debian\)[[:space:]].*/\1/p' \
		/etc/apt/sources.list 2>/dev/null | head -n 1)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-root.XXXXXX")
trap 'rm -rf "$root"' EXIT INT TERM HUP

debootstrap --variant=minbase --include="sysvinit-core,procps$extra" \
	"$suite" "$root" "$mirror"

# The guest sampler and an init that starts it, runs rcS and powers off.
[ -z "$sampler" ] || install -m 755 "$sampler" "$root/sbin/kpage-sampler"
[ -z "$work" ] || install -m 755 "$work" "$root/anonsim-work"
for f in $choices; do
	name=${f##*/}; name=${name#work-}; name=${name%.sh}
	install -D -m 755 "$f" "$root/anonsim-work.d/$name"
done
for f in $adds; do cp "$f" "$root/root/"; done
cat >"$root/sbin/anonsim-init" <<'INIT'
#!/bin/sh
# Boot under the anonsim recorder: sample page frees, run the normal
# boot scripts, mark boot-done, run an optional workload (the kernel
# command-line word anonsim.work=NAME chooses /anonsim-work.d/NAME, else
# /anonsim-work), power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc 2>/dev/null
[ -x /sbin/kpage-sampler ] && /sbin/kpage-sampler &
/etc/init.d/rcS >/dev/null 2>&1
echo "anonsim-phase boot-done"
work=/anonsim-work
for word in $(cat /proc/cmdline); do
	case $word in
	anonsim.work=*) work=/anonsim-work.d/${word#anonsim.work=} ;;
	esac
done
if [ -f "$work" ] && [ -x "$work" ]; then
	"$work"
elif [ "$work" != /anonsim-work ]; then
	echo "anonsim-init: no workload $work" >&2
fi
echo "anonsim-phase work-done"
sync
sleep 1
halt -f -p
INIT
chmod 755 "$root/sbin/anonsim-init"
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"* 2>/dev/null || true

# Inode tables and journal initialised here, not by the guest: ext4's
# lazyinit thread would zero them after mount with REQ_OP_WRITE_ZEROES,
# which ubd turns into fallocate(ZERO_RANGE) on the image, dropping those
# pages from the host page cache behind the recorder's back.
rm -f "$img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -d "$root" "$img" "$size"
echo "mkimage-debian.sh: wrote $img"
