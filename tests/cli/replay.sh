#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim replay from the command line: output forms, errors, no half-written
# series file.  Page counts of basic.trace are worked out in its header.
. "${top_srcdir:-.}/tests/lib.sh"
basic="$top_srcdir/tests/model/replay/basic.trace"

# punch on basic.trace: tmpfs 2 + cache 3 = 5 pages; mmap 2, punch 1
expect_status 0 "$ANONSIM" replay -q --csv --pages -s punch "$basic"
row=$(printf '%s\n' "$out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == 2 { print $1, $c["final_total_pages"], $c["calls_mmap"], $c["calls_punch"] }')
[ "$row" = "punch 5 2 1" ] || fail "punch row: $row"
expect_status 0 "$ANONSIM" replay -q --json -s punch "$basic"
[ "$(printf '%s\n' "$out" | jq -c '.results[] | [.strategy, .calls_punch, .final_total_mib]')" = '["punch",1,0.01953125]' ] ||
	fail "replay --json: $out"
expect_status 0 "$ANONSIM" replay -q -s devanon --variant both "$basic"
expect_match "$out" 'devanon/fixed +devanon/posted'

# a series file: a header and one line per sample, written only on success
expect_status 0 "$ANONSIM" replay -q -s read-copy --series "$tmp/s.csv" --series-step 0.00001 "$basic"
[ "$(head -n 1 "$tmp/s.csv")" = "strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,overhead_mib,total_mib,swap_used_mib" ] ||
	fail "series header: $(head -n 1 "$tmp/s.csv")"
corrupt="$top_srcdir/tests/trace/traces/corrupt/bad-crc.trace.gz"
expect_status 2 "$ANONSIM" replay -q --series "$tmp/t.csv" "$corrupt"
expect_match "$err" 'bad-crc.trace.gz: corrupt gzip stream'
[ -z "$(ls "$tmp" | grep '^t\.csv')" ] || fail "a failed replay left a series file"

# --reclaim-log: a line per modern reclaim; readahead's (nofs) writes no
# tmpfs page (the boot has no anonymous memory of its processes to write), each frees what its tmpfs and page cache columns add up to,
# and the writes add up to the report's swap-outs, strategy by strategy;
# the 2.4 policy has no such reclaim; written only on success
boot64="$top_srcdir/traces/debian-boot-64M.trace.gz"
expect_status 0 "$ANONSIM" replay -q --json --pages --reclaim-log "$tmp/r.csv" -n 6 -m 128M \
	--swap 256M -s read-copy,punch "$boot64"
[ "$(head -n 1 "$tmp/r.csv")" = "strategy,time_s,kind,nr_pages,priority,reclaimed,anon_scanned,anon_written,anon_freed,file_freed,deactivated,tmpfs_pages,inactive_file_pages,active_file_pages,active_anon_pages" ] ||
	fail "reclaim log header: $(head -n 1 "$tmp/r.csv")"
bad=$(awk -F, 'NR > 1 && (NF != 15 || ($3 != "nofs" && $3 != "full") || $5 < 0 || $5 > 12 ||
	($3 == "nofs" && $8 != 0) || $6 != $9 + $10) { print NR": "$0; exit }' "$tmp/r.csv")
[ -z "$bad" ] || fail "reclaim log line $bad"
if command -v jq >/dev/null; then
	want=$(printf '%s\n' "$out" | jq -r '.results[] | "\(.strategy) \(.swap_out_pages)"')
	got=$(awk -F, 'NR > 1 { w[$1] += $8 } END { print "read-copy " w["read-copy"]; print "punch " w["punch"] }' "$tmp/r.csv")
	[ "$got" = "$want" ] || fail "reclaim log writes: $got; swap-outs reported: $want"
fi
expect_status 0 "$ANONSIM" replay -q --policy 2.4 --reclaim-log "$tmp/r24.csv" -n 6 -m 128M "$boot64"
[ "$(wc -l <"$tmp/r24.csv")" -eq 1 ] || fail "2.4 policy: reclaim log of $(wc -l <"$tmp/r24.csv") lines"
expect_status 1 "$ANONSIM" replay --reclaim-log - "$boot64"
[ "$err" = "anonsim replay: --reclaim-log '-': expected a file name" ] || fail "--reclaim-log -: $err"
expect_status 2 "$ANONSIM" replay -q --reclaim-log "$tmp/t2.csv" "$corrupt"
[ -z "$(ls "$tmp" | grep '^t2\.csv')" ] || fail "a failed replay left a reclaim log"

# cost follows the pages a trace uses, not the sizes it declares: four
# events on 1 TiB of memory and disk replay in 256 MiB of address space
# (not under the sanitizers, which reserve terabytes for their shadow)
huge="$top_srcdir/tests/model/replay/huge.trace"
if ! grep -q __asan_init "$ANONSIM" 2>/dev/null; then
	for s in "read-copy 4 2 6" "devanon 2 2 6"; do
		set -- $s
		s=$1 pages="$2 $3 $4"
		expect_status 0 sh -c 'ulimit -v 262144 && exec "$@"' sh \
			"$ANONSIM" replay -q --csv --pages --check -s "$s" --variant fixed "$huge"
		row=$(printf '%s\n' "$out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
			NR == 2 { print $c["final_tmpfs_pages"], $c["final_cache_pages"], $c["final_total_pages"] }')
		[ "$row" = "$pages" ] || fail "$s on huge.trace: $row, expected $pages"
	done
fi

# --no-host-events: the report of the trace with its host lines taken out, its count of
# events and inputs aside (live, which runs no UML, replays none); worked out in
# host.trace's header: 6 pages of tmpfs, no overhead
host="$top_srcdir/tests/model/replay/host.trace"
grep -v '^[0-9]* host ' "$host" >"$tmp/nohost.trace"
expect_status 0 "$ANONSIM" replay -q --json --pages -s read-copy -m 32K --swap 32K --policy 2.4 --no-host-events "$host"
[ "$(printf '%s\n' "$out" | jq -c .inputs.host_events)" = false ] || fail "--no-host-events: host_events not false"
left_out=$(printf '%s\n' "$out" | jq -c '[.results[] | del(.events)]')
expect_status 0 "$ANONSIM" replay -q --json --pages -s read-copy -m 32K --swap 32K --policy 2.4 "$tmp/nohost.trace"
stripped=$(printf '%s\n' "$out" | jq -c '[.results[] | del(.events)]')
[ "$left_out" = "$stripped" ] || fail "--no-host-events: $left_out, host lines taken out: $stripped"
[ "$(printf '%s\n' "$out" | jq -c '.results[0] | [.final_tmpfs_pages, .final_overhead_pages, .swap_out_pages]')" = '[6,0,0]' ] ||
	fail "host.trace without host events: $(printf '%s\n' "$out" | jq -c '.results[0]')"

# --overhead-anon: own-anon.trace's header works out the two pages of
# the instance's process swapped first, in the inputs as given
own="$top_srcdir/tests/model/replay/own-anon.trace"
expect_status 0 "$ANONSIM" replay -q --json --pages -s read-copy -m 24K --swap 32K --policy 2.4 \
	--overhead-anon 8K "$own"
got=$(printf '%s\n' "$out" | jq -c '[.inputs.overhead_mib, .inputs.overhead_anon_mib, (.results[0] |
	.final_tmpfs_pages, .final_overhead_pages, .swap_out_pages, .first_swap_out_s)]')
[ "$got" = '[0,0.0078125,6,0,2,2e-05]' ] || fail "--overhead-anon 8K: $got"
expect_status 1 "$ANONSIM" replay --overhead-anon some "$own"
expect_match "$err" "replay: --overhead-anon 'some': expected a size such as 300K"

expect_status 2 "$ANONSIM" replay "$tmp/missing.trace"
expect_match "$err" 'missing.trace: No such file or directory'
expect_status 1 "$ANONSIM" replay --host-mem lots "$basic"
expect_match "$err" "replay: --host-mem 'lots': expected a size such as 512M"
expect_status 1 "$ANONSIM" replay -n 0 "$basic"
expect_status 1 "$ANONSIM" replay --policy 2.6 "$basic"
expect_status 1 "$ANONSIM" replay -s nosuch "$basic"
expect_status 1 "$ANONSIM" replay
expect_status 0 "$ANONSIM" replay --help
expect_match "$out" 'free-hint'
finish
