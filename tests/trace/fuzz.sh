#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A short libFuzzer run of the trace reader, seeded with the traces under
# tests/trace/traces/.  Skipped (77) when configure found no clang with libFuzzer.
. "${top_srcdir:-.}/tests/lib.sh"
fuzzer=$top_builddir/tests/trace/fuzz
[ -x "$fuzzer" ] || { echo "no libFuzzer build (configure --enable-fuzzer)"; exit 77; }

mkdir "$tmp/corpus" "$tmp/seeds"
find "$top_srcdir/tests/trace/traces" -type f -exec cp {} "$tmp/seeds/" \;
# new inputs go to the first directory, a scratch one; crashes to $tmp
"$fuzzer" -runs=20000 -max_total_time=15 -max_len=8192 -timeout=10 -artifact_prefix="$tmp/" \
	"$tmp/corpus" "$tmp/seeds" >"$tmp/log" 2>&1 || {
	tail -40 "$tmp/log" >&2
	fail "the fuzzer found a crash: keep it under tests/trace/traces/fuzz-regress/"
}
finish
