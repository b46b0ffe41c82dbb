#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's style checker, as a maintainer runs it, on the kernel code:
# checkpatch.pl --strict of the unpacked linux-source-6.1 tree on every
# file of src/kernel and src/kernel/linux (src/kernel/user is the userspace
# half, not kernel code).  It must find nothing but the one warning the
# driver answers where it is given: its vm_operations table is copied from
# shmem's at run time, so it cannot be const.  A probe with a typedef must
# fail, so the checker is known to bite.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/guest/lib.sh"

checkpatch=$ksrc/scripts/checkpatch.pl
if [ ! -f "$checkpatch" ] || ! command -v perl >/dev/null 2>&1; then
	why="no $checkpatch (make kernel unpacks linux-source-6.1) or no perl"
	[ "${KERNEL_REQUIRED:-0}" = 1 ] && { echo "FAIL: $why" >&2; exit 1; }
	echo "SKIP: $why"
	exit 77
fi

top=$(cd "$top_srcdir" && pwd)
run_checkpatch() {
	perl "$checkpatch" --no-tree --strict --terse --show-types --no-summary -f "$@"
}

# from a copy: in a git work tree checkpatch leaves a cache file behind
mkdir -p "$tmp/tree/src/kernel/linux"
cp "$top"/src/kernel/*.[ch] "$tmp/tree/src/kernel/"
cp "$top"/src/kernel/linux/*.[ch] "$tmp/tree/src/kernel/linux/"
(cd "$tmp/tree" && run_checkpatch src/kernel/*.[ch] src/kernel/linux/*.[ch]) >"$tmp/found"
line=$(grep -n '^static struct vm_operations_struct devanon_vm_ops;' \
	"$top/src/kernel/linux/dev_anon.c" | cut -d: -f1)
[ -n "$line" ] || fail "dev_anon.c no longer declares devanon_vm_ops where this test looks"
printf 'src/kernel/linux/dev_anon.c:%s: WARNING:CONST_STRUCT: %s\n' "$line" \
	'struct vm_operations_struct should normally be const' >"$tmp/expected"
if ! cmp -s "$tmp/expected" "$tmp/found"; then
	fail "checkpatch --strict finds more than the explained const table:"
	diff "$tmp/expected" "$tmp/found" >&2
fi
# the comment right above the table says why it is not const
sed -n "$((line - 4)),$((line - 1))p" "$top/src/kernel/linux/dev_anon.c" >"$tmp/why"
grep -q 'Not const' "$tmp/why" || fail "the comment above devanon_vm_ops does not say why it is not const"

# the checker bites: a typedef added to a copy of kapi.h is reported
mkdir "$tmp/probe"
cp "$top/src/kernel/kapi.h" "$tmp/probe/kapi.h"
printf 'typedef int probe_t;\n' >>"$tmp/probe/kapi.h"
(cd "$tmp/probe" && run_checkpatch kapi.h) >"$tmp/probe.out"
grep -q 'WARNING:NEW_TYPEDEFS' "$tmp/probe.out" || fail "checkpatch missed a typedef planted in kapi.h"

n=$(ls "$top"/src/kernel/*.[ch] "$top"/src/kernel/linux/*.[ch] | wc -l)
echo "checkpatch --strict on $n files of src/kernel: only the explained const table"
finish
