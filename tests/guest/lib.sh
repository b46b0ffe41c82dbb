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

# guest_boot INIT ARG...: boot the kernel of $KERNEL_DIR (256 MiB, the
# soft-lockup detector at its tightest: watchdog_thresh=1, a report after
# 2 s) with the host's tree as a read-only hostfs root and INIT as init,
# ARGs (ubdN=, guest_*=) besides; UML's files in $tmp.  Leaves the console
# in $tmp/console.txt (CR LF made LF), the kernel's log in $tmp/kernel.log
# and the exit status in $status.  While it runs it is the process group
# $uml, which guest_stop ends (call it on exit and on signals); a guest
# still running after 600 s is stopped.
uml=
guest_boot() {
	init=$1
	shift
	setsid "$KERNEL_DIR/linux" mem=256M watchdog_thresh=1 "$@" root=/dev/root \
		rootfstype=hostfs rootflags=/ ro init="$init" uml_dir="$tmp" \
		con=null con0=fd:0,fd:1 </dev/null >"$tmp/console" 2>"$tmp/kernel.log" &
	uml=$!
	( sleep 600; kill -TERM -- "-$uml" 2>/dev/null ) &
	watchdog=$!
	wait "$uml"
	status=$?
	uml=
	kill "$watchdog" 2>/dev/null
	tr -d '\r' <"$tmp/console" >"$tmp/console.txt"
}

# guest_stop: end the guest guest_boot started, if it still runs.
guest_stop() {
	[ -n "$uml" ] && kill -TERM -- "-$uml" 2>/dev/null && sleep 1 &&
		kill -KILL -- "-$uml" 2>/dev/null
	uml=
}
