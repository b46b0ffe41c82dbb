#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim trace import --from strace: logs strace wrote of a small program
# in each of its forms (forms-*.strace), of real UML boots here (one
# attached late, one recorded at once with the project's recorder, whose
# trace must come out again), a hand-made log of what strace writes only
# when a process dies or strace lets go, and every refusal with its exact
# message and status.  tests/trace/import-logs/README has how each was made.
. "${top_srcdir:-.}/tests/lib.sh"
logs="$top_srcdir/tests/trace/import-logs"

body() { "$ANONSIM" trace cat "$1" | sed '1,/^events$/d'; }
notes() { "$ANONSIM" trace cat "$1" | sed -n 's/^note //p'; }
# the reads, writes, mmaps and munmaps of a trace without their times
calls_of() { body "$1" | awk '$2 ~ /^(read|write|mmap|munmap)$/ { $1 = ""; sub(/^ /, ""); print }'; }

# ---- the forms strace writes its lines in -----------------------------------------
# forms.c's calls, worked out from its source: memory is the 16 pages from
# 0x60000000, mapped from page 1; the header probe (4136 bytes at 0 into
# page 2) rounded out to 9 sectors; page 5 mapped again at 0x64800000 and
# read into there; the io thread's reads of disk pages 1-8 into pages
# 8-15 and its write of a sector; pages 1-8 mapped one by one elsewhere.
{
	echo "mmap 0x60001000 61440 4096"
	echo "read ubda 0 4608 2"
	echo "mmap 0x64800000 4096 20480"
	echo "read ubda 36864 4096 5"
	echo "munmap 0x64800000 4096"
	for i in 1 2 3 4 5 6 7 8; do
		echo "read ubda $((i * 4096)) 4096 $((7 + i))"
		echo "mmap 0x6480${i}000 4096 $((i * 4096))"
		echo "munmap 0x6480${i}000 4096"
	done
	echo "write ubda 32768 512 8"
} | LC_ALL=C sort >"$tmp/forms.want"
# Left out: the vector read, the read and the socket mapping that fail,
# the read into the program's own memory, the mapping past memory; not
# UML's: the clone, the anonymous mapping and the unmappings of it and of
# the mapping past memory, the read at the end of the disk; SIGUSR1 and
# SIGCHLD; the two processes' ends.
forms_notes() {	# MEMORY-FILE MESSAGES
	cat <<NOTES
imported from an strace log: UML's disk reads and writes and its mappings of the memory file ($1); no touch or free events: strace does not see the guest write or free its memory
left out: 1 preadv/pwritev calls (no buffer addresses), 2 failed calls, 0 calls unfinished when the log or their process ended, 0 calls begun before the log, 1 transfers outside physical memory (from 0x60000000), 1 mappings of the memory file before it mapped physical memory or past its end, 0 events the trace rules refuse
not UML's memory or disks: 1 calls of other system calls, 3 mappings and unmappings of other memory, 1 transfers of nothing; 2 signal, 2 exit and $2 strace message lines
1 transfers not in whole 512-byte sectors (UML's probe of an image's header) rounded out to them
NOTES
}
day="times from the log's times of day (-t, -tt)"
# FORM LAST-TIME CLOCK-NOTE [MEMORY-FILE MESSAGES]: the time of the last
# event (the munmap of 0x64808000) from the log's own figures
for f in "ttt 1467" "tt 1343 $day" "t 0 $day" "t-r 0 $day" \
	"r 1192 times from the sums of the log's relative times (-r)" "ns 1691" \
	"none 0 the log has no times: every event is at time 0, in the order of the log" \
	"pid1 1405" "stderr 1434"; do
	set -- $f
	form=$1 last=$2
	shift 2
	expect_status 0 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/f.trace" \
		"$logs/forms-$form.strace"
	[ "$out" = "$tmp/f.trace: 30 events from $logs/forms-$form.strace; 5 calls left out (see its notes)" ] ||
		fail "forms-$form: $out"
	[ -z "$err" ] || fail "forms-$form warned: $err"
	calls_of "$tmp/f.trace" | LC_ALL=C sort | cmp -s - "$tmp/forms.want" ||
		fail "forms-$form: the events differ: $(calls_of "$tmp/f.trace" | LC_ALL=C sort | diff "$tmp/forms.want" - | head -n 5)"
	msgs=0
	[ "$form" != stderr ] || msgs=1
	{ forms_notes "descriptor 4" $msgs; [ $# -eq 0 ] || echo "$*"; } >"$tmp/notes.want"
	notes "$tmp/f.trace" | cmp -s - "$tmp/notes.want" || fail "forms-$form: notes $(notes "$tmp/f.trace")"
	expect_match "$(body "$tmp/f.trace" | tail -n 1)" "^$last munmap 0x64808000 4096$"
	expect_match "$(body "$tmp/f.trace" | head -n 1)" '^0 mmap 0x60001000 61440 4096$'
done
# -yy: the memory file by name ('#' as strace escapes it), a socket's
# decoration holding '->' inside its brackets
expect_status 0 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/f.trace" \
	"$logs/forms-yy.strace"
calls_of "$tmp/f.trace" | LC_ALL=C sort | cmp -s - "$tmp/forms.want" || fail "forms-yy: the events differ"
shm=$(sed -n '1s/.*, 4<\/dev\/shm\/#\([0-9]*\)>(deleted), 0x1000.*/\1/p' "$logs/forms-yy.strace")
[ -n "$shm" ] || fail "forms-yy.strace does not map /dev/shm/#N first"
forms_notes "4</dev/shm/\\x23$shm>(deleted)" 0 >"$tmp/notes.want"
notes "$tmp/f.trace" | cmp -s - "$tmp/notes.want" || fail "forms-yy: notes $(notes "$tmp/f.trace")"
expect_match "$(body "$tmp/f.trace" | tail -n 1)" '^2244 munmap 0x64808000 4096$'
# without -f: the main process alone, no process id column: no io thread
expect_status 0 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/f.trace" \
	"$logs/forms-main.strace"
[ "$out" = "$tmp/f.trace: 21 events from $logs/forms-main.strace; 5 calls left out (see its notes)" ] ||
	fail "forms-main: $out"
grep -v -e '^read ubda [0-9]* 4096 \(8\|9\|1[0-5]\)$' -e '^write' "$tmp/forms.want" >"$tmp/main.want"
calls_of "$tmp/f.trace" | LC_ALL=C sort | cmp -s - "$tmp/main.want" || fail "forms-main: the events differ"
expect_match "$(body "$tmp/f.trace" | tail -n 1)" '^1163 munmap 0x64808000 4096$'
# without -e raw: refused at the first read
rm -f "$tmp/f.trace"
expect_status 2 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/f.trace" \
	"$logs/forms-data.strace"
[ "$err" = "anonsim trace import: $logs/forms-data.strace:2: pread64 shows its buffer's data, not its address: record with strace -e raw=pread64,pwrite64" ] ||
	fail "forms-data: $err"
[ ! -e "$tmp/f.trace" ] || fail "a refused import left its output"

# ---- the log cut off: at its end, counted and told; in its middle, refused ---
head -n 21 "$logs/forms-ttt.strace" >"$tmp/cut.strace"
sed -n 22p "$logs/forms-ttt.strace" | head -c 40 >>"$tmp/cut.strace"
expect_match "$(tail -c 40 "$tmp/cut.strace")" '^20000 [0-9.]+ pread64\(0x3, 0x6$'
expect_status 0 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/cut.trace" "$tmp/cut.strace"
[ "$err" = "anonsim trace import: $tmp/cut.strace:22: warning: the log ends in the middle of this line, a call of pread64: left out" ] ||
	fail "cut at the end: $err"
[ "$out" = "$tmp/cut.trace: 8 events from $tmp/cut.strace; 6 calls left out (see its notes)" ] ||
	fail "cut at the end: $out"
expect_match "$(notes "$tmp/cut.trace")" '^left out: 1 preadv/pwritev calls \(no buffer addresses\), 2 failed calls, 1 calls unfinished when the log or their process ended,'
expect_match "$(notes "$tmp/cut.trace" | tail -n 1)" "^the log's last line \(22\) is cut off in its middle$"
sed '5s/ = .*//' "$logs/forms-ttt.strace" >"$tmp/mid.strace"
expect_status 2 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/x.trace" "$tmp/mid.strace"
[ "$err" = "anonsim trace import: $tmp/mid.strace:5: cut off: neither a whole line nor the first half of a call (<unfinished ...>)" ] ||
	fail "cut in the middle: $err"

# ---- the hand-made log: what strace writes when processes die or it lets go --
# two processes out of order, a call split over two lines, a vector read,
# a failed read, a read outside physical memory, the header probe, a
# write, mappings of the memory file and others; a call resumed that began
# before the log, one whose result is "?", one unfinished when its process
# was killed, one strace let go of (<detached ...>), one unfinished at the end
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/h.trace" \
	"$logs/handmade.strace"
[ "$out" = "$tmp/h.trace: 7 events from $logs/handmade.strace; 8 calls left out (see its notes)" ] ||
	fail "hand-made: $out"
[ -z "$err" ] || fail "hand-made warned: $err"
cat >"$tmp/h.want" <<'WANT'
0 mmap 0x60000000 67108864 0
200 read ubda 0 4096 16
300 read ubda 4096 8192 100
1300 read ubda 0 4608 48
1400 write ubda 512 512 16
1700 mmap 0x64800000 4096 4096
1800 munmap 0x64800000 4096
WANT
body "$tmp/h.trace" | cmp -s - "$tmp/h.want" || fail "hand-made events: $(body "$tmp/h.trace")"
expect_match "$("$ANONSIM" trace cat "$tmp/h.trace" | grep '^device')" '^device ubda size=1048576 backing=strace-fd5$'
cat >"$tmp/h.notes" <<'NOTES'
imported from an strace log: UML's disk reads and writes and its mappings of the memory file (descriptor 3); no touch or free events: strace does not see the guest write or free its memory
left out: 1 preadv/pwritev calls (no buffer addresses), 2 failed calls, 3 calls unfinished when the log or their process ended, 1 calls begun before the log, 1 transfers outside physical memory (from 0x60000000), 0 mappings of the memory file before it mapped physical memory or past its end, 0 events the trace rules refuse
not UML's memory or disks: 0 calls of other system calls, 2 mappings and unmappings of other memory, 0 transfers of nothing; 1 signal, 2 exit and 0 strace message lines
1 transfers not in whole 512-byte sectors (UML's probe of an image's header) rounded out to them
times from the log's times of day (-t, -tt)
NOTES
notes "$tmp/h.trace" | cmp -s - "$tmp/h.notes" || fail "hand-made notes: $(notes "$tmp/h.trace")"
# past midnight the time of day starts again
printf '%s\n' '7 23:59:59.900000 munmap(0x64800000, 4096) = 0' \
	'7 00:00:00.100000 mmap(0x60000000, 4096, PROT_READ, MAP_SHARED, 3, 0) = 0x60000000' >"$tmp/midnight.strace"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/m.trace" "$tmp/midnight.strace"
[ "$(body "$tmp/m.trace")" = "200000 mmap 0x60000000 4096 0" ] || fail "past midnight: $(body "$tmp/m.trace")"

# ---- real UML boots -------------------------------------------------------------------
# attached with -p after UML started: the mapping of physical memory is
# assumed; every pread64 and pwrite64 into it becomes an event, counted
# here with awk (the header probes rounded out); the memory file's 83
# shared mappings after the assumed one
real="$logs/uml-busybox-boot.strace.gz"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M \
	--device 14=16M:busybox-image --readahead 8192 -o "$tmp/boot.atr.gz" "$real"
[ "$out" = "$tmp/boot.atr.gz: 1459 events from $real; 0 calls left out (see its notes)" ] ||
	fail "the late log: $out"
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
	addr = hex(a[2]); ret = hex(a[5])
	if (addr >= 1610612736 && addr < 1610612736 + 67108864 && ret > 0) n[k]++
}
{ s = "" }
END { printf "read: %d write: %d", n["read"], n["write"] }')
got=$("$ANONSIM" trace stat "$tmp/boot.atr.gz" | awk '$1 == "read:" && NF == 2 { r = $2 } $1 == "write:" && NF == 2 { w = $2 }
	$1 == "mmap:" { m = $2 } $1 == "munmap:" { u = $2 } END { printf "read: %s write: %s mmap: %s munmap: %s", r, w, m, u }')
[ "$got" = "$want mmap: 84 munmap: 8" ] || fail "the late log: $got, expected $want mmap: 84 munmap: 8"
[ "$want" = "read: 1365 write: 2" ] || fail "the late log's own count: $want"
expect_match "$(body "$tmp/boot.atr.gz" | head -n 1)" '^0 mmap 0x60000000 67108864 0$'
expect_match "$(notes "$tmp/boot.atr.gz" | tail -n 1)" '^the mapping of physical memory UML makes as it boots was not in the log: assumed at time 0$'
[ "$(notes "$tmp/h.trace" | grep -c '^the mapping')" = 0 ] || fail "the hand-made log maps its memory itself"
expect_status 0 "$ANONSIM" trace check "$tmp/boot.atr.gz"
# no readahead: the page cache is the distinct device pages read
distinct=$("$ANONSIM" trace stat "$tmp/boot.atr.gz" | sed -n 's/^read ubda: .*, \([0-9]*\) distinct pages$/\1/p')
cache=$("$ANONSIM" replay -q --csv --pages -s read-copy --readahead 0 "$tmp/boot.atr.gz" |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i } NR == 2 { print $k["final_cache_pages"] }')
[ -n "$distinct" ] && [ "$cache" = "$distinct" ] || fail "page cache $cache, distinct pages read $distinct"

# recorded at once by anonsim-strace-record --attach and anonsim-record: the
# import holds the recorder's reads, writes, mmaps and munmaps, in its order
# (main process 9937, io thread 10017: four digits and five)
both="$logs/uml-busybox-both.strace.gz"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/both.trace" "$both"
[ "$out" = "$tmp/both.trace: 1535 events from $both; 2 calls left out (see its notes)" ] ||
	fail "the simultaneous log: $out"
[ -z "$err" ] || fail "the simultaneous log warned: $err"
calls_of "$tmp/both.trace" >"$tmp/both.calls"
calls_of "$logs/uml-busybox-both.trace.gz" | cmp -s - "$tmp/both.calls" ||
	fail "the strace import differs from the recorder's trace: $(calls_of "$logs/uml-busybox-both.trace.gz" | diff - "$tmp/both.calls" | head -n 5)"
[ "$(awk '{ n[$1]++ } END { printf "%d %d %d %d", n["read"], n["write"], n["mmap"], n["munmap"] }' "$tmp/both.calls")" = "1365 2 160 8" ] ||
	fail "the simultaneous log's counts: $(awk '{ print $1 }' "$tmp/both.calls" | sort | uniq -c)"
expect_match "$(notes "$tmp/both.trace" | head -n 1)" 'memory file \(6</dev/shm/\\x23[0-9]+>\(deleted\)\)'
expect_status 0 "$ANONSIM" trace check "$tmp/both.trace"
# each process's own log, as its strace wrote it: strace on one of them
# alone misses what the other does, and the import says so
gzip -dc "$both" | sed -n 's/^9937  //p' >"$tmp/main.strace"
gzip -dc "$both" | sed -n 's/^10017 //p' >"$tmp/io.strace"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/main.trace" "$tmp/main.strace"
[ "$err" = "anonsim trace import: $tmp/main.strace: warning: no disk read by the guest, only UML's own probes of an image's header (5): was strace attached to UML's io thread? (anonsim-strace-record attaches to it)" ] ||
	fail "main alone: $err"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/io.trace" "$tmp/io.strace"
[ "$err" = "anonsim trace import: $tmp/io.strace: warning: no mapping of UML's memory file: was strace attached to UML's main process? (anonsim-strace-record attaches to it)" ] ||
	fail "the io thread alone: $err"
[ "$out" = "$tmp/io.trace: 1363 events from $tmp/io.strace; 0 calls left out (see its notes)" ] ||
	fail "the io thread alone: $out"
expect_match "$(notes "$tmp/io.trace" | head -n 1)" 'memory file \(none in the log\)'
# a log of neither: no read, no mapping, still a trace with its one device
grep -v 'pread64\|pwrite64\|MAP_SHARED' "$logs/forms-ttt.strace" >"$tmp/neither.strace"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64K -o "$tmp/n.trace" "$tmp/neither.strace"
[ "$err" = "anonsim trace import: $tmp/neither.strace: warning: no disk read into UML's physical memory (0 pread64 calls): was strace attached to UML's io thread? (anonsim-strace-record attaches to it)
anonsim trace import: $tmp/neither.strace: warning: no mapping of UML's memory file: was strace attached to UML's main process? (anonsim-strace-record attaches to it)" ] ||
	fail "neither: $err"
expect_match "$("$ANONSIM" trace cat "$tmp/n.trace" | grep '^device')" '^device ubda size=1048576 backing=strace-no-disk$'

# ---- refused: the place and what is wrong, exit 2, nothing written -------------
refuse() {	# NAME LINE MESSAGE: the log $tmp/NAME.strace is refused at LINE
	expect_status 2 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/r.trace" "$tmp/$1.strace"
	[ "$err" = "anonsim trace import: $tmp/$1.strace:$2: $3" ] || fail "$1: $err"
	[ ! -e "$tmp/r.trace" ] || fail "$1: a refused import left its output"
}
ttt="$logs/forms-ttt.strace"
cat "$logs/forms-t.strace" "$ttt" >"$tmp/mixed.strace"
refuse mixed 64 "seconds since 1970 (-ttt), where line 1 has a time of day (-t, -tt): one log, one form of time"
{ head -n 3 "$ttt"; echo; tail -n +4 "$ttt"; } >"$tmp/empty.strace"
refuse empty 4 "an empty line"
{ head -n 3 "$ttt"; echo "Hello, world"; } >"$tmp/garbage.strace"
refuse garbage 4 "not a system call, signal or exit as strace writes them"
{ head -n 3 "$ttt"; echo "[pid ] 1796439594.080400 munmap(0x64800000, 4096) = 0"; } >"$tmp/pidless.strace"
refuse pidless 4 "a '[pid N]' without a process id"
{ head -n 3 "$ttt"; echo "4973  12345 munmap(0x64800000, 4096) = 0"; } >"$tmp/number.strace"
refuse number 4 "'12345' is neither a process id nor a time stamp"
{ head -n 3 "$ttt"; echo "4973  1796439594.080400 pread64(0x3, 0x60002000, 0x1000, 0) = lots"; } >"$tmp/result.strace"
refuse result 4 "pread64: result 'lots' is not a number"
{ head -n 3 "$ttt"; echo "4973  1796439594.080400 pread64(0x3, 0x6000zz, 0x1000, 0) = 0x1000"; } >"$tmp/arg.strace"
refuse arg 4 "pread64: argument 2 '0x6000zz' is not a number"
{ head -n 3 "$ttt"; echo "4973  1796439594.080400 munmap(0x64800000) = 0"; } >"$tmp/count.strace"
refuse count 4 "munmap: expected 2 arguments"
sed '20s/<\.\.\. pread64 resumed>/<... resumed>/' "$ttt" >"$tmp/nameless.strace"
refuse nameless 20 "a '<... resumed>' without the call's name"
sed '20s/<\.\.\. pread64 resumed>/<... mmap resumed>/' "$ttt" >"$tmp/resumed.strace"
expect_match "$(sed -n 18p "$tmp/resumed.strace")" '^20000 .* pread64\(.*<unfinished \.\.\.>$'
refuse resumed 20 "'mmap resumed' where the process's unfinished call (line 18) is pread64"
grep -e '---' -e '+++' "$ttt" >"$tmp/nocalls.strace"
expect_status 2 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/r.trace" "$tmp/nocalls.strace"
[ "$err" = "anonsim trace import: $tmp/nocalls.strace: no pread64, pwrite64, mmap or munmap call that did something (record with anonsim-strace-record, or see anonsim trace import --help)" ] ||
	fail "no calls: $err"
gzip -c "$ttt" | head -c 600 >"$tmp/short.strace.gz"
expect_status 2 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/r.trace" "$tmp/short.strace.gz"
expect_match "$err" "short.strace.gz: after line [0-9]+: unexpected end of file$"
expect_status 2 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.trace" "$tmp/none.strace"
expect_match "$err" "none.strace: No such file or directory"
# the output, not the log: exit 5
expect_status 5 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/no/such/x.trace" "$ttt"
expect_match "$err" "no/such/x.trace: cannot create a temporary file beside it"

# ---- the command line ----------------------------------------------------------------
expect_status 1 "$ANONSIM" trace import --from strace -o "$tmp/x.trace" "$logs/handmade.strace"
expect_match "$err" "--memory SIZE is required"
expect_status 1 "$ANONSIM" trace import --from ltrace --memory 64M -o "$tmp/x.trace" "$logs/handmade.strace"
[ "$err" = "anonsim trace import: --from 'ltrace': expected strace" ] || fail "--from ltrace: $err"
expect_status 1 "$ANONSIM" trace import --memory 64M -o "$tmp/x.trace" "$logs/handmade.strace"
[ "$err" = "anonsim trace import: --from KIND is required, the kind of log: strace" ] || fail "no --from: $err"
expect_status 1 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.txt" "$logs/handmade.strace"
expect_match "$err" "-o OUT is required, ending in .trace"
[ ! -e "$tmp/x.txt" ] || fail "a refused import left its output"
# a log begun after UML mapped its memory, where two files are mapped
# shared: which is the memory file is the user's to say
sed '1d; 10s/MAP_PRIVATE|MAP_ANONYMOUS, -1, 0/MAP_SHARED, 7, 0/' "$logs/handmade.strace" >"$tmp/two.strace"
expect_status 1 "$ANONSIM" trace import --from strace --memory 64M -o "$tmp/x.trace" "$tmp/two.strace"
[ "$err" = "anonsim trace import: $tmp/two.strace:11: descriptors 7 and 3 both map a file shared: say which is the memory file (--memory-fd)" ] ||
	fail "two shared files: $err"
expect_status 0 "$ANONSIM" trace import --from strace --memory 64M --memory-fd 3 -o "$tmp/x.trace" "$tmp/two.strace"
# the assumed mapping of physical memory, and descriptor 3's one mapping
[ "$(body "$tmp/x.trace" | grep -c mmap)" = 2 ] || fail "--memory-fd 3: $(body "$tmp/x.trace")"
finish
