#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# coverage_report.sh SRCDIR BUILDDIR: line and branch coverage of each
# folder of src/ from the gcov counters of the last runs (make coverage),
# as a table on standard output and in BUILDDIR/coverage.txt.
set -eu
# gcovr matches its filters against normalised paths: no '..' in them
srcdir=$(cd "$1" && pwd -P) builddir=$(cd "$2" && pwd -P)
: "${GCOVR:=gcovr}"
out=$builddir/coverage.txt
# gcovr's own report goes to a scratch file, never to a device: a tool
# that replaces its output file would replace the device node
scratch=$builddir/coverage-gcovr.txt
trap 'rm -f "$scratch"' EXIT
{
	printf '%-16s %-26s %s\n' folder lines branches
	for d in cli kernel kernel/user live model strategy trace util; do
		[ -d "$srcdir/src/$d" ] || continue
		"$GCOVR" -r "$srcdir" "$builddir" \
			--filter "$srcdir/src/$d/[^/]*$" --print-summary -o "$scratch" 2>/dev/null |
		awk -v d="src/$d" '
			/^lines:/ { l = $2 " " $3 " " $4 " " $5 " " $6 }
			/^branches:/ { b = $2 " " $3 " " $4 " " $5 " " $6 }
			END { printf "%-16s %-26s %s\n", d, l, b }'
	done
} | tee "$out"
