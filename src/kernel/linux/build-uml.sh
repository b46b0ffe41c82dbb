#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# build-uml.sh - a small User-Mode Linux 6.1 kernel with /dev/anon built in.
#
#   build-uml.sh [DIR]
#
# Unpacks Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz, or
# $LINUX_SOURCE_TARBALL) into DIR (default $ANONSIM_KERNEL_DIR, else
# ./_kernel), adds the driver as drivers/misc/devanon/ (links to this
# folder's glue and to the unchanged src/kernel files), configures
# `make ARCH=um tinyconfig` plus uml.config and builds DIR/linux.  Rerunning
# it rebuilds only what changed; DIR/.built marks the last complete build.
# $JOBS sets make's -j (default 2).
#
# Exit status: 0 built; 1 usage error; 4 a prerequisite is missing (the
# message says which); 5 the configuration or the build failed (the tail
# of DIR/build.log is shown).
set -eu

usage() {
	echo "usage: build-uml.sh [DIR]" >&2
	echo "Exit status: 0 built; 1 usage error; 4 a prerequisite is missing;" >&2
	echo "5 the configuration or the build failed." >&2
	exit 1
}
case "${1:-}" in
-h|--help) usage ;;
-*) usage ;;
esac
[ $# -le 1 ] || usage

here=$(cd "$(dirname "$0")" && pwd)
ref=$(cd "$here/.." && pwd)
dir=${1:-${ANONSIM_KERNEL_DIR:-_kernel}}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-2}

[ -f "$tarball" ] || {
	echo "build-uml.sh: $tarball not found (apt-get install linux-source-6.1)" >&2
	exit 4
}
for tool in make gcc flex bison bc xz; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "build-uml.sh: $tool not found (apt-get install build-essential flex bison bc xz-utils)" >&2
		exit 4
	}
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$dir/linux-source-6.1
log=$dir/build.log
start=$(date +%s)

fail() {
	echo "build-uml.sh: $1; the end of $log:" >&2
	tail -n 30 "$log" >&2
	exit 5
}

# the tree, unpacked once (a stamp marks a complete unpacking)
if [ ! -f "$dir/.unpacked" ] || [ "$tarball" -nt "$dir/.unpacked" ]; then
	rm -rf "$src" "$dir/.unpacked"
	echo "build-uml.sh: unpacking $tarball into $dir"
	tar -C "$dir" -xf "$tarball" || { echo "build-uml.sh: cannot unpack $tarball" >&2; exit 5; }
	[ -f "$src/Makefile" ] || { echo "build-uml.sh: $tarball holds no linux-source-6.1/" >&2; exit 5; }
	touch "$dir/.unpacked"
fi

# the driver: links, so that the tree compiles the very files of src/kernel
drv=$src/drivers/misc/devanon
mkdir -p "$drv"
for f in "$ref"/anon.c "$ref"/anon.h "$ref"/shmem_table.c "$ref"/shmem_table.h \
	 "$ref"/shmem_inode.c "$ref"/shmem_inode.h "$ref"/kapi.h \
	 "$here"/dev_anon.c "$here"/anon_kunit.c "$here"/devanon_uapi.h \
	 "$here"/Kbuild "$here"/Kconfig; do
	ln -sf "$f" "$drv/"
done
grep -q 'devanon/Kconfig' "$src/drivers/misc/Kconfig" ||
	sed -i 's|^endmenu|source "drivers/misc/devanon/Kconfig"\n\nendmenu|' "$src/drivers/misc/Kconfig"
grep -q 'devanon/' "$src/drivers/misc/Makefile" ||
	echo 'obj-$(CONFIG_DEVANON)		+= devanon/' >>"$src/drivers/misc/Makefile"

# the configuration: tinyconfig plus what the driver and the guest need
: >"$log"
if [ ! -f "$src/.config" ] || [ "$here/uml.config" -nt "$src/.config" ] ||
   [ "$here/Kconfig" -nt "$src/.config" ]; then
	(cd "$src" && make ARCH=um tinyconfig &&
		./scripts/kconfig/merge_config.sh -m .config "$here/uml.config" &&
		make ARCH=um olddefconfig) >>"$log" 2>&1 || fail "configuration failed"
	# every option asked for must have made it into the configuration
	sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)/\1=\2/p' "$here/uml.config" | while read -r want; do
		grep -qx "$want" "$src/.config" ||
			{ echo "build-uml.sh: $want did not survive the configuration" >>"$log"; exit 1; }
	done || fail "an option of uml.config is not in the configuration"
fi

echo "build-uml.sh: building $src/linux (make ARCH=um -j$jobs)"
(cd "$src" && nice make ARCH=um -j"$jobs") >>"$log" 2>&1 ||
	fail "the build failed"
[ -x "$src/linux" ] || fail "no $src/linux after the build"
ln -sf "$src/linux" "$dir/linux"
touch "$dir/.built"	# when the kernel last matched its sources
echo "build-uml.sh: $dir/linux built in $(($(date +%s) - start)) s"
