#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A short libFuzzer run of src/kernel against its flat-array model, seeded
# with tests/fuzz-kernel/, then every input kept there replayed (crashes
# found before stay as regression inputs).  Skipped (77) when configure
# found no clang with libFuzzer.
. "${top_srcdir:-.}/tests/lib.sh"
fuzzer=$top_builddir/tests/fuzz_kernel
[ -x "$fuzzer" ] || { echo "no libFuzzer build (configure --enable-fuzzer)"; exit 77; }

"$fuzzer" "$top_srcdir"/tests/fuzz-kernel/* >"$tmp/regress.log" 2>&1 || {
	tail -20 "$tmp/regress.log" >&2
	fail "a kept input fails again"
}
mkdir "$tmp/corpus"
"$fuzzer" -runs=20000 -max_total_time=15 -max_len=4096 -timeout=10 -artifact_prefix="$tmp/" \
	"$tmp/corpus" "$top_srcdir/tests/fuzz-kernel" >"$tmp/log" 2>&1 || {
	tail -40 "$tmp/log" >&2
	fail "the fuzzer found a disagreement: keep the input under tests/fuzz-kernel/"
}
finish
