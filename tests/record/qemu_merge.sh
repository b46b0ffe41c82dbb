#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# merge.awk on hand-made logs of a QEMU recording (anonsim-rec-host's and
# qemu_preload.so's), merged as anonsim-record --vmm qemu merges them:
# RAM given back becomes discards of the pages the host had, QEMU's
# madvise(DONTNEED) beside a punch is no discard, a page the sampler sees
# again after a discard is a touch, transfers with buffers outside RAM
# are counted, not events, and a read of several buffers is a request
# before its parts.  No QEMU runs; awk only.
. "${top_srcdir:-.}/tests/lib.sh"

# 1 MiB of RAM (256 pages), one disk; times in ns, 1 s after boot
cat >"$tmp/host.log" <<'EOF'
1000000000 S
1000100000 I 42
1001000000 N 0 4
1002000000 N 10 2
1004000000 N 2 1
1005000000 F 6
1005000000 X 0
EOF
# mmap of the RAM file; a read into page 20; a punch of pages 1-3 and
# QEMU's madvise of the same; a punch of 20-21 (21 never used); one read
# and one write through buffers outside RAM
cat >"$tmp/io.log" <<'EOF'
1000500000 M 77 4096 1048576 0 42
1001500000 R 77 0 0 0 4096 20
1003000000 D 77 1 3 F
1003000100 D 77 1 3 N
1003500000 D 77 20 2 F
1003600000 R 77 0 0 8192 4096 -1
1003700000 W 77 0 0 0 512 -1
EOF
filetab="0 disk0 image 0 7
"
awk -v mem_pages=256 -v filetab="$filetab" -v fallocate="$tmp/falloc" -v leftout="$tmp/leftout" \
	-f "$top_srcdir/src/record/merge.awk" "$tmp/host.log" "$tmp/io.log" 2>"$tmp/err" |
	sort -n -k1,1 -k2,2 -s |
	awk -v mem_pages=256 -v filetab="$filetab" -v pass=2 -f "$top_srcdir/src/record/merge.awk" \
	>"$tmp/events" || fail "merge.awk failed: $(cat "$tmp/err")"

expect_match "$(tr '\n' '|' <"$tmp/events")" \
	'^500 mmap 4096 1048576 0\|1000 touch 0 4\|1500 read disk0 0 4096 20\|2000 touch 10 2\|3000 discard 1 3\|3500 discard 20 1\|4000 touch 2 1\|5000 footprint tmpfs 6\|5000 footprint cache:disk0 7\|$'
expect_match "$(cat "$tmp/leftout")" '^1 1 4608$'
[ ! -s "$tmp/falloc" ] || fail "fallocate calls counted where there were none: $(cat "$tmp/falloc")"

# RAM split by the 4 GiB line (3 GiB on q35: 2 GiB below, 1 GiB from 4
# GiB on, a hole of 524288 pages): the guest's frees above the line are
# the file's pages after the hole, those inside the hole no RAM
mkdir "$tmp/split"
cat >"$tmp/split/host.log" <<'EOF'
1000000000 S
1000100000 I 42
1001000000 N 524290 4
1002000000 C @anonsim F 1048578 2
1002000000 C @anonsim F 600000 1
1002000000 C @anonsim F 524290 1
EOF
: >"$tmp/split/io.log"
awk -v mem_pages=786432 -v filetab="$filetab" -v hole_pages=524288 \
	-f "$top_srcdir/src/record/merge.awk" "$tmp/split/host.log" "$tmp/split/io.log" 2>"$tmp/err" |
	sort -n -k1,1 -k2,2 -s |
	awk -v mem_pages=786432 -v filetab="$filetab" -v pass=2 -f "$top_srcdir/src/record/merge.awk" \
	>"$tmp/events2" || fail "merge.awk failed: $(cat "$tmp/err")"
expect_match "$(tr '\n' '|' <"$tmp/events2")" '^1000 touch 524290 4\|2000 free 524290 2\|$'

