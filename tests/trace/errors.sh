#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The corrupt corpus: every file under tests/trace/traces/corrupt/ is refused by
# check, stat, cat and convert with exit status 2 and exactly this message
# (file, place, what is wrong).  A file of the corpus without a line here
# fails the test.
. "${top_srcdir:-.}/tests/lib.sh"
dir=$top_srcdir/tests/trace/traces/corrupt
mkdir "$tmp/conv"

while IFS='|' read -r name message; do
	[ -n "$name" ] || continue
	case $name in \#*) continue ;; esac
	echo "$name" >>"$tmp/listed"
	for sub in check stat cat; do
		expect_status 2 "$ANONSIM" trace $sub "$dir/$name"
		[ "$err" = "anonsim trace $sub: $dir/$name$message" ] ||
			fail "trace $sub $name: got '$err', expected 'anonsim trace $sub: $dir/$name$message'"
	done
	expect_status 2 "$ANONSIM" trace convert "$dir/$name" "$tmp/conv/out.atr.gz"
	[ "$err" = "anonsim trace convert: $dir/$name$message" ] || fail "trace convert $name: got '$err'"
	[ -z "$(ls "$tmp/conv")" ] || fail "convert of $name left $(ls "$tmp/conv")"
done <<'LIST'
# file|message after the file name
wrong-magic.atr|: byte 0: wrong magic: neither a text nor a binary anonsim trace
unknown-version.atr|: byte 8: unknown version 3 (this anonsim reads versions 1 to 2)
unknown-version.trace|:1: unknown version 3 (this anonsim reads versions 1 to 2)
truncated-gzip.trace.gz|:10: truncated gzip stream (unexpected end of file at byte 149, in the gzip member from byte 0)
truncated-gzip.atr.gz|: byte 224: truncated gzip stream (unexpected end of file at byte 159, in the gzip member from byte 0)
bad-crc.trace.gz|: corrupt gzip stream (incorrect data check, at byte 157 of the file, in the gzip member from byte 0)
second-member-damaged.trace.gz|:9: corrupt gzip stream (data after the last gzip member, at byte 267 of the file)
trailing-data.atr.gz|: byte 230: corrupt gzip stream (data after the last gzip member, at byte 170 of the file)
truncated-record.atr|: record 4 (byte 212): truncated record: the file ends 11 bytes into it
truncated-header.atr|: byte 16: truncated header block: 47 of 95 bytes
header-length-zero.atr|: byte 12: header length 0 not within 1..65536
header-after-events.atr|: header line 5 (byte 111): 4 bytes after 'events' in the header block
unknown-kind.atr|: record 1 (byte 140): unknown event kind 0x0c
unknown-kind.trace|:8: unknown event kind 'swapout': expected read, write, touch, free, mmap, munmap, mapdup, phase, footprint or host
page-beyond-memory.atr|: record 1 (byte 140): read: pages 256+1 beyond physical memory (256 pages)
page-beyond-memory.trace|:8: touch: pages 255+2 beyond physical memory (256 pages)
offset-beyond-device.trace|:7: read: bytes 65536+512 beyond the end of device ubda (65536 bytes)
length-beyond-device.trace|:7: read: bytes 61440+8192 beyond the end of device ubda (65536 bytes)
length-beyond-device.atr|: record 1 (byte 140): read: bytes 65024+4096 beyond the end of device ubda (65536 bytes)
zero-length.trace|:7: read: length 0
zero-count.trace|:8: touch: count 0
unaligned-length.trace|:7: read: offset 0 and length 1000 must be multiples of 512
unaligned-offset.trace|:7: read: offset 100 and length 512 must be multiples of 512
unaligned-mmap.trace|:6: mmap: address 0x60000800 and length 1048576 must be page-aligned
mmap-beyond-memory.trace|:8: mmap: file bytes 4096+1048576 beyond physical memory (1048576 bytes)
mapdup-beyond-memory.atr|: record 1 (byte 140): mapdup: file bytes 1044480+8192 beyond physical memory (1048576 bytes)
read-not-mapped.trace|: event 2 (42 read ubda 45056 16384 12): read: pages 12+4 are not all mapped at their own address (see Mappings in FORMAT.md)
touch-after-munmap.trace|: event 3 (3 touch 3 1): touch: pages 3+1 include a page whose own address was unmapped (see Mappings in FORMAT.md)
free-after-early-read.trace|: event 3 (31 free 84 79): free: pages 84+79 include a page read into before the first mmap and not mapped at its own address since (see Mappings in FORMAT.md)
time-backwards.trace|:9: time 19 goes backwards (previous event at 20)
missing-page-size.trace|:4: missing required header field 'page-size'
missing-memory.trace|:4: missing required header field 'memory'
missing-device.trace|:4: missing required header field 'device'
missing-backing.trace|:4: device ubda: missing backing=
no-events-line.trace|:4: header not ended by an 'events' line
version-not-first.trace|:1: not an anonsim trace: expected 'anonsim-trace 1', found 'page-size'
memory-not-multiple.trace|:5: memory 1048577 is not a multiple of page-size 4096
page-size-8192.trace|:2: page-size 8192: only 4096-byte pages are modelled
unknown-field.trace|:5: unknown header field 'swap'
unknown-device.trace|:7: read: unknown device 'ubdz'
bad-number.trace|:8: touch: PAGE '7x' is not a number
missing-field.trace|:8: touch: expected PAGE COUNT
footprint-unknown-device.trace|:11: footprint: 'cache:ubdz' is neither 'tmpfs' nor 'cache:DEVICE' of a device in the header
long-line.trace|:11: line longer than 4096 bytes
nul-byte.trace|:9: NUL byte in a text line
empty.trace|: empty file
empty.atr.gz|: empty file
only-comments.trace|:2: empty trace: no 'anonsim-trace 1' line
zero-name-length.atr|: record 4 (byte 212): name length 0 not within 1..63
bad-name.atr|: record 4 (byte 212): name is not one word of printable characters
host-too-large.trace|:7: host: 268435457 pages is more than 2^40 bytes
host-too-large.atr|: record 1 (byte 140): host: 268435457 pages is more than 2^40 bytes
host-missing-pages.trace|:7: host: expected PAGES [ANON]
host-anon-above-pages.trace|:7: host: 101 anonymous pages of only 100
host-anon-above-pages.atr|: record 1 (byte 140): host: 101 anonymous pages of only 100
host-truncated.atr|: record 1 (byte 140): truncated record: the file ends 10 bytes into it
time-past-2-63.trace|:8: time 9223372036854775808 is past 2^63 - 1 microseconds
time-past-2-63.atr|: record 1 (byte 133): time 9223372036854775808 is past 2^63 - 1 microseconds
note-not-utf8.trace|:6: note is not valid UTF-8
# version 2, and version 2 in version 1
discard-in-version-1.trace|:8: unknown event kind 'discard': expected read, write, touch, free, mmap, munmap, mapdup, phase, footprint or host
discard-in-version-1.atr|: record 1 (byte 139): unknown event kind 0x0b
vmm-in-version-1.trace|:5: unknown header field 'vmm'
pmem-in-version-1.trace|:5: device pmem0: unknown key 'pmem'
version-mismatch.atr|: byte 8: version 1, but the header block says 'anonsim-trace 2'
vmm-missing-version.trace|:5: vmm: expected NAME VERSION
pmem-inside-memory.trace|:6: device pmem0: pmem window at page 250 inside physical memory (256 pages)
pmem-overlap.trace|:7: device pmem1: pmem window 271+2 pages overlaps device pmem0's
pmem-unaligned-size.trace|:5: device pmem0: a pmem device's size must be a multiple of 4096
pmem-past-2-52.trace|:5: device pmem0: pmem window 1099511627770+16 pages past 2^52 bytes of guest physical memory
read-pmem-device.trace|:8: read: device pmem0 is a pmem device, mapped into guest physical memory: no I/O reaches it
discard-zero-count.trace|:8: discard: count 0
discard-beyond-memory.atr|: record 1 (byte 139): discard: pages 251+6 beyond physical memory (256 pages)
discard-after-munmap.trace|: event 2 (20 discard 2 2): discard: pages 2+2 include a page whose own address was unmapped (see Mappings in FORMAT.md)
request-in-version-1.trace|:7: unknown event kind 'request': expected read, write, touch, free, mmap, munmap, mapdup, phase, footprint or host
request-in-version-1.atr|: record 1 (byte 139): unknown event kind 0x0c
request-zero-length.trace|:7: request: length 0
request-extra-field.trace|:7: request: expected DEVICE OFFSET LENGTH
request-pmem-device.trace|:8: request: device pmem0 is a pmem device, mapped into guest physical memory: no I/O reaches it
request-beyond-device.atr|: record 1 (byte 139): request: bytes 61440+8192 beyond the end of device vda (65536 bytes)
request-no-part.trace|: event 2 (20 touch 1 1): the request (event 1) has no part: a read inside its range at its time must follow it
request-part-outside.trace|: event 2 (10 read vda 12288 8192 20): the request (event 1) has no part: a read inside its range at its time must follow it
request-part-overlap.trace|: event 3 (10 read vda 12288 4096 40): read: a part of the request (event 1) that starts before byte 16384, where the part before ends: parts follow in order of offset, none over another
request-at-end.trace|: event 1 (10 request vda 0 16384): request with no part: the trace ends after it
LIST

# every file of the corpus has its line
for f in "$dir"/*; do
	grep -qx "$(basename "$f")" "$tmp/listed" || fail "$(basename "$f") has no expected message"
done
finish
