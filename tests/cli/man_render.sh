#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every man page renders: groff with all its warnings (-ww) says nothing,
# and no word is glued to a closing parenthesis before it, as an
# alternating macro (.BR X ), and ...) glues its arguments.  Skipped (77)
# without groff.
. "${top_srcdir:-.}/tests/lib.sh"
command -v groff >/dev/null 2>&1 || { echo "no groff (Debian: groff-base)"; exit 77; }
n=0
for page in "$top_srcdir"/doc/*.[1-9]; do
	n=$((n + 1))
	groff -man -Tutf8 -ww -z "$page" 2>"$tmp/warnings"
	[ ! -s "$tmp/warnings" ] || fail "$page: groff warns: $(cat "$tmp/warnings")"
	groff -man -Tascii -P-c -P-b -P-u "$page" 2>/dev/null >"$tmp/text"
	[ -s "$tmp/text" ] || fail "$page renders empty"
	grep -nE '\)[,;.:]?[A-Za-z]' "$tmp/text" >"$tmp/glued" &&
		fail "$page: words glued together: $(cat "$tmp/glued")"
done
[ "$n" -ge 2 ] || fail "only $n man pages under doc/"
finish
