#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The command line itself: help, version, unknown commands and options;
# one exit-status table in every help; impossible parameters are usage errors.
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

table='5 an output could not be written, or a system failure'
for c in "" replay density fidelity reproduce selftest trace "trace gen"; do
	# shellcheck disable=SC2086
	expect_status 0 "$ANONSIM" $c --help
	expect_match "$out" "$table"
done

t=$top_srcdir/tests/model/replay/density.trace
expect_status 1 "$ANONSIM" fidelity --tmpfs-tolerance nan "$t"
expect_status 1 "$ANONSIM" fidelity --cache-tolerance inf "$t"
expect_status 1 "$ANONSIM" replay -m 0 "$t"
expect_status 1 "$ANONSIM" density -m 0 "$t"
expect_status 1 "$ANONSIM" replay --csv --json "$t"
expect_match "$err" "--csv and --json exclude each other"
# --check: the density by bisection, the points replayed in their order
expect_status 0 "$ANONSIM" density -q -s read-copy -m 256K --policy 2.4 --check "$t"
expect_match "$out" "replayed \\(bisection, in this order\\): N = 1 2 4 8 16 12 10 11$"
expect_match "$out" "density: 10 instances before the host swaps"
expect_status 0 "$ANONSIM" density -q -s read-copy -m 256K --policy 2.4 --check --every-n "$t"
expect_match "$out" "density: 10 instances before the host swaps"
finish
