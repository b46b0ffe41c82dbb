#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The readahead model against the host: for each read pattern of
# tests/model/readahead-patterns/patterns, replay it as ubd reads of a 1 GiB image with an
# 8192 KiB window and compare the page cache the model ends with to the pages
# the host kernel held after the same preads (src/record/measure-readahead.sh).
. "${top_srcdir:-.}/tests/lib.sh"

n=0
while read -r name first count step host; do
	case $name in ''|'#'*) continue ;; esac
	n=$((n + 1))
	{
		printf 'anonsim-trace 1\npage-size 4096\nmemory 16777216\n'
		printf 'device ubda size=1073741824 backing=readahead-probe\n'
		printf 'readahead-kb 8192\nevents\n'
		case $first in
		@*) cat "$top_srcdir/tests/model/readahead-patterns/${first#@}" ;;
		*) awk -v f="$first" -v c="$count" -v s="$step" \
			'BEGIN { for (i = 0; i < c; i++) print f + i * s }' ;;
		esac | awk '{ printf "%d read ubda %d 4096 %d\n", NR, $1 * 4096, NR % 4096 }'
	} > "$tmp/$n.trace"
	expect_status 0 "$ANONSIM" replay -q --csv --pages -s read-copy "$tmp/$n.trace"
	got=$(printf '%s\n' "$out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "final_cache_pages") c = i }
		NR == 2 { print $c }')
	[ "$got" = "$host" ] || fail "$name: the model holds $got pages, the host held $host"
done < "$top_srcdir/tests/model/readahead-patterns/patterns"
[ "$n" -ge 10 ] || fail "only $n patterns read"
echo "$n read patterns: model and host agree"
finish
