#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim trace import --from strace: a hand-made log worked out event by
# event, and the log strace made of a real UML boot here (busybox image,
# mem=64M; tests/trace/import-logs/README has how), counted independently with awk.
. "${top_srcdir:-.}/tests/lib.sh"
logs="$top_srcdir/tests/trace/import-logs"

# the hand-made log: two processes out of order, a call split over two
# lines, a vector read, a failed read, a read outside physical memory, a
# 4136-byte header read, a write, mappings of the memory file and others
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/h.trace" \
	"$logs/handmade.strace"
expect_match "$out" "h.trace: 6 events from .*handmade.strace; 4 calls left out"
"$ANONSIM" trace cat "$tmp/h.trace" | sed '1,/^events$/d' >"$tmp/h.events"
cat >"$tmp/h.want" <<'WANT'
0 mmap 0x60000000 67108864 0
200 read ubda 0 4096 16
300 read ubda 4096 8192 100
1400 write ubda 512 512 16
1700 mmap 0x64800000 4096 4096
1800 munmap 0x64800000 4096
WANT
cmp -s "$tmp/h.events" "$tmp/h.want" || fail "hand-made events: $(cat "$tmp/h.events")"
"$ANONSIM" trace cat "$tmp/h.trace" >"$tmp/h.text"
expect_match "$(grep '^device' "$tmp/h.text")" '^device ubda size=1048576 backing=strace-fd5$'
expect_match "$(grep '^note left' "$tmp/h.text")" \
	'left out: 1 preadv/pwritev calls, 1 failed calls, 1 transfers outside physical memory \(from 0x60000000\), 1 breaking'
expect_match "$(grep '^note imported' "$tmp/h.text")" 'no touch or free events'

# the real boot: every pread64/pwrite64 into physical memory in whole
# sectors becomes an event; the memory file's 83 shared mappings too, after
# the mapping of physical memory strace attached too late to see (84)
real="$logs/uml-busybox-boot.strace.gz"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M \
	--device 14=16M:busybox-image --readahead 8192 -o "$tmp/boot.atr.gz" "$real"
want=$(gzip -dc "$real" | awk '
function hex(s,   i, v) {
	if (s !~ /^0x/) return s + 0
	for (i = 3; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
/unfinished \.\.\.>/ { if ($0 ~ /p(read|write)64\(/) { p = $0; sub(/ <unfinished.*/, "", p); pend[$1] = p }; next }
/resumed>/ { if (!($1 in pend)) next; r = $0; sub(/.*resumed>/, "", r); s = pend[$1] r; delete pend[$1] }
!/resumed>/ { s = $0 }
s ~ /p(read|write)64\(/ {
	c = s; sub(/.*p(read|write)64\(/, "", c); k = s ~ /pread64\(/ ? "read" : "write"
	gsub(/[(),=]/, " ", c); split(c, a, " ")
	addr = hex(a[2]); off = hex(a[4]); ret = hex(a[5])
	if (addr >= 1610612736 && addr < 1610612736 + 67108864 && !(off % 512) && !(ret % 512)) n[k]++
}
{ s = "" }
END { printf "read: %d write: %d", n["read"], n["write"] }')
got=$("$ANONSIM" trace stat "$tmp/boot.atr.gz" | awk '$1 == "read:" && NF == 2 { r = $2 } $1 == "write:" && NF == 2 { w = $2 }
	$1 == "mmap:" { m = $2 } END { printf "read: %s write: %s mmap: %s", r, w, m }')
[ "$got" = "$want mmap: 84" ] || fail "real boot: $got, expected $want mmap: 84"
"$ANONSIM" trace cat "$tmp/boot.atr.gz" >"$tmp/boot.text"
expect_match "$(sed -n '/^events$/{n;p;}' "$tmp/boot.text")" '^0 mmap 0x60000000 67108864 0$'
expect_match "$(grep '^note the mapping' "$tmp/boot.text")" 'not in the log: assumed at time 0'
[ "$(grep -c '^note the mapping' "$tmp/h.text")" = 0 ] || fail "the hand-made log maps its memory itself"
expect_status 0 "$ANONSIM" trace check "$tmp/boot.atr.gz"
# no readahead: the page cache is the distinct device pages read
distinct=$("$ANONSIM" trace stat "$tmp/boot.atr.gz" | sed -n 's/^read ubda: .*, \([0-9]*\) distinct pages$/\1/p')
cache=$("$ANONSIM" replay -q --csv --pages -s read-copy --readahead 0 "$tmp/boot.atr.gz" |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i } NR == 2 { print $k["final_cache_pages"] }')
[ -n "$distinct" ] && [ "$cache" = "$distinct" ] || fail "page cache $cache, distinct pages read $distinct"

# errors
sed 's/pread64(0x5, 0x60010000,/pread64(5, "\\\\0\\\\0"...,/' "$logs/handmade.strace" >"$tmp/data.strace"
expect_status 2 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.trace" "$tmp/data.strace"
expect_match "$err" "data.strace:3: pread64 shows its buffer's data, not its address: record with strace -e raw=pread64,pwrite64"
expect_status 1 "$ANONSIM" trace import --from strace -o "$tmp/x.trace" "$logs/handmade.strace"
expect_match "$err" "--memory SIZE is required"
expect_status 1 "$ANONSIM" trace import --from ltrace --memory 64M -o "$tmp/x.trace" "$logs/handmade.strace"
expect_match "$err" "--from ltrace: the one kind of log there is is strace"
expect_status 1 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.txt" "$logs/handmade.strace"
expect_match "$err" "-o OUT is required, ending in .trace"
sed 's/MAP_SHARED|MAP_FIXED, 3, 0x1000/MAP_SHARED|MAP_FIXED, 7, 0x1000/' "$logs/handmade.strace" >"$tmp/two.strace"
expect_status 1 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.trace" "$tmp/two.strace"
expect_match "$err" "two.strace:12: descriptors 3 and 7 both map a file shared: say which is the memory file \(--memory-fd\)"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M --memory-fd 7 -o "$tmp/x.trace" "$tmp/two.strace"
# descriptor 7's one mapping, and physical memory's, which 7 never maps at 0
expect_match "$(grep -c mmap "$tmp/x.trace")" '^2$'
expect_status 2 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.trace" "$tmp/none.strace"
expect_match "$err" "none.strace: No such file or directory"
[ ! -e "$tmp/x.txt" ] || fail "a refused import left its output"
finish
