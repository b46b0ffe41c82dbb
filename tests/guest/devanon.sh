#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /dev/anon in a UML 6.1 guest against the model, page for page.
#
# Boots the kernel built in $KERNEL_DIR with the host's tree as a read-only
# hostfs root and tests/guest/devanon_guest as init (its scenario: mmap,
# touch, a file mapped over part of the range, munmap, fork, exit, mremap,
# mprotect, partial munmap; then pages paged out to a swap device and
# unmapped; then the driver's bounds, mmaps under injected allocation
# failures and an injected failure of shmem's ->mmap, and processes racing on one descriptor, each checked in the
# guest; then tests/guest/devanon_selftest, kselftest-style, built here
# against the kernel tree's kselftest_harness.h).  The kernel's KUnit
# suite of the reference code, run at boot, must pass, and no splat but
# UML's own may appear.  The guest prints,
# after each step, the
# resident pages and map counts the driver reports, having checked them
# against Shmem in /proc/meminfo and the driver's counters; the model's
# devanon (fixed) replaying the same steps (tests/guest/steps.trace) must
# print the very same lines, and both the worked-out ones in
# tests/guest/steps.expected.  Then, in the guest, anonsim live --strategy
# devanon runs the hand-made live traces and a shipped trace against the
# simulator.  The UML and everything it made go on exit and on signals.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/guest/lib.sh"
need_kernel

guest=$top_builddir/tests/guest/devanon_guest
steps=$top_builddir/tests/guest/model_steps
[ -x "$guest" ] && [ -x "$steps" ] || { echo "SKIP: the guest test programs were not built (Linux only)"; exit 77; }
command -v setsid >/dev/null 2>&1 || { echo "SKIP: setsid (util-linux) is not installed"; exit 77; }
PATH=$PATH:/sbin:/usr/sbin
command -v mke2fs >/dev/null 2>&1 || { echo "SKIP: mke2fs (e2fsprogs) is not installed"; exit 77; }
command -v mkswap >/dev/null 2>&1 || { echo "SKIP: mkswap (util-linux) is not installed"; exit 77; }

