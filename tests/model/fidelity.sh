#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fidelity: for every shipped real trace, read-copy's prediction of host
# tmpfs pages must be within 2 % of the footprint measured at recording and
# its prediction of the image's page cache within 5 % ("anonsim fidelity"
# exits 4 otherwise).  tmpfs holds by construction (touches come from host
# residency samples); the page cache is a true prediction (traces/README.md).
# Then what a trace without touches can be held to, each footprint at its
# own time (tests/model/fidelity-traces/mid-footprint.trace works it out).
. "${top_srcdir:-.}/tests/lib.sh"

set -- "$top_srcdir"/traces/debian-*.trace.gz
[ -e "$1" ] || { echo "no shipped traces"; exit 77; }
expect_status 0 "$ANONSIM" fidelity --tmpfs-tolerance 2 --cache-tolerance 5 "$@"
printf '%s\n' "$out"
[ "$(printf '%s\n' "$out" | grep -c 'trace.gz')" -eq $# ] || fail "not every trace was compared"
# The QEMU guests: RAM and page cache to 2 %, as the QEMU issue asks
set -- "$top_srcdir"/traces/qemu-*.trace.gz
if [ -e "$1" ]; then
	expect_status 0 "$ANONSIM" fidelity --tmpfs-tolerance 2 --cache-tolerance 2 "$@"
	printf '%s\n' "$out"
	[ "$(printf '%s\n' "$out" | grep -c 'trace.gz')" -eq $# ] || fail "not every QEMU trace was compared"
fi
set -- "$top_srcdir"/traces/debian-*.trace.gz

# a footprint held at its own time; tmpfs not held without touch events
mid="$top_srcdir/tests/model/fidelity-traces/mid-footprint.trace"
expect_status 0 "$ANONSIM" fidelity "$mid"
expect_match "$out" 'mid-footprint.trace +- +- +- +3 +3 +\+0\.0%'
expect_match "$out" '\(tmpfs not held: the trace has no touch events\)'
expect_status 0 "$ANONSIM" fidelity --cache-only "$1"
expect_match "$out" '\(tmpfs not held: --cache-only\)'
expect_status 2 "$ANONSIM" fidelity "$top_srcdir/tests/model/replay/basic.trace"
expect_match "$err" "basic.trace: no footprint it can be held to"
finish
