#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every src/kernel/*.c must build with no libc: freestanding, no system
# headers, only src/kernel/kapi.h and its siblings.
. "${top_srcdir:-.}/tests/lib.sh"
n=0
for src in "$top_srcdir"/src/kernel/*.c; do
	n=$((n + 1))
	${CC:-cc} -std=gnu11 -ffreestanding -nostdinc -fsyntax-only -Wall -Wextra -Werror \
		-Wno-unused-parameter -I"$top_srcdir/src/kernel" "$src" ||
		fail "$src does not build freestanding"
done
[ "$n" -gt 0 ] || fail "no src/kernel/*.c found"
echo "$n kernel files checked freestanding"
finish
