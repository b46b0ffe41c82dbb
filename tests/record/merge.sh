#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim-record --from-logs on hand-made recorder logs: the trace events
# worked out from them, whole and cut at a phase (--until, as
# density-real.sh writes the trace of a UML frozen at work-done), and the
# refusals.  No UML is booted and no root is needed; skips (77) where the
# recorder is not built (not Linux).
. "${top_srcdir:-.}/tests/lib.sh"

rec=$top_srcdir/src/record
tools=$top_builddir/src/record
[ -x "$tools/anonsim-rec-host" ] && [ -f "$tools/uml_preload.so" ] ||
	{ echo "SKIP: the recorder was not built (Linux only)"; exit 77; }
command -v setarch >/dev/null 2>&1 || { echo "SKIP: setarch (util-linux) is not installed"; exit 77; }

# the disk: any file of the size the device has
logs=$tmp/logs
mkdir "$logs"
: >"$tmp/disk.img"
truncate -s 16M "$tmp/disk.img" || fail "truncate"
# host.log (anonsim-rec-host): start, memory file inode 42, residency,
# host memory (first without its anonymous part, as older recorders
# logged it), console lines (phases, a guest free), told UML was frozen
# 0.6 ms after work-done (Z), and after that what a frozen UML's recorder
# would still log, its footprint among it
cat >"$logs/host.log" <<'EOF'
1000000000 S
1000100000 I 42
1001000000 N 0 2
1001500000 H 100
1002000000 C anonsim-phase booted
1003000000 N 5 1
1003200000 C @anonsim F 0 1
1004000000 C anonsim-phase work-done
1004500000 N 12 1
1004600000 Z
1005000000 N 9 1
1006000000 H 50 30
1007000000 F 4
EOF
# io.log (uml_preload.so): the memory file mapped, a read before
# work-done, one before the freeze, one after it
cat >"$logs/io.log" <<'EOF'
1000500000 M 77 4096 67108864 0 42
1003500000 R 77 0 0 0 4096 3
1004400000 R 77 0 0 4096 4096 7
1004800000 R 77 0 0 8192 4096 8
EOF
: >"$logs/console.log"
record() {	# OUT ARGS...: --from-logs the hand-made logs
	_out=$1
	shift
	sh "$rec/uml/anonsim-record" --tools "$tools" --from-logs "$logs" "$@" -o "$_out" -- \
		/bin/true mem=64M ubd0="$tmp/disk.img"
}
events() { sed -n '/^events$/,$p' "$1" | sed 1d | tr '\n' '|'; }

# times in microseconds from the start; the free is of a page the host
# saw (page 0); the read into page 3 is not a touch; cut where UML was
# frozen (Z): the read and the page seen after work-done are kept
expect_status 0 record "$tmp/cut.trace" --until work-done --reclaim paused
expect_match "$(events "$tmp/cut.trace")" \
	'^500 mmap 4096 67108864 0\|1000 touch 0 2\|1500 host 100\|2000 phase booted\|3000 touch 5 1\|3200 free 0 1\|3500 read ubda 0 4096 3\|4000 phase work-done\|4400 read ubda 4096 4096 7\|4500 touch 12 1\|$'
expect_match "$(grep '^recorder ' "$tmp/cut.trace")" \
	' residency-interval-ms=10 guest-interval-ms=none aslr=off proactive-reclaim=paused host-memory=memcg$'
expect_match "$(grep '^note uml:' "$tmp/cut.trace")" "^note uml: /bin/true mem=64M ubd0=$tmp/disk\\.img\$"
expect_status 0 "$ANONSIM" trace check "$tmp/cut.trace"

# whole: what came after work-done too, and the footprint (the disk's
# page cache as the host holds it now, not checked)
expect_status 0 record "$tmp/whole.trace"
expect_match "$(events "$tmp/whole.trace")" \
	'^500 mmap 4096 67108864 0\|1000 touch 0 2\|1500 host 100\|2000 phase booted\|3000 touch 5 1\|3200 free 0 1\|3500 read ubda 0 4096 3\|4000 phase work-done\|4400 read ubda 4096 4096 7\|4500 touch 12 1\|4800 read ubda 8192 4096 8\|5000 touch 9 1\|6000 host 50 30\|7000 footprint tmpfs 4\|7000 footprint cache:ubda [0-9]+\|$'
expect_match "$(grep '^recorder ' "$tmp/whole.trace")" ' proactive-reclaim=unknown host-memory=memcg$'

