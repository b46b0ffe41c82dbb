#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim trace: stat adds up the hand-made trace exactly (worked out in
# its comments), convert moves between the four forms without changing a
# thing and leaves nothing behind when it fails, usage errors exit 1.
. "${top_srcdir:-.}/tests/lib.sh"
small=$top_srcdir/tests/trace/traces/small.trace

expect_status 0 "$ANONSIM" trace check "$small"
[ "$out" = "$small: ok, 14 events" ] || fail "check: $out"
# several files: each checked, a refused one makes the status 2
basic=$top_srcdir/tests/model/replay/basic.trace
empty=$top_srcdir/tests/trace/traces/corrupt/empty.trace
expect_status 0 "$ANONSIM" trace check "$small" "$basic"
[ "$out" = "$small: ok, 14 events
$basic: ok, 4 events" ] || fail "check of two: $out"
expect_status 2 "$ANONSIM" trace check "$small" "$empty" "$basic"
[ "$out" = "$small: ok, 14 events
$basic: ok, 4 events" ] || fail "check of three, one bad: $out"
[ "$err" = "anonsim trace check: $empty: empty file" ] || fail "check of three, one bad: $err"

expect_status 0 "$ANONSIM" trace stat "$small"
cat >"$tmp/want" <<WANT
file: $small
encoding: text
version: 1
page-size: 4096
memory: 1048576 bytes, 256 pages
device 0: ubda size=65536 backing=tiny-image
device 1: ubdb size=16384 backing=swap-image cow=tiny-image
readahead-kb: 128
recorder: hand-made
notes: 1
events: 14
  read: 4
  write: 1
  touch: 1
  free: 2
  mmap: 1
  munmap: 1
  mapdup: 1
  phase: 1
  footprint: 2
  host: 0
read ubda: 3 requests, 8704 bytes, 4 pages, 2 distinct pages
written ubda: 1 requests, 512 bytes
read ubdb: 1 requests, 8192 bytes, 2 pages, 2 distinct pages
written ubdb: 0 requests, 0 bytes
read: 4 requests, 16896 bytes, 6 pages, 4 distinct pages
written: 1 requests, 512 bytes
touched: 2 pages
freed: 4 pages
duration: 45 us (first event at 0, last at 45)
WANT
printf '%s\n' "$out" | diff "$tmp/want" - >&2 || fail "stat of $small"

# text -> binary -> binary.gz -> text.gz -> text: same events, same stat
"$ANONSIM" trace cat "$small" >"$tmp/small.cat" || fail "cat"
prev=$small
for name in a.atr b.atr.gz c.trace.gz d.trace; do
	expect_status 0 "$ANONSIM" trace convert "$prev" "$tmp/$name"
	expect_status 0 "$ANONSIM" trace cat "$tmp/$name"
	printf '%s\n' "$out" | diff "$tmp/small.cat" - >&2 || fail "cat of $name differs"
	expect_status 0 "$ANONSIM" trace stat "$tmp/$name"
	printf '%s\n' "$out" | sed 1,2d >"$tmp/stat"
	sed 1,2d "$tmp/want" | diff - "$tmp/stat" >&2 || fail "stat of $name differs"
	prev=$tmp/$name
done
expect_status 0 "$ANONSIM" trace stat "$tmp/b.atr.gz"
expect_match "$out" '^encoding: binary$'
# compressed for real: gzip itself reads it back
gzip -dc "$tmp/c.trace.gz" | diff "$tmp/small.cat" - >&2 || fail "gzip -dc c.trace.gz"

# a failed convert leaves neither output nor temporary file
mkdir "$tmp/conv"
expect_status 2 "$ANONSIM" trace convert "$top_srcdir/tests/trace/traces/corrupt/truncated-record.atr" "$tmp/conv/x.trace"
expect_status 2 "$ANONSIM" trace convert "$top_srcdir/tests/trace/traces/corrupt/time-backwards.trace" "$tmp/conv/x.atr.gz"
expect_status 2 "$ANONSIM" trace convert "$tmp/missing.trace" "$tmp/conv/x.atr"
expect_match "$err" "missing.trace: No such file or directory"
expect_status 5 "$ANONSIM" trace convert "$small" "$tmp/no/such/dir/x.atr"
expect_match "$err" "x.atr: cannot create a temporary file beside it"
[ -z "$(ls "$tmp/conv")" ] || fail "failed converts left $(ls "$tmp/conv")"
# an existing output survives a failed convert untouched
cp "$small" "$tmp/conv/keep.trace"
expect_status 2 "$ANONSIM" trace convert "$top_srcdir/tests/trace/traces/corrupt/zero-count.trace" "$tmp/conv/keep.trace"
cmp -s "$small" "$tmp/conv/keep.trace" || fail "failed convert changed its output"
[ "$(ls "$tmp/conv")" = keep.trace ] || fail "failed convert left $(ls "$tmp/conv")"

# usage errors
expect_status 0 "$ANONSIM" trace --help
expect_match "$out" '^Usage: anonsim trace check \[-q\] FILE\.\.\.'
expect_status 1 "$ANONSIM" trace
expect_status 1 "$ANONSIM" trace frob "$small"
expect_match "$err" "unknown subcommand 'frob'"
expect_status 1 "$ANONSIM" trace check
expect_status 1 "$ANONSIM" trace stat "$small" extra
expect_status 1 "$ANONSIM" trace stat --bogus "$small"
expect_match "$err" "unknown option '--bogus'"
expect_status 1 "$ANONSIM" trace convert "$small"
expect_status 1 "$ANONSIM" trace convert "$small" "$tmp/conv/out.txt"
expect_match "$err" "out.txt: output name must end in .trace, .atr, .trace.gz or .atr.gz"
[ "$(ls "$tmp/conv")" = keep.trace ] || fail "usage error left $(ls "$tmp/conv")"
finish
