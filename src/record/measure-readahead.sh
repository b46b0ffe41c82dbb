#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# measure-readahead.sh - how many pages the host's readahead brings into the
# page cache for simple read patterns, to hold anonsim's readahead model to
# (tests/model/readahead-patterns/patterns, checked by tests/model/readahead.sh).
#
# usage: measure-readahead.sh [--tools DIR] [--patterns FILE] SCRATCH_DIR
#        measure-readahead.sh [--tools DIR] --ramp FIRST COUNT SCRATCH_DIR
#
# Writes a 1 GiB file of random data in SCRATCH_DIR (on the file system
# whose readahead is to be measured), then for each pattern: drops the
# file's page cache, preads one 4 KiB page at each page number of the
# pattern on one open file, and counts the pages cached (cachestat(2):
# folios still being read count, as readahead adds them).  Prints the
# patterns file with the last column measured anew.  With --ramp, one
# stream of COUNT single-page preads from page FIRST instead, and after
# each read that changed it "READS PAGES": readahead's ramp, read by read
# (tests/model/readahead-patterns/ramp-*.steps, checked by
# tests/model/readahead_ramp.sh).  Linux only.
set -eu

tools=$(dirname "$0")
patterns=$(dirname "$0")/../../tests/model/readahead-patterns/patterns
ramp=
while [ $# -gt 1 ]; do
	case $1 in
	--tools) tools=$2; shift 2 ;;
	--patterns) patterns=$2; shift 2 ;;
	--ramp) [ $# -ge 4 ] || break; ramp="$2 $3"; shift 3 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: $0 [--tools DIR] [--patterns FILE | --ramp FIRST COUNT] SCRATCH_DIR" >&2; exit 1; }
rec="$tools/anonsim-rec-host"
[ -x "$rec" ] || { echo "$0: no $rec (build the recorder first)" >&2; exit 1; }
file="$1/anonsim-readahead.img"
trap 'rm -f "$file"' EXIT
dd if=/dev/urandom of="$file" bs=1M count=1024 status=none

dev=$(stat -c %d "$file")
ra_kb=$(cat "/sys/dev/block/$((dev / 256)):$((dev % 256))/queue/read_ahead_kb" 2>/dev/null ||
	echo unknown)
if [ -n "$ramp" ]; then
	set -- $ramp
	echo "# readahead ramp: $2 single-page preads from page $1 (measure-readahead.sh"
	echo "# --ramp $1 $2), on $(uname -sr), read_ahead_kb $ra_kb; after each read"
	echo "# that changed it: READS PAGES_CACHED"
	"$rec" evict "$file"
	awk -v f="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) print f + i }' |
		"$rec" preads --each "$file"
	exit 0
fi
echo "# measured on $(uname -sr), read_ahead_kb of the file's device: $ra_kb"
while read -r name first count step host; do
	case $name in ''|'#'*) echo "$name $first $count $step $host"; continue ;; esac
	"$rec" evict "$file"
	case $first in
	@*) "$rec" preads "$file" < "$(dirname "$patterns")/${first#@}" ;;
	*) awk -v f="$first" -v n="$count" -v s="$step" \
		'BEGIN { for (i = 0; i < n; i++) print f + i * s }' | "$rec" preads "$file" ;;
	esac
	echo "$name $first $count $step $("$rec" resident "$file")"
done < "$patterns"