# fallocate calls on the image (ubd's punch-hole and zero-range for the
# guest's discards and write-zeroes) are no events: the trace counts them
# in a note (calls; whole pages covered: 16, 2, 1 of 6144 bytes at 4096,
# and 1; modes in the order first seen), anonsim-record warns once, and
# the events are those of the same logs without them.  One falls after
# the freeze, one names a file no device has.
expect_match "$(grep -c '^note left out' "$tmp/whole.trace")" '^0$'
cp -r "$logs" "$tmp/flogs"
cat >>"$tmp/flogs/io.log" <<'EOF'
1003600000 A 77 0 0 1048576 65536 17
1003700000 A 77 0 0 2097152 8192 3
1003800000 A 77 0 0 4096 6144 17
1003900000 A 77 0 5 0 4096 3
1004700000 A 77 0 0 0 4096 3
EOF
frecord() {	# OUT ARGS...: --from-logs the logs with fallocate calls
	_out=$1
	shift
	sh "$rec/uml/anonsim-record" --tools "$tools" --from-logs "$tmp/flogs" "$@" -o "$_out" -- \
		/bin/true mem=64M ubd0="$tmp/disk.img"
}
quote() { sed 's/[].|()*+?{}^$[\\]/\\&/g'; }	# TEXT as an ERE
nocache() { sed 's/footprint cache:ubda [0-9]*/footprint cache:ubda N/'; }
cure=" are not in the trace: replay keeps in the host page cache what they dropped. Record from an image whose inode tables are initialised (mkfs.ext4 -E lazy_itable_init=0,lazy_journal_init=0, as mkimage-debian.sh makes them): the guest's ext4lazyinit zeroes the others through ubd"
expect_status 0 frecord "$tmp/fwhole.trace"
expect_match "$(grep '^note ' "$tmp/fwhole.trace" | sed -n '$p')" \
	"^$(echo "note left out: 4 fallocate calls on the images (20 pages of 4 KiB; zero-range|keep-size 2, punch-hole|keep-size 2): ubd's discards and write-zeroes for the guest, which drop those pages from the host page cache; no event holds them" | quote)\$"
expect_match "$err" \
	"^$(echo "anonsim-record: warning: 4 fallocate calls on the images (20 pages of 4 KiB; zero-range|keep-size 2, punch-hole|keep-size 2)$cure" | quote)\$"
expect_match "$(events "$tmp/fwhole.trace" | nocache)" "^$(events "$tmp/whole.trace" | nocache | quote)\$"
expect_status 0 "$ANONSIM" trace check "$tmp/fwhole.trace"
expect_status 0 frecord "$tmp/fcut.trace" --until work-done
expect_match "$(grep '^note left out' "$tmp/fcut.trace")" \
	"^$(echo "note left out: 3 fallocate calls on the images (19 pages of 4 KiB; zero-range|keep-size 2, punch-hole|keep-size 1): ubd's discards and write-zeroes for the guest, which drop those pages from the host page cache; no event holds them" | quote)\$"
expect_match "$err" \
	"^$(echo "anonsim-record: warning: 3 fallocate calls on the images (19 pages of 4 KiB; zero-range|keep-size 2, punch-hole|keep-size 1)$cure" | quote)\$"
expect_match "$(events "$tmp/fcut.trace")" "^$(events "$tmp/cut.trace" | quote)\$"

# without host events: host-memory=none; without the freeze (Z), cut at
# the phase line itself
grep -v -e ' H ' -e ' Z$' "$logs/host.log" >"$tmp/h" && mv "$tmp/h" "$logs/host.log"
expect_status 0 record "$tmp/nohost.trace" --until work-done
expect_match "$(events "$tmp/nohost.trace")" \
	'^500 mmap 4096 67108864 0\|1000 touch 0 2\|2000 phase booted\|3000 touch 5 1\|3200 free 0 1\|3500 read ubda 0 4096 3\|4000 phase work-done\|$'
expect_match "$(grep '^recorder ' "$tmp/nohost.trace")" ' host-memory=none$'

# refusals: exit 1, a line naming what to fix, no trace written
expect_status 1 record "$tmp/r1.trace" --until never
expect_match "$err" "^anonsim-record: $logs/host\\.log: the guest never printed 'anonsim-phase never'\$"
expect_status 1 record "$tmp/r2.trace" --until 'work done'
expect_match "$err" "^anonsim-record: --until: a phase name \\(letters, digits, _ \\. -\\), not 'work done'\$"
rm "$logs/io.log"
expect_status 1 record "$tmp/r3.trace"
expect_match "$err" "^anonsim-record: $logs/io\\.log not found \\(--from-logs needs a recorded boot's logs\\)\$"
for f in r1 r2 r3; do [ ! -e "$tmp/$f.trace" ] || fail "$f.trace written"; done
finish
