#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Out of memory: a replay that needs more memory than "ulimit -v" leaves
# ends with one line naming the command, what was being allocated and the
# trace, exit status 5, and no output file or temporary behind.  Skipped
# (77) where the tool cannot start under the limit (sanitizer builds
# reserve terabytes of address space).
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "$top_srcdir" && pwd)
limit=120000	# KiB of address space
cd "$tmp" || exit 1

# a small replay fits under the limit ...
(ulimit -v $limit && "$ANONSIM" replay -q "$src/tests/model/replay/basic.trace") >/dev/null 2>&1 || {
	echo "anonsim cannot replay a small trace under ulimit -v $limit (a sanitizer build?)"
	exit 77
}
# ... this one touches 2^28 pages (1 TiB): its per-page state alone
# needs 2 GiB
cat >huge.trace <<'END'
anonsim-trace 1
page-size 4096
memory 1099511627776
device ubda size=65536 backing=tiny-image
events
0 mmap 0x60000000 1099511627776 0
10 touch 0 268435456
END
expect_status 0 "$ANONSIM" trace check huge.trace

for s in read-copy devanon punch; do
	(ulimit -v $limit && exec "$ANONSIM" replay -s $s --series series.csv huge.trace) \
		>out 2>err
	st=$?
	[ "$st" -eq 5 ] || fail "replay -s $s exited $st under ulimit -v $limit, expected 5"
	[ "$(cat err)" = "anonsim replay: out of memory allocating per-page state for huge.trace" ] ||
		fail "replay -s $s: unexpected message: $(cat err)"
	[ ! -s out ] || fail "replay -s $s printed a result: $(cat out)"
done
# density replays the limited and the unlimited host side by side, the
# unlimited one in a child process that sends its failure to the parent
# to report, and which runs out first is a race (either message is true,
# and exactly one line is printed: see the loop below); -j 1 runs the
# limited replay first, alone, and its first allocation to fail is the
# host's reclaim list
(ulimit -v $limit && exec "$ANONSIM" density -j 1 -m 1G -o density.csv huge.trace) >out 2>err
st=$?
[ "$st" -eq 5 ] || fail "density exited $st under ulimit -v $limit, expected 5"
[ "$(cat err)" = "anonsim density: out of memory allocating a reclaim list for huge.trace" ] ||
	fail "density: unexpected message: $(cat err)"
# in parallel, both replays may run out at once: one reports, in one line
for i in 1 2 3 4 5; do
	(ulimit -v $limit && exec "$ANONSIM" density -m 1G -o density.csv huge.trace) >out 2>err
	st=$?
	[ "$st" -eq 5 ] || fail "density (parallel) exited $st under ulimit -v $limit, expected 5"
	case $(cat err) in
	"anonsim density: out of memory allocating per-page state for huge.trace" | \
	"anonsim density: out of memory allocating a reclaim list for huge.trace") ;;
	*) fail "density (parallel): unexpected message: $(cat err)" ;;
	esac
done
left=$(ls | grep -v -e '^huge.trace$' -e '^out$' -e '^err$')
[ -z "$left" ] || fail "files left behind: $left"
finish
