#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# work-files.sh - guest workload for a recorded trace: a work phase over
# hundreds of files.  md5sum reads the files of /usr/share and /usr/lib
# of more than 15 KiB and at most 1 MiB, in the order of their names,
# until 64 MiB (some hundreds of files, more than the guest's page cache
# holds), then cat reads every third file of that list again: what the guest
# dropped meanwhile comes back from its disk, that is from the host's
# page cache, which a density run's other instances share.
# Installed by mkimage-debian.sh as /anonsim-work (--work) or as a choice
# of the kernel command-line word anonsim.work=files (--work-choice).
set -eu
list=/tmp/anonsim-files.list
trap 'rm -f "$list"' EXIT INT TERM HUP
echo "anonsim-phase work-start"
find /usr/share /usr/lib -xdev -type f -size +15k -size -1025k -printf '%s\t%p\n' |
	sort -t "$(printf '\t')" -k 2 |
	awk -F '\t' '{ total += $1; if (total > 64 * 1048576) exit; print $2 }' >"$list"
echo "anonsim-phase listed"
xargs -d '\n' md5sum <"$list" >/dev/null
echo "work-files.sh: $(wc -l <"$list") files read"
echo "anonsim-phase files"
awk 'NR % 3 == 0' "$list" | xargs -d '\n' cat >/dev/null
echo "anonsim-phase reread"
