#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# src/kernel against its flat-array model, allocation failures included
# (tests/fuzz_kernel.c): the inputs kept in tests/fuzz-kernel/, then a
# short libFuzzer run seeded with them (fuzz_short in tests/lib.sh).
. "${top_srcdir:-.}/tests/lib.sh"
fuzz_short fuzz_kernel fuzz-kernel 4096
finish
