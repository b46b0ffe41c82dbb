#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# strategy_lists.sh - -s takes a comma-separated list (with "all" among
# its names) on replay and density as on sweep and live, parsed by the
# one parser of the registry (live's too): the runs come in the list's order, each the
# same as the strategy's own run; a name that is no strategy, an empty
# one, and a strategy named twice are refused with status 1 and the
# message that says which.
. "${top_srcdir:-.}/tests/lib.sh"
boot=$top_srcdir/traces/debian-boot-64M.trace.gz

expect_status 0 "$ANONSIM" replay -q -s punch,read-copy --pages --csv "$boot"
printf '%s\n' "$out" >"$tmp/rows"
cut -d, -f1,5 "$tmp/rows" >"$tmp/both"
printf 'strategy,final_tmpfs_pages\npunch,5171\nread-copy,7472\n' >"$tmp/want"
cmp -s "$tmp/both" "$tmp/want" || fail "replay -s punch,read-copy: $(cat "$tmp/both")"
# each row is the strategy's own run
for s in punch read-copy; do
	expect_status 0 "$ANONSIM" replay -q -s $s --pages --csv "$boot"
	[ "$(printf '%s\n' "$out" | sed -n 2p)" = "$(sed -n "/^$s,/p" "$tmp/rows")" ] ||
		fail "replay -s $s: not its row of -s punch,read-copy: $out"
done
# "all" is every strategy in report order, devanon's fixed code first
expect_status 0 "$ANONSIM" replay -q -s all --csv "$boot"
[ "$(printf '%s\n' "$out" | cut -d, -f1 | tr '\n' ' ')" = "strategy read-copy devanon/fixed devanon/posted punch free-hint odirect dax " ] ||
	fail "replay -s all: $(printf '%s\n' "$out" | cut -d, -f1)"
expect_status 0 "$ANONSIM" replay -q -s writeback,none,dax --csv "$boot"
[ "$(printf '%s\n' "$out" | cut -d, -f1 | tr '\n' ' ')" = "strategy read-copy odirect dax " ] ||
	fail "replay -s writeback,none,dax: $(printf '%s\n' "$out" | cut -d, -f1)"
expect_status 0 "$ANONSIM" replay -q -s odirect,devanon --variant posted --csv "$boot"
[ "$(printf '%s\n' "$out" | cut -d, -f1 | tr '\n' ' ')" = "strategy odirect devanon/posted " ] ||
	fail "replay -s odirect,devanon: $(printf '%s\n' "$out" | cut -d, -f1)"

expect_status 0 "$ANONSIM" density -q -s punch,read-copy -m 256M --max 16 --csv "$boot"
[ "$(printf '%s\n' "$out" | awk -F, 'NR > 1 && !seen[$1]++ { printf "%s=%s ", $1, $NF }')" = "punch=12 read-copy=8 " ] ||
	fail "density -s punch,read-copy: $out"

# live reads its list with the same parser
cmds="replay density"
"$ANONSIM" --help | grep -q '^  live ' && cmds="$cmds live"
for cmd in $cmds; do
	expect_status 1 "$ANONSIM" $cmd -s punch,bogus "$boot"
	[ "$err" = "anonsim $cmd: --strategy 'bogus': expected one of read-copy, devanon, punch, free-hint, odirect, dax, writeback, writethrough, unsafe, none, directsync, or all" ] ||
		fail "$cmd -s punch,bogus: $err"
	expect_status 1 "$ANONSIM" $cmd -s punch,,devanon "$boot"
	[ "$err" = "anonsim $cmd: --strategy '': expected one of read-copy, devanon, punch, free-hint, odirect, dax, writeback, writethrough, unsafe, none, directsync, or all" ] ||
		fail "$cmd -s punch,,devanon: $err"
	expect_status 1 "$ANONSIM" $cmd -s punch,all "$boot"
	[ "$err" = "anonsim $cmd: --strategy 'punch,all': punch named twice" ] ||
		fail "$cmd -s punch,all: $err"
	# QEMU's cache modes are the strategies they name
	expect_status 1 "$ANONSIM" $cmd -s read-copy,writeback "$boot"
	[ "$err" = "anonsim $cmd: --strategy 'read-copy,writeback': read-copy (as writeback) named twice" ] ||
		fail "$cmd -s read-copy,writeback: $err"
	expect_status 1 "$ANONSIM" $cmd -s none,odirect "$boot"
	[ "$err" = "anonsim $cmd: --strategy 'none,odirect': odirect named twice" ] ||
		fail "$cmd -s none,odirect: $err"
	expect_status 1 "$ANONSIM" $cmd -s devanon,devanon "$boot"
	[ "$err" = "anonsim $cmd: --strategy 'devanon,devanon': devanon named twice" ] ||
		fail "$cmd -s devanon,devanon: $err"
done
finish
