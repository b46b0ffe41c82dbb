#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# src/kernel's __KERNEL__ branch (every src/kernel/*.c) and the /dev/anon
# glue compile against the configured UML 6.1 tree with W=1 and warnings as
# errors, as the objects of an external module (not linked: the driver is
# built in, since 6.1 does not export swap_free to modules); a probe with a
# warning only W=1 gives must fail the same way, so the flags are known to
# bite.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/guest/lib.sh"
need_kernel

top=$(cd "$top_srcdir" && pwd)
mkdir "$tmp/mod" "$tmp/probe"
objs=
for f in "$top"/src/kernel/*.[ch] "$top"/src/kernel/linux/*.[ch]; do
	ln -s "$f" "$tmp/mod/"
	case $f in *.c) b=${f##*/}; objs="$objs ${b%.c}.o" ;; esac
done
printf 'obj-m += devanon.o\ndevanon-y :=%s\n' "$objs" >"$tmp/mod/Kbuild"
# shellcheck disable=SC2086
expect_status 0 make -C "$ksrc" ARCH=um M="$tmp/mod" W=1 KCFLAGS=-Werror $objs
for o in $objs; do
	[ -f "$tmp/mod/$o" ] || fail "$o was not built"
done
n=$(ls "$top"/src/kernel/*.c | wc -l)
[ "$n" -ge 4 ] || fail "only $n src/kernel files"

cat >"$tmp/probe/probe.c" <<'PROBE'
#include <linux/module.h>
int anonsim_w1_probe(void) { return 0; }
MODULE_LICENSE("GPL");
PROBE
echo 'obj-m += probe.o' >"$tmp/probe/Kbuild"
expect_status 2 make -C "$ksrc" ARCH=um M="$tmp/probe" W=1 KCFLAGS=-Werror probe.o
expect_match "$err" 'no previous prototype.*-Werror=missing-prototypes'
echo "$n src/kernel files and the glue compiled with W=1 -Werror:$objs"
finish
