# SPDX-License-Identifier: GPL-2.0-only
# tests/guest/lib.sh - for the tests of /dev/anon in a real kernel: source
# after tests/lib.sh.  Finds the UML kernel that src/kernel/linux/build-uml.sh
# built in $KERNEL_DIR; without one the test skips (77), or fails under
# make check-kernel (KERNEL_REQUIRED=1), which builds it first.

ksrc=${KERNEL_DIR:-}/linux-source-6.1

need_kernel() {
	why=
	if [ -z "${KERNEL_DIR:-}" ] || [ ! -x "$KERNEL_DIR/linux" ] || [ ! -f "$KERNEL_DIR/.built" ] ||
	   [ ! -f "$ksrc/Module.symvers" ]; then
		why="no UML kernel built in ${KERNEL_DIR:-(KERNEL_DIR unset)}: make check-kernel builds one"
	else
		# the tree compiles the very files of this source tree
		for f in anon.c shmem_table.c shmem_inode.c kapi.h; do
			[ "$(readlink -f "$ksrc/drivers/misc/devanon/$f")" = \
			  "$(readlink -f "$top_srcdir/src/kernel/$f")" ] ||
				why="the kernel in $KERNEL_DIR was built from other sources than $top_srcdir: make kernel"
		done
		for f in "$top_srcdir"/src/kernel/*.[ch] "$top_srcdir"/src/kernel/linux/*; do
			[ "$f" -nt "$KERNEL_DIR/.built" ] &&
				why="$f is newer than the kernel in $KERNEL_DIR: make kernel"
		done
	fi
	[ -z "$why" ] && return 0
	if [ "${KERNEL_REQUIRED:-0}" = 1 ]; then
		echo "FAIL: $why" >&2
		exit 1
	fi
	echo "SKIP: $why"
	exit 77
}

# kernel_warnings FILE...: the first line of each warning, bug, oops or
# panic the guest kernel printed, but one: UML 6.1's fork handler
# (force_flush_all() in arch/um/kernel/tlb.c) walks the vmas without the
# mmap lock, which lockdep reports as "suspicious RCU usage" with that
# function in the backtrace; the driver plays no part in it.
kernel_warnings() {
	awk '
	function flush() { if (head != "" && !known) print head; head = ""; known = 0 }
	FNR == 1 { flush() }
	/WARNING|BUG|Oops|Kernel panic/ {
		flush(); head = $0; rcu = ($0 ~ /suspicious RCU usage/); n = 0; next
	}
	head != "" && rcu && /force_flush_all/ { known = 1 }
	head != "" && ++n > 60 { flush() }
	END { flush() }' "$@"
}
