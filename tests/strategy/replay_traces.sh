#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every shipped real trace replays under every strategy with --check clean:
# exit 0 means no invariant broke that a posted defect does not explain.
. "${top_srcdir:-.}/tests/lib.sh"

set -- "$top_srcdir"/traces/*.trace.gz
[ -e "$1" ] || { echo "no shipped traces"; exit 77; }
for t in "$@"; do
	expect_status 0 "$ANONSIM" replay -q --check --csv "$t"
	n=$(printf '%s\n' "$out" | awk -F, 'NR > 1 && $NF == 0' | wc -l)
	[ "$n" -eq 7 ] || fail "$t: $n of 7 strategy rows without simulator failures"
done
finish
