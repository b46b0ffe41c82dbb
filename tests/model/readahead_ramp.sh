#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The readahead ramp against the host, read by read: for each stream of
# tests/model/readahead-patterns/ramp-FIRST-COUNT.steps (COUNT single-page
# reads from page FIRST of a 1 GiB image, 8192 KiB window), the page cache
# the model holds after every read equals what the host's page cache held
# after the same pread (src/record/measure-readahead.sh --ramp, which
# counts folios still being read, as readahead adds them).  A check at the
# end alone would miss a window that comes late and catches up.
. "${top_srcdir:-.}/tests/lib.sh"

n=0
for steps in "$top_srcdir"/tests/model/readahead-patterns/ramp-*.steps; do
	name=${steps##*/}
	name=${name%.steps}
	first=${name#ramp-}
	count=${first#*-}
	first=${first%-*}
	n=$((n + 1))
	# one read a millisecond; the series samples every millisecond
	{
		printf 'anonsim-trace 1\npage-size 4096\nmemory 16777216\n'
		printf 'device ubda size=1073741824 backing=readahead-probe\n'
		printf 'readahead-kb 8192\nevents\n'
		awk -v f="$first" -v c="$count" 'BEGIN { for (i = 1; i <= c; i++)
			printf "%d read ubda %d 4096 %d\n", i * 1000, (f + i - 1) * 4096, i % 4096 }'
	} >"$tmp/$name.trace"
	expect_status 0 "$ANONSIM" replay -q -s read-copy --series "$tmp/$name.csv" \
		--series-step 0.001 "$tmp/$name.trace"
	# both as the pages cached after each read 1..COUNT; compare them all
	awk -F, -v c="$count" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cache_mib") k = i; next }
		{ r = int($2 * 1000 + 0.5); if (r >= 1 && r <= c) p[r] = $k * 256 }
		END { for (r = 1; r <= c; r++) { if (r in p) last = p[r]; print r, last } }' \
		"$tmp/$name.csv" >"$tmp/$name.model"
	awk -v c="$count" '/^#/ { next } { p[$1] = $2 }
		END { for (r = 1; r <= c; r++) { if (r in p) last = p[r]; print r, last } }' \
		"$steps" >"$tmp/$name.host"
	worst=$(paste "$tmp/$name.host" "$tmp/$name.model" | awk '
		{ d = $4 - $2; if (d < 0) d = -d; if (d > w) { w = d; at = $1; h = $2; m = $4 } }
		END { if (w) printf "read %d: host %d, model %d", at, h, m }')
	[ "$(wc -l <"$tmp/$name.model")" -eq "$count" ] || fail "$name: the model's series does not cover $count reads"
	[ -z "$worst" ] || fail "$name: the page cache differs from the host's, most at $worst"
done
[ "$n" -ge 2 ] || fail "only $n ramps found"
echo "$n readahead ramps: the model holds the host's page cache after every read"
finish
