#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim trace gen: a profile over a hand-made ordering, and bad profiles.
. "${top_srcdir:-.}/tests/lib.sh"
g="$top_srcdir/tests/trace/gen-profiles"

# Pages are renumbered in order of first use: read pages 100, 101 -> 0, 1;
# touched page 7 -> 2.  The mmap covers the new memory; the free is not kept
# (free budget 0).
expect_status 0 "$ANONSIM" trace gen "$g/small.profile" "$tmp/small.trace"
expect_match "$out" '3 events, 2 pages read, 1 touched, 0 freed, 3 physical pages used'
expect_status 0 "$ANONSIM" trace cat "$tmp/small.trace"
[ "$out" = "$(cat "$g/small.expected")" ] || fail "generated trace differs: $out"

expect_status 2 "$ANONSIM" trace gen "$g/bad-key.profile" "$tmp/x.trace"
expect_match "$err" "bad-key.profile:3: unknown setting 'raed': expected ordering, memory, read, touch, free, readahead-kb, backing or note\$"
[ ! -e "$tmp/x.trace" ] || fail "a failed gen left $tmp/x.trace"

expect_status 2 "$ANONSIM" trace gen "$g/too-much.profile" "$tmp/x.trace"
expect_match "$err" 'has only 2 pages read, 2 touched, 0 freed; the profile asks for 2, 10, 0'
[ -z "$(ls "$tmp" | grep x.trace)" ] || fail "a failed gen left a file behind"

expect_status 2 "$ANONSIM" trace gen "$g/missing.profile" "$tmp/x.trace"
expect_match "$err" 'missing.profile: cannot open'
# a finished trace that cannot be put in place: one message, exit 5, no
# temporary left beside it
mkdir "$tmp/dir.trace"
expect_status 5 "$ANONSIM" trace gen "$g/small.profile" "$tmp/dir.trace"
expect_match "$err" "^anonsim trace gen: $tmp/dir.trace: cannot rename the temporary file into place: Is a directory\$"
[ "$(ls "$tmp" | grep -c '^dir\.trace')" -eq 1 ] || fail "a failed commit left $(ls "$tmp")"
[ -z "$(ls -A "$tmp/dir.trace")" ] || fail "a failed commit wrote into the directory"
# a profile's header fields are held to the trace rules with its own line
printf 'ordering %s\nmemory 1M\nread 8K\nbacking two words\n' \
	"$top_srcdir/tests/model/replay/basic.trace" >"$tmp/bad.profile"
expect_status 2 "$ANONSIM" trace gen "$tmp/bad.profile" "$tmp/x.trace"
[ "$err" = "anonsim trace gen: $tmp/bad.profile:4: backing 'two words': expected one word of printable ASCII without '#', under 256 bytes" ] ||
	fail "bad backing: $err"
printf 'ordering %s\nmemory 1M\nread 8K\nnote caf\351\n' \
	"$top_srcdir/tests/model/replay/basic.trace" >"$tmp/bad.profile"
expect_status 2 "$ANONSIM" trace gen "$tmp/bad.profile" "$tmp/x.trace"
[ "$err" = "anonsim trace gen: $tmp/bad.profile:4: note is not valid UTF-8" ] || fail "bad note: $err"
[ ! -e "$tmp/x.trace" ] || fail "a refused profile left $tmp/x.trace"
expect_status 1 "$ANONSIM" trace gen "$g/small.profile" "$tmp/x.txt"
expect_status 1 "$ANONSIM" trace gen "$g/small.profile"
finish
