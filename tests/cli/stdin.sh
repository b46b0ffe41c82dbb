#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# stdin.sh - - is standard input wherever a trace or an input file is
# read: every command that reads traces reports from it what it reports
# from the file, as trace gen its profile and reproduce its config do
# (what they name relative to the working directory); trace import reads a log (plain or gzip) from it into
# the very trace the file gives, naming it "standard input" in its
# messages; sweep --merge takes a part from it, and refuses a second -
# (standard input is read once) with status 1 and the exact message.
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "$top_srcdir" && pwd) || exit 1
boot=$src/traces/debian-boot-64M.trace.gz
logs=$src/tests/trace/import-logs
cd "$tmp" || exit 1

# the same report from the file and from standard input, its name aside
same_from_stdin() {
	# shellcheck disable=SC2086 # the command and its options are words
	expect_status 0 "$ANONSIM" $1 "$boot"
	printf '%s\n' "$out" | sed "s|$boot|-|g" >"$tmp/from-file"
	# shellcheck disable=SC2086
	"$ANONSIM" $1 - <"$boot" >"$tmp/from-stdin" 2>"$tmp/err" || fail "$1 -: $(cat "$tmp/err")"
	[ -s "$tmp/from-stdin" ] || fail "$1 -: no report"
	cmp -s "$tmp/from-file" "$tmp/from-stdin" ||
		fail "$1 -: differs: $(diff "$tmp/from-file" "$tmp/from-stdin" | head -n 4)"
}
same_from_stdin "trace check"
[ "$(cat "$tmp/from-stdin")" = "-: ok, 12270 events" ] || fail "trace check -: $(cat "$tmp/from-stdin")"
same_from_stdin "trace stat --csv"
same_from_stdin "trace cat"
same_from_stdin "replay -q -s punch --pages --csv"
same_from_stdin "density -q -s punch -m 256M --max 16 --csv"
same_from_stdin "fidelity -q --csv"
same_from_stdin "sweep -q -s read-copy -m 256M,512M"
"$ANONSIM" trace convert - boot.atr <"$boot" || fail "trace convert - boot.atr"
expect_status 0 "$ANONSIM" trace check boot.atr
[ "$out" = "boot.atr: ok, 12270 events" ] || fail "converted from standard input: $out"

# trace import: plain and gzip logs, the trace the file gives
expect_status 0 "$ANONSIM" trace import --from strace --memory 64K -o file.trace "$logs/forms-ttt.strace"
"$ANONSIM" trace import --from strace --memory 64K -o plain.trace - <"$logs/forms-ttt.strace" \
	>"$tmp/out" 2>"$tmp/err" || fail "trace import -: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "plain.trace: 30 events from standard input; 5 calls left out (see its notes)" ] ||
	fail "trace import -: $(cat "$tmp/out")"
cmp -s file.trace plain.trace || fail "trace import -: not the trace of the file"
gzip -c "$logs/forms-ttt.strace" | "$ANONSIM" trace import --from strace --memory 64K -o gz.trace - \
	>/dev/null 2>"$tmp/err" || fail "trace import - (gzip): $(cat "$tmp/err")"
cmp -s file.trace gz.trace || fail "trace import - (gzip): not the trace of the file"
"$ANONSIM" trace import --from strace --memory 64K -o bad.trace - <"$logs/forms-data.strace" \
	>/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "trace import - of a log without -e raw: not status 2"
[ "$(cat "$tmp/err")" = "anonsim trace import: standard input:2: pread64 shows its buffer's data, not its address: record with strace -e raw=pread64,pwrite64" ] ||
	fail "trace import - of a log without -e raw: $(cat "$tmp/err")"
: | "$ANONSIM" trace import --from strace --memory 64K -o empty.trace - >/dev/null 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "anonsim trace import: standard input: no pread64, pwrite64, mmap or munmap call that did something (record with anonsim-strace-record, or see anonsim trace import --help)" ] ||
	fail "trace import - of nothing: $(cat "$tmp/err")"

# a profile and a reproduce config, what they name relative to the
# working directory
cd "$src/traces" || exit 1
expect_status 0 "$ANONSIM" trace gen woody-2004.profile "$tmp/file.trace"
"$ANONSIM" trace gen - "$tmp/stdin.trace" <woody-2004.profile >"$tmp/out" 2>"$tmp/err" ||
	fail "trace gen -: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "$tmp/stdin.trace: 4388 events, 1792 pages read, 2525 touched, 0 freed, 4277 physical pages used" ] ||
	fail "trace gen -: $(cat "$tmp/out")"
cmp -s "$tmp/file.trace" "$tmp/stdin.trace" || fail "trace gen -: not the trace of the file"
expect_status 0 "$ANONSIM" reproduce -q --published-only -c reproduce.conf
printf '%s\n' "$out" | sed 's/config reproduce.conf/config -/' >"$tmp/from-file"
"$ANONSIM" reproduce -q --published-only -c - <reproduce.conf >"$tmp/from-stdin" 2>"$tmp/err" ||
	fail "reproduce -c -: $(cat "$tmp/err")"
cmp -s "$tmp/from-file" "$tmp/from-stdin" || fail "reproduce -c -: differs: $(diff "$tmp/from-file" "$tmp/from-stdin")"
cd "$tmp" || exit 1
printf 'frob 1\n' | "$ANONSIM" trace gen - x.trace >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "trace gen - of a bad profile: not status 2"
[ "$(cat "$tmp/err")" = "anonsim trace gen: standard input:1: unknown setting 'frob': expected ordering, memory, read, touch, free, readahead-kb, backing or note" ] ||
	fail "trace gen - of a bad profile: $(cat "$tmp/err")"
printf 'policy 2.6\n' | "$ANONSIM" reproduce -c - >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "reproduce -c - of a bad config: not status 2"
[ "$(cat "$tmp/err")" = "anonsim reproduce: standard input: missing setting 'profile'" ] ||
	fail "reproduce -c - of a bad config: $(cat "$tmp/err")"

# sweep --merge: a part from standard input, once
expect_status 0 "$ANONSIM" sweep -q --emit-jobs jobs -s read-copy,punch "$boot"
sh -e jobs/jobs.txt || fail "the sweep's jobs failed"
expect_status 0 "$ANONSIM" sweep --merge jobs/part-000000.csv jobs/part-000001.csv
printf '%s\n' "$out" >"$tmp/merged"
[ "$(wc -l <"$tmp/merged")" -eq 3 ] || fail "sweep --merge: $out"
"$ANONSIM" sweep --merge jobs/part-000000.csv - <jobs/part-000001.csv >"$tmp/from-stdin" 2>"$tmp/err" ||
	fail "sweep --merge with -: $(cat "$tmp/err")"
cmp -s "$tmp/merged" "$tmp/from-stdin" || fail "sweep --merge with -: differs"
expect_status 1 "$ANONSIM" sweep --merge - jobs/part-000000.csv -
[ "$err" = "anonsim sweep: - given twice: standard input is read once" ] || fail "sweep --merge - -: $err"
echo garbage | "$ANONSIM" sweep --merge jobs/part-000000.csv - >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "sweep --merge of a bad part on standard input: not status 2"
[ "$(cat "$tmp/err")" = "anonsim sweep: standard input:1: not a part of a sweep (no identity line: parts are written by anonsim sweep --job)" ] ||
	fail "sweep --merge of a bad part on standard input: $(cat "$tmp/err")"
finish
