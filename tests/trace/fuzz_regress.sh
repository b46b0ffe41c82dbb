#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Inputs that once crashed or hung the reader: each must now be refused
# with exit status 2 and a message naming it, or accepted (0).
. "${top_srcdir:-.}/tests/lib.sh"
n=0
for f in "$top_srcdir"/tests/trace/traces/fuzz-regress/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	for sub in check stat cat; do
		"$ANONSIM" trace $sub "$f" >/dev/null 2>"$tmp/err"
		rc=$?
		case $rc in
		0) ;;
		2) grep -qF "anonsim trace $sub: $f" "$tmp/err" || fail "trace $sub $f: $(cat "$tmp/err")" ;;
		*) fail "trace $sub $f exited $rc: $(cat "$tmp/err")" ;;
		esac
	done
done
[ "$n" -gt 0 ] || fail "no regression inputs under tests/trace/traces/fuzz-regress/"
finish
