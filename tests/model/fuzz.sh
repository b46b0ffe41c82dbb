#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every trace check accepts replays under every strategy and variant with
# --check, without a crash or a simulator failure (tests/fuzz_replay.c):
# the inputs kept in tests/fuzz-replay/ (seeds from the shipped and test
# traces, and every crash found), then a short libFuzzer run seeded with
# them (fuzz_short in tests/lib.sh).
. "${top_srcdir:-.}/tests/lib.sh"
fuzz_short fuzz_replay fuzz-replay 8192
finish
