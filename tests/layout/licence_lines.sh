#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every source file carries its licence in an SPDX line near its top
# (README, Licence): C, shell, awk, gnuplot, the build and packaging
# files, the bash completion.
. "${top_srcdir:-.}/tests/lib.sh"

n=0
for f in $(cd "$top_srcdir" && find src tests bench plots include doc/examples \
	\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.awk' -o -name '*.gp' \
	   -o -name '*.in' -o -name anonsim-record -o -name '*.bash-completion' \) -type f | sort) \
	Makefile.am configure.ac quickstart.sh .ci/run anonsim.pc.in debian/rules \
	debian/tests/replay-shipped-trace debian/tests/build-example; do
	[ -f "$top_srcdir/$f" ] || continue
	n=$((n + 1))
	head -n 3 "$top_srcdir/$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' ||
		fail "$f: no SPDX-License-Identifier line in its first three lines"
done
[ "$n" -gt 80 ] || fail "only $n source files found"
echo "$n files carry their licence"
finish
