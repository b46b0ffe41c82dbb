# SPDX-License-Identifier: GPL-2.0-only
# woody-2004.profile - the Debian boot of the 2004 /dev/anon RFC, rebuilt
# from its published totals.  Jeff Dike (linux-kernel, 13 Jan 2004):
# "booting my Debian image takes about 25% less host memory with ubd-mmap
# and /dev/anon than without (~28M vs ~21M)".  The trace was never
# published; the order and timing of events come from a Debian boot
# recorded here, scaled to these amounts by "anonsim trace gen".
#
# What each figure is made of (host pages after the boot, memory unlimited):
#   read-copy  = tmpfs (pages touched + pages filled by ubd reads)
#                + page cache of the image                      = 28 MiB
#   ubd-mmap   = tmpfs (pages touched) + page cache
#                + /dev/anon map-count tables                   = 21 MiB
# so the pages filled by ubd reads, held twice under read-copy, are the
# difference:
#   read = 28 - 21 = 7 MiB of distinct disk data.
#
# The page cache holds what was read plus what the host read ahead.  The
# 2004 host ran 2.4, whose file readahead stopped at vm_max_readahead = 31
# pages: a 124 KiB window.  Replaying the 7 MiB of reads in the recorded
# order with that window brings 11.16 MiB into the page cache, and 64 MiB
# of memory on i386 needs 0.07 MiB of map-count tables (an indirect page
# and 16 leaves of 1024 counts), so
#   touch = 21 - 11.16 - 0.07 = 9.77 MiB of other pages written;
# some touched pages are also read into, so 10100 KiB (9.86 MiB) of touches
# give 21.0 MiB under devanon.  Read-copy then comes out at 27.9 MiB and
# punch at 20.9 MiB (no map-count tables).
#
# Memory: the RFC does not give mem=; 64 MiB was the usual UML size then
# and holds the pages this boot uses.
ordering debian-boot-64M.trace.gz
memory 64M
read 7M
touch 10100K
free 0
readahead-kb 124
backing woody-2004-image
note synthetic: the 2004 RFC's Debian boot rebuilt from its published totals
note order and timing from debian-boot-64M.trace.gz
