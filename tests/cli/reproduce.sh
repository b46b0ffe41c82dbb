#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim reproduce: the published 2004 figures from traces/woody-2004.profile
# on the host of traces/reproduce.conf.  Required: 28 +- 1, 21 +- 1 and
# 21 +- 1 MiB; 16, 20 and 20 UMLs before the host swaps.
. "${top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$ANONSIM" reproduce --published-only -c "$top_srcdir/traces/reproduce.conf"
# "strategy footprint published UMLs published ok"
check_row() {
	row=$(printf '%s\n' "$out" | awk -v s="$1" '$1 == s && NF == 6')
	[ -n "$row" ] || { fail "no row for $1 in: $out"; return; }
	printf '%s\n' "$row" | awk -v lo="$2" -v hi="$3" -v umls="$4" '
		{ exit !($2 >= lo && $2 <= hi && $4 == umls && $6 == "ok") }' ||
		fail "$1: expected $2..$3 MiB and $4 UMLs, got: $row"
}
check_row read-copy 27 29 16
check_row devanon 20 22 20
check_row punch 20 22 20
expect_match "$out" 'density gain \+25%'

# a config that names no host memory is refused with its place
printf 'profile %s\n' "$top_srcdir/traces/woody-2004.profile" > "$tmp/bad.conf"
expect_status 2 "$ANONSIM" reproduce -c "$tmp/bad.conf"
expect_match "$err" "bad.conf: 'host-mem' must be set"
printf 'profile x\nhost-mem 1G\npolicy 2.6\n' > "$tmp/bad2.conf"
expect_status 2 "$ANONSIM" reproduce -c "$tmp/bad2.conf"
expect_match "$err" "bad2.conf:3: policy '2.6': expected modern or 2.4"
expect_status 2 "$ANONSIM" reproduce -c "$tmp/missing.conf"
expect_status 1 "$ANONSIM" reproduce --frobnicate

# every number of the config parsed whole and range-checked, every
# published figure there once: the shipped config with one line changed
# (its profile named absolutely), refused with the file and line, exit 2
bad_config() {	# SED-EXPRESSION MESSAGE
	sed -e "s|^profile .*|profile $top_srcdir/traces/woody-2004.profile|" -e "$1" \
		"$top_srcdir/traces/reproduce.conf" >"$tmp/c.conf"
	expect_status 2 "$ANONSIM" reproduce -q --published-only -c "$tmp/c.conf"
	[ "$err" = "anonsim reproduce: $tmp/c.conf$2" ] || fail "config with '$1': $err"
}
line=$(grep -n '^published read-copy' "$top_srcdir/traces/reproduce.conf" | cut -d: -f1)
tol=$(grep -n '^tolerance-mib' "$top_srcdir/traces/reproduce.conf" | cut -d: -f1)
bad_config 's/^published read-copy .*/published read-copy 28 -16/' \
	":$line: published read-copy: UMLs '-16': expected 1 to 1024"
bad_config 's/^published read-copy .*/published read-copy 28 16 more/' \
	":$line: published: expected STRATEGY MIB UMLS"
bad_config 's/^published read-copy .*/published read-copy 1e999 16/' \
	":$line: published read-copy: MiB '1e999': expected a number above 0, up to 1048576"
bad_config 's/^published read-copy .*/published read-copy 28x 16/' \
	":$line: published read-copy: MiB '28x': expected a number above 0, up to 1048576"
bad_config '/^published devanon/d' ": missing setting 'published devanon MIB UMLS'"
bad_config 's/^published punch .*/published read-copy 27 16/' \
	":$((line + 2)): published read-copy is set twice (first on line $line)"
bad_config 's/^tolerance-mib .*/tolerance-mib abc/' \
	":$tol: tolerance-mib 'abc': expected MiB from 0 to 1000000"
bad_config 's/^tolerance-mib .*/tolerance-mib 1e999/' \
	":$tol: tolerance-mib '1e999': expected MiB from 0 to 1000000"
bad_config 's/^tolerance-mib .*/tolerance-mib -1/' \
	":$tol: tolerance-mib '-1': expected MiB from 0 to 1000000"

# the synthesized boot cannot be written (a full $TMPDIR: an 8 KiB tmpfs,
# as root on Linux): one message, exit 5, nothing left there; the mount is
# undone however the test ends
if as_root && [ "$(uname -s)" = Linux ] && mkdir "$tmp/full" &&
	mount -t tmpfs -o size=8k anonsim-test "$tmp/full" 2>/dev/null; then
	trap 'umount "$tmp/full"; rm -rf "$tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	expect_status 5 env TMPDIR="$tmp/full" "$ANONSIM" reproduce -q --published-only \
		-c "$top_srcdir/traces/reproduce.conf"
	expect_match "$err" "^anonsim reproduce: $tmp/full/anonsim-repro-[0-9]+\\.atr: write failed: No space left on device\$"
	[ -z "$(ls -A "$tmp/full")" ] || fail "a failed reproduce left $(ls -A "$tmp/full")"
else
	echo "not root on Linux: the full \$TMPDIR case is left out"
fi
finish
