#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# work-reread.sh - guest workload for a recorded trace: a data set read
# whole, dropped from the guest's page cache, and read again.  The second
# read comes from the guest's disk again, that is from the host's page
# cache: what every instance of a density run then re-reads.  The data
# set is the 32 MiB /root/data.bin that mkimage-works.sh adds.
# Installed by mkimage-debian.sh as /anonsim-work (--work) or as a choice
# of the kernel command-line word anonsim.work=reread (--work-choice).
set -eu
data=/root/data.bin
echo "anonsim-phase work-start"
first=$(md5sum <"$data")
echo "anonsim-phase read-1"
sync
echo 3 >/proc/sys/vm/drop_caches
echo "anonsim-phase dropped"
second=$(md5sum <"$data")
[ "$first" = "$second" ] || { echo "work-reread.sh: the two reads differ" >&2; exit 1; }
echo "anonsim-phase read-2"
