#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Record a real User-Mode Linux boot of the busybox image end to end, check
# the trace and hold read-copy to the footprint measured while recording.
# Skips (77) when user-mode-linux or the image tools are missing.
. "${top_srcdir:-.}/tests/lib.sh"

skip() { echo "SKIP: $*"; exit 77; }

rec=$top_srcdir/src/record
tools=$top_builddir/src/record
[ "$(uname -s)" = Linux ] || skip "the recorder needs a Linux host"
[ -x /usr/bin/linux ] || skip "user-mode-linux is not installed (/usr/bin/linux)"
command -v mke2fs >/dev/null 2>&1 || [ -x /sbin/mke2fs ] || skip "mke2fs (e2fsprogs) is not installed"
command -v busybox >/dev/null 2>&1 || skip "busybox (busybox-static) is not installed"
command -v setarch >/dev/null 2>&1 || skip "setarch (util-linux) is not installed"
[ -x "$tools/anonsim-rec-host" ] && [ -f "$tools/uml_preload.so" ] &&
	[ -x "$tools/kpage-sampler" ] || skip "the recorder was not built"
PATH=$PATH:/sbin:/usr/sbin

expect_status 0 sh "$rec/images/mkimage-busybox.sh" --sampler "$tools/kpage-sampler" "$tmp/bb.img"
expect_status 0 sh "$rec/uml/anonsim-record" --tools "$tools" --timeout 60 \
	--keep "$tmp/raw" -o "$tmp/bb.trace.gz" -- \
	/usr/bin/linux mem=64M ubd0="$tmp/bb.img" root=/dev/ubda rw \
	init=/sbin/anonsim-init con=null con0=fd:0,fd:1
[ -s "$tmp/bb.trace.gz" ] || { fail "no trace written; stderr: $err"; finish; }

gzip -dc "$tmp/bb.trace.gz" >"$tmp/bb.trace"
t=$tmp/bb.trace

# the header, exactly
expect_match "$(sed -n 1p "$t")" '^anonsim-trace 1$'
expect_match "$(grep '^memory ' "$t")" '^memory 67108864$'
expect_match "$(grep '^device ' "$t")" '^device ubda size=16777216 backing=sha256:[0-9a-f]{64}$'
expect_match "$(grep '^recorder ' "$t")" 'residency-interval-ms=10 guest-interval-ms=50 aslr=off'
expect_match "$(grep -c '^events$' "$t")" '^1$'

# the events: ordered in time, pages inside the 16384 of mem=64M, both
# phases of the init, reads of the 2 MiB file, frees from the guest sampler
body=$(sed '1,/^events$/d' "$t")
bad=$(printf '%s\n' "$body" | awk '
	$1 < last { print "time goes back at " NR }
	{ last = $1 }
	($2 == "read" || $2 == "write") && ($4 % 512 || $5 % 512 || $6 >= 16384) { print "bad transfer: " $0 }
	($2 == "touch" || $2 == "free") && ($3 + $4 > 16384 || $4 < 1) { print "bad range: " $0 }' | head -n 3)
[ -z "$bad" ] || fail "$bad"
expect_match "$(printf '%s\n' "$body" | awk '$2 == "phase" { printf "%s ", $3 }')" '^boot-done work-done $'
for kind in read touch free mmap; do
	n=$(printf '%s\n' "$body" | awk -v k=$kind '$2 == k { n++ } END { print n + 0 }')
	[ "$n" -gt 0 ] || fail "no $kind events"
done
reads=$(printf '%s\n' "$body" | awk '$2 == "read" { n += $5 } END { print n + 0 }')
[ "$reads" -ge 2097152 ] || fail "read only $reads bytes; the guest read a 2 MiB file"
expect_match "$(printf '%s\n' "$body" | tail -n 2 | awk '{ print $2, $3 }' | sort | tr '\n' ' ')" \
	'^footprint cache:ubda footprint tmpfs $'

# the project's own reader
expect_status 0 "$ANONSIM" trace check "$tmp/bb.trace.gz"

# The fidelity comparison runs on the recording (0: within tolerance, 4:
# beyond; 2 would mean no footprint). Its tmpfs count must match exactly:
# touches come from the host's residency samples, so a difference is a
# recorder bug. The page-cache bound is the fidelity test's to hold.
"$ANONSIM" fidelity "$tmp/bb.trace.gz" >"$tmp/fid" 2>&1
st=$?
[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || fail "fidelity exited $st: $(cat "$tmp/fid")"
tm=$(awk -v f="$tmp/bb.trace.gz" '$1 == f { print $2, $3 }' "$tmp/fid")
expect_match "$tm" '^([0-9]+) \1$'
[ "$failures" -eq 0 ] || cat "$tmp/fid" >&2
finish
