#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shapes.sh - the generated traces of the calibration corpus: one guest
# shape each, of a 64 MiB UML booted from a 1 GiB image, written as text
# traces (traces/FORMAT.md) into DIR:
#
#   seq-stream     a sequential stream of single-page reads, 40 MiB
#   random-reads   6000 single-page reads at random places of the image
#   shared-reread  a 16 MiB data set read, dropped by the guest, read again
#   tmpfs-churn    guest memory written and freed in rounds, little read
#
# Every shape starts alike: memory mapped, 8 MiB of kernel and early user
# memory touched, "boot-done" at 2 s; it ends with "work-done".  The random
# numbers come from a MINSTD generator of its own, so that any awk writes
# the same traces.
#
# usage: bench/calibrate/shapes.sh DIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 1; }
out=$1
mkdir -p "$out"

# shape NAME: the trace of NAME on standard output
shape() {
	awk -v shape="$1" '
	function rnd() { seed = (seed * 48271) % 2147483647; return seed }
	function ev(t, s) { printf "%d %s\n", t, s }
	BEGIN {
		seed = 20261204
		mib = 1048576
		print "anonsim-trace 1"
		print "page-size 4096"
		print "memory " 64 * mib
		print "device ubda size=" 1024 * mib " backing=calibration-" shape
		print "readahead-kb 8192"
		print "recorder bench/calibrate/shapes.sh shape=" shape
		print "note generated guest shape " shape " of the calibration corpus"
		print "events"
		ev(0, "mmap 0x60000000 " 64 * mib " 0")
		# boot: kernel and early user memory, and the files it reads
		for (p = 0; p < 2048; p += 64)
			ev(100000 + p * 100, "touch " p " 64")
		for (i = 0; i < 256; i++)
			ev(400000 + i * 5000, "read ubda " (i * 16) * 4096 " 65536 " 12288 + (i % 64) * 16)
		ev(2000000, "phase boot-done")
		t = 2000000
		if (shape == "seq-stream") {
			for (i = 0; i < 10240; i++) {
				t += 2000
				ev(t, "read ubda " (25600 + i) * 4096 " 4096 " 2048 + i)
			}
		} else if (shape == "random-reads") {
			for (i = 0; i < 6000; i++) {
				t += 3000
				ev(t, "read ubda " (rnd() % 262144) * 4096 " 4096 " 2048 + i)
			}
			for (p = 8048; p < 10048; p += 16) {
				t += 1000
				ev(t, "touch " p " 16")
			}
		} else if (shape == "shared-reread") {
			for (round = 0; round < 2; round++) {
				base = 2048 + round * 4096
				for (i = 0; i < 4096; i += 16) {
					t += 4000
					ev(t, "read ubda " (76800 + i) * 4096 " 65536 " base + i)
				}
				if (round == 0) {
					t += 10000000
					ev(t, "free 2048 4096")
				}
			}
		} else if (shape == "tmpfs-churn") {
			for (round = 0; round < 5; round++) {
				for (p = 2048; p < 2048 + 6144; p += 32) {
					t += 2000
					ev(t, "touch " p " 32")
				}
				for (i = 0; i < 16; i++) {
					t += 2000
					ev(t, "read ubda " (128000 + round * 256 + i * 16) * 4096 " 65536 " 8192 + i * 16)
				}
				t += 500000
				ev(t, "free 2048 4096")
			}
		}
		t += 100000
		ev(t, "phase work-done")
	}'
}

for s in seq-stream random-reads shared-reread tmpfs-churn; do
	shape "$s" | gzip -9n >"$out/$s.trace.gz.tmp"
	mv "$out/$s.trace.gz.tmp" "$out/$s.trace.gz"
	echo "shapes.sh: wrote $out/$s.trace.gz"
done
