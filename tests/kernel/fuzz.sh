#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# src/kernel against its flat-array model, allocation failures included
# (tests/kernel/fuzz.c): the inputs kept in tests/kernel/fuzz.corpus/, then a
# short libFuzzer run seeded with them (fuzz_short in tests/lib.sh).
. "${top_srcdir:-.}/tests/lib.sh"
fuzz_short kernel 4096
finish
