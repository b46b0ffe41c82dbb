#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every trace check accepts replays under every strategy and variant with
# --check, without a crash or a simulator failure (tests/model/fuzz.c):
# the inputs kept in tests/model/fuzz.corpus/ (seeds from the shipped and test
# traces, and every crash found), then a short libFuzzer run seeded with
# them (fuzz_short in tests/lib.sh).
. "${top_srcdir:-.}/tests/lib.sh"
fuzz_short model 8192
finish