tmp=$(cd "$tmp" && pwd)
guest=$(cd "${guest%/*}" && pwd)/${guest##*/}
anonsim=$(cd "${ANONSIM%/*}" && pwd)/${ANONSIM##*/}
top=$(cd "$top_srcdir" && pwd)
cleanup() {
	guest_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# the 4-page image mapped over memory: page k holds bytes 0xa0 + k
for k in 0 1 2 3; do
	head -c 4096 /dev/zero | tr '\000' "\\$(printf '%o' $((0xa0 + k)))"
done >"$tmp/disk.img"
# the guest's scratch disk for anonsim live (a disk filesystem, as it wants)
mkdir "$tmp/scratch"
mke2fs -q -F -t ext2 "$tmp/scratch.img" 3G || fail "mke2fs of the scratch disk failed"
# and its swap device
head -c 16777216 /dev/zero >"$tmp/swap.img"
chmod 600 "$tmp/swap.img"
mkswap "$tmp/swap.img" >/dev/null || fail "mkswap failed"

# what the guest runs after its scenario: anonsim live on the kernel's
# /dev/anon, each trace against the model (0: tmpfs pages equal, page cache
# within 2 %).  Readahead is off on the scratch disk: the model's readahead
# is that of the host kernel (README), not of 6.1's ext2 on ubd, and /dev/anon
# is what is tested here.  huge.trace is left out: its 1 TiB disk file cannot
# be mapped to be counted in the guest's 512 GiB of address space; and
# active-target.trace: its 273 MiB of touched guest memory, a test of the
# host's reclaim under -m, does not fit the guest's 256 MiB.
# the kselftest-style program, built against the tree of the kernel
"${CC:-cc}" -static -O2 -Wall -Werror -I"$ksrc/tools/testing/selftests" \
	-o "$tmp/devanon_selftest" "$top/tests/guest/devanon_selftest.c" ||
	fail "tests/guest/devanon_selftest.c did not build"

cat >"$tmp/then.sh" <<EOF
"$tmp/devanon_selftest"
echo "selftest: exit \$?"
echo 0 >/sys/block/ubdb/queue/read_ahead_kb || exit 1
rc=0
for t in "$top"/tests/live/traces/*.trace \
	 \$(ls "$top"/tests/model/replay/*.trace | grep -Ev '/(huge|active-target)\.trace\$') \
	 "$top"/tests/guest/steps.trace "$top"/traces/debian-boot-64M.trace.gz; do
	echo "live: \$t"
	"$anonsim" live --strategy devanon --dir "$tmp/scratch" "\$t"
	s=\$?
	echo "live: exit \$s"
	[ \$s -eq 0 ] || rc=1
done
exit \$rc
EOF

guest_boot "$guest" ubd0="$tmp/disk.img" ubd1="$tmp/scratch.img" \
	ubd2="$tmp/swap.img" guest_swap=/dev/ubdc \
	guest_scratch="$tmp/scratch" guest_then="$tmp/then.sh"

# what the guest said, but the steps (compared below)
sed -n '/as init process/,$p' "$tmp/console.txt" | grep -v '^step ' || true
[ "$status" -eq 0 ] || fail "the guest kernel exited with status $status"
grep -q '^guest: result pass$' "$tmp/console.txt" ||
	fail "the guest did not pass: $(grep -E '^guest: (FAIL|result)' "$tmp/console.txt" | head -n 5)"
# the reference code's KUnit suite ran at boot: six cases, all ok
tr -d '\r' <"$tmp/kernel.log" | cat - "$tmp/console.txt" >"$tmp/boot.txt"
grep -Eq '^ok [0-9]+ (- )?devanon$' "$tmp/boot.txt" ||
	fail "the KUnit suite devanon did not pass: $(grep -E 'not ok|# Subtest: devanon' "$tmp/boot.txt" | head -n 3)"
kunit_cases=$(grep -Ec '^ +ok [0-9]+ (- )?anon_test_' "$tmp/boot.txt")
[ "$kunit_cases" -eq 6 ] || fail "the KUnit suite devanon passed $kunit_cases cases, not 6"
# the selftests: nine, all passed
grep -q '^selftest: exit 0$' "$tmp/console.txt" ||
	fail "devanon_selftest failed: $(grep -E '^(not ok|# .*(FAIL|Expected))' "$tmp/console.txt" | head -n 5)"
selftests=$(grep -Ec '^ok [0-9]+ global\.' "$tmp/console.txt")
[ "$selftests" -eq 9 ] || fail "devanon_selftest passed $selftests tests, not 9"
warned=$(kernel_warnings "$tmp/console.txt" "$tmp/kernel.log")
[ -z "$warned" ] || fail "the guest kernel warned: $(printf '%s\n' "$warned" | head -n 3)"

grep -q '^guest: swap: unmapped: 8 reclaimed; after swapoff 0 resident$' "$tmp/console.txt" ||
	fail "the swap entries of unmapped pages were not freed"

grep '^step ' "$tmp/console.txt" >"$tmp/guest.steps"
expect_status 0 "$steps" "$top/tests/guest/steps.trace"
printf '%s\n' "$out" >"$tmp/model.steps"
diff "$top/tests/guest/steps.expected" "$tmp/model.steps" >"$tmp/d1" ||
	fail "the model differs from the worked-out steps: $(cat "$tmp/d1")"
diff "$tmp/model.steps" "$tmp/guest.steps" >"$tmp/d2" ||
	fail "/dev/anon in the guest differs from the model: $(cat "$tmp/d2")"
[ "$(wc -l <"$tmp/guest.steps")" -eq 14 ] || fail "the guest reported $(wc -l <"$tmp/guest.steps") steps, not 14"

# the same steps through anonsim replay: no simulator failure, everything freed
expect_status 0 "$ANONSIM" replay --strategy devanon --variant fixed --check --csv --pages \
	"$top/tests/guest/steps.trace"
live_want=$(($(ls "$top"/tests/live/traces/*.trace "$top"/tests/model/replay/*.trace |
	grep -Evc '/(huge|active-target)\.trace$') + 2))
live_got=$(grep -c '^live: exit 0$' "$tmp/console.txt")
[ "$live_got" -eq "$live_want" ] || fail "anonsim live passed $live_got traces of $live_want in the guest"
echo "KUnit devanon: $kunit_cases cases ok; selftests: $selftests ok; $(wc -l <"$tmp/guest.steps") steps agree page for page; anonsim live: $live_got of $live_want traces agree"
finish