# Reads of several buffers (Q lines): a request line before the parts
# kept, in a block after the other reads of their microsecond; two
# requests of one io_submit (one time, one file) told apart by their
# ranges; a part outside RAM left out of its request; a request with no
# part kept has no line.
mkdir "$tmp/req"
printf '1000000000 S\n1000100000 I 42\n1005000000 F 6\n' >"$tmp/req/host.log"
cat >"$tmp/req/io.log" <<'EOF'
1000500000 M 77 4096 1048576 0 42
1001500000 Q 77 0 0 16384 12288 3
1001500000 R 77 0 0 16384 4096 30
1001500000 R 77 0 0 20480 4096 32
1001500001 R 77 0 0 0 4096 40
1001500000 R 77 0 0 24576 4096 31
1002000000 Q 77 0 0 32768 8192 2
1002000000 Q 77 0 0 49152 8192 2
1002000000 R 77 0 0 32768 4096 50
1002000000 R 77 0 0 49152 4096 60
1002000000 R 77 0 0 36864 4096 -1
1002000000 R 77 0 0 53248 4096 62
1002000010 R 77 0 0 49152 4096 70
1003000000 Q 77 0 0 0 8192 2
1003000000 R 77 0 0 0 4096 -1
1003000000 R 77 0 0 4096 4096 -1
EOF
awk -v mem_pages=256 -v filetab="$filetab" -v leftout="$tmp/req/leftout" \
	-f "$top_srcdir/src/record/merge.awk" "$tmp/req/host.log" "$tmp/req/io.log" 2>"$tmp/err" |
	sort -n -k1,1 -k2,2 -s |
	awk -v mem_pages=256 -v filetab="$filetab" -v pass=2 -f "$top_srcdir/src/record/merge.awk" \
	>"$tmp/events3" || fail "merge.awk failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/events3")" = "500 mmap 4096 1048576 0
1500 read disk0 0 4096 40
1500 request disk0 16384 12288
1500 read disk0 16384 4096 30
1500 read disk0 20480 4096 32
1500 read disk0 24576 4096 31
2000 read disk0 49152 4096 70
2000 request disk0 32768 8192
2000 read disk0 32768 4096 50
2000 request disk0 49152 8192
2000 read disk0 49152 4096 60
2000 read disk0 53248 4096 62
5000 footprint tmpfs 6
5000 footprint cache:disk0 7" ] || fail "requests merged: $(cat "$tmp/events3")"
expect_match "$(cat "$tmp/req/leftout")" '^3 0 12288$'
{
	printf 'anonsim-trace 2\npage-size 4096\nmemory 1048576\n'
	printf 'device disk0 size=65536 backing=test\nvmm qemu 7.2\nevents\n'
	cat "$tmp/events3"
} >"$tmp/req.trace"
expect_status 0 "$ANONSIM" trace check "$tmp/req.trace"

# the trace those events make is a valid version 2 trace
{
	printf 'anonsim-trace 2\npage-size 4096\nmemory 1048576\n'
	printf 'device disk0 size=65536 backing=test\nvmm qemu 7.2\nevents\n'
	cat "$tmp/events"
} >"$tmp/q.trace"
expect_status 0 "$ANONSIM" trace check "$tmp/q.trace"

# the driver's --from-logs: a --keep directory (the logs above and the
# merge.env the recorder writes beside them) merged again, QEMU not run
mkdir "$tmp/kept"
cp "$tmp/host.log" "$tmp/io.log" "$tmp/kept/"
cat >"$tmp/kept/merge.env" <<'EOF'
memory='1048576'
hole_pages='0'
lowmem='2147483648'
devlines='device disk0 size=65536 backing=sha256:test
'
filetab='0 disk0 image 0 7
'
names=' disk0'
direct=''
qemu_version='7.2.22'
vmm_version='7.2'
ra='8192'
kind='memfd'
res_ms='10'
hl_damon_state='none'
host_mem='none'
cmdline=' qemu-system-x86_64 -m 1M -append '\''a b'\'''
notes='kept note
'
host_kernel='6.1.0'
EOF
drv=$top_srcdir/src/record/qemu/anonsim-record-qemu
expect_status 0 sh "$drv" --from-logs "$tmp/kept" --note "new note" -o "$tmp/again.trace"
expect_status 0 "$ANONSIM" trace check "$tmp/again.trace"
expect_match "$(sed -n '/^events$/q; p' "$tmp/again.trace" | tr '\n' '|')" \
	"^anonsim-trace 2\|page-size 4096\|memory 1048576\|device disk0 size=65536 backing=sha256:test\|vmm qemu 7.2\|readahead-kb 8192\|recorder anonsim-record host-kernel=6.1.0 qemu=7.2.22 ram=memfd residency-interval-ms=10 guest-interval-ms=none proactive-reclaim=none host-memory=none\|note qemu: qemu-system-x86_64 -m 1M -append 'a b'\|note kept note\|note new note\|note left out: 1 reads and 1 writes"
sed '1,/^events$/d' "$tmp/again.trace" >"$tmp/again.events"
cmp -s "$tmp/events" "$tmp/again.events" ||
	fail "--from-logs merged other events: $(diff "$tmp/events" "$tmp/again.events" | head -n 5)"
# logs without merge.env, or a QEMU command line besides: refused
mkdir "$tmp/bare"
cp "$tmp/host.log" "$tmp/io.log" "$tmp/bare/"
expect_status 1 sh "$drv" --from-logs "$tmp/bare" -o "$tmp/no.trace"
expect_status 1 sh "$drv" --from-logs "$tmp/kept" -o "$tmp/no.trace" -- qemu-system-x86_64
[ ! -e "$tmp/no.trace" ] || fail "a refused --from-logs wrote a trace"
finish
