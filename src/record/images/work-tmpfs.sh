#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# work-tmpfs.sh - guest workload for a recorded trace: a job whose files
# live in the guest's tmpfs.  Four rounds each write 4 MiB of random data
# as 9 MiB of hex text into a tmpfs on /tmp, sort it (with a 2 MiB buffer,
# so sort spills its runs to /tmp too), compress the result, check it and
# delete it all: tens of MiB written into guest memory and freed again
# each round, which the host learns nothing of under read-copy.
# Installed by mkimage-debian.sh as /anonsim-work (--work) or as a choice
# of the kernel command-line word anonsim.work=tmpfs (--work-choice).
set -eu
mount -t tmpfs -o size=40m,mode=1777 anonsim-tmp /tmp
trap 'cd / && umount /tmp' EXIT INT TERM HUP
echo "anonsim-phase work-start"
cd /tmp
for round in 1 2 3 4; do
	head -c 4M /dev/urandom | od -An -v -tx4 >data.txt
	sort -S 2M -T /tmp data.txt >sorted.txt
	gzip -1 <sorted.txt >sorted.txt.gz
	[ "$(gzip -dc sorted.txt.gz | wc -l)" = "$(wc -l <data.txt)" ] ||
		{ echo "work-tmpfs.sh: round $round lost lines" >&2; exit 1; }
	rm -f data.txt sorted.txt sorted.txt.gz
	echo "anonsim-phase round-$round"
done
