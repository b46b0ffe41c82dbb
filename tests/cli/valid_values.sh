#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# valid_values.sh - a message refusing a value lists the values that are
# valid, from the table that defines them: the host options of every
# command that takes them, trace import's --from, the settings and words
# of a reproduce config and a profile, a trace's name, a command and a
# trace subcommand; each with its status and exact message.
. "${top_srcdir:-.}/tests/lib.sh"
boot=$top_srcdir/traces/debian-boot-64M.trace.gz

# expect STATUS MESSAGE CMD...: CMD exits STATUS with MESSAGE alone on stderr
expect() {
	want_status=$1 want_err=$2
	shift 2
	expect_status "$want_status" "$@"
	[ "$err" = "$want_err" ] || fail "$*: stderr: $err"
}

has_live=false
"$ANONSIM" --help | grep -q '^  live ' && has_live=true
for cmd in replay density sweep live; do
	case $cmd in live) $has_live || continue ;; esac
	expect 1 "anonsim $cmd: --policy '2.6': expected modern or 2.4" "$ANONSIM" $cmd --policy 2.6 "$boot"
done
for cmd in replay density sweep; do
	expect 1 "anonsim $cmd: --variant 'all': expected posted, fixed or both" \
		"$ANONSIM" $cmd --variant all "$boot"
	expect 1 "anonsim $cmd: --geometry 'sparc': expected x86_64 or i386" \
		"$ANONSIM" $cmd --geometry sparc "$boot"
	expect 1 "anonsim $cmd: --strategy 'anon': expected one of read-copy, devanon, punch, free-hint, odirect, dax, writeback, writethrough, unsafe, none, directsync, or all" \
		"$ANONSIM" $cmd --strategy anon "$boot"
done

expect 1 "anonsim trace import: --from 'ltrace': expected strace" \
	"$ANONSIM" trace import --from ltrace --memory 64M -o x.trace log
expect 1 "anonsim trace import: --from KIND is required, the kind of log: strace" \
	"$ANONSIM" trace import --memory 64M -o x.trace log
expect 1 "anonsim trace import: -o OUT is required, ending in .trace, .atr, .trace.gz or .atr.gz" \
	"$ANONSIM" trace import --from strace --memory 64M -o x.txt log
expect 1 "anonsim trace convert: $tmp/x.txt: output name must end in .trace, .atr, .trace.gz or .atr.gz" \
	"$ANONSIM" trace convert "$boot" "$tmp/x.txt"
expect 1 "anonsim trace gen: $tmp/x.txt: name must end in .trace, .atr, .trace.gz or .atr.gz" \
	"$ANONSIM" trace gen "$top_srcdir/traces/woody-2004.profile" "$tmp/x.txt"

# a reproduce config: its settings and their words
for line in "policy 2.6|policy '2.6': expected modern or 2.4" \
	"geometry sparc|geometry 'sparc': expected x86_64 or i386" \
	"share maybe|share 'maybe': expected yes or no" \
	"frob 1|unknown setting 'frob': expected profile, host-mem, swap, overhead, policy, share, geometry, max-instances, published, tolerance-mib or trace"; do
	printf 'profile x\nhost-mem 1G\n%s\n' "${line%%|*}" >"$tmp/bad.conf"
	expect 2 "anonsim reproduce: $tmp/bad.conf:3: ${line#*|}" "$ANONSIM" reproduce -c "$tmp/bad.conf"
done
printf 'memroy 64M\n' >"$tmp/bad.profile"
expect 2 "anonsim trace gen: $tmp/bad.profile:1: unknown setting 'memroy': expected ordering, memory, read, touch, free, readahead-kb, backing or note" \
	"$ANONSIM" trace gen "$tmp/bad.profile" "$tmp/x.trace"

# commands and trace subcommands
if $has_live; then commands="selftest, trace, replay, density, sweep, reproduce, fidelity or live"
else commands="selftest, trace, replay, density, sweep, reproduce or fidelity"; fi
expect 1 "anonsim: unknown command 'play': expected $commands (see anonsim --help)" "$ANONSIM" play
expect 1 "anonsim trace: unknown subcommand 'show': expected check, stat, convert, cat, list, gen or import (see anonsim trace --help)" \
	"$ANONSIM" trace show
finish
