#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The command line itself: help, version, unknown commands and options.
. "${top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$ANONSIM" --version
expect_match "$out" '^anonsim [0-9]+\.[0-9]+\.[0-9]+$'
expect_status 0 "$ANONSIM" --help
expect_match "$out" 'selftest'
expect_status 1 "$ANONSIM"
expect_status 1 "$ANONSIM" frobnicate
expect_match "$err" "unknown command 'frobnicate'"
expect_status 0 "$ANONSIM" selftest
expect_status 1 "$ANONSIM" selftest --bogus
finish
