#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make-forms.sh - the forms-*.strace logs of tests/trace/import.sh, written
# by strace itself: forms.c run under strace -f in each form strace writes
# its lines in.  Run by hand as root: a PID namespace of its own gives the
# process ids, four digits for the program (strace forks checks of its
# own first: 4973 here) and 20000 for its io thread, or one digit each in
# forms-pid1; needs strace, a C compiler with static glibc, unshare.
#     sh tests/trace/import-logs/make-forms.sh [DIR]
# writes into DIR (default: beside this script).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
[ "$(id -u)" = 0 ] || { echo "make-forms.sh: needs root (a PID namespace)" >&2; exit 1; }
for t in strace cc unshare; do
	command -v $t >/dev/null 2>&1 || { echo "make-forms.sh: $t not found" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-forms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cc -static -O2 -o "$tmp/forms" "$here/forms.c"
head -c 65536 /dev/zero >"$tmp/disk"

calls=pread64,pwrite64,preadv,pwritev,mmap,munmap,clone
raw=pread64,pwrite64,preadv
# NAME PIDS STRACE-OPTIONS...: PIDS is 4971 (the first process id after
# 4970; the io thread's 20000) or 1 (those the namespace gives out first)
run() {
	name=$1 pids=$2
	shift 2
	if [ "$pids" = 4971 ]; then
		set -- env FORMS_IO_PID=20000 "$@"
		first=4970
	else
		first=
	fi
	(cd "$tmp" && unshare --pid --fork --mount-proc sh -c \
		'[ -z "$1" ] || echo "$1" >/proc/sys/kernel/ns_last_pid; shift; exec "$@"' \
		sh "$first" "$@" ./forms disk)
	echo "make-forms.sh: $name"
}
o() { echo "$out/forms-$1.strace"; }

run ttt 4971 strace -f -ttt -e trace=$calls -e raw=$raw -o "$(o ttt)"
run tt 4971 strace -f -tt -e trace=$calls -e raw=$raw -o "$(o tt)"
run t 4971 strace -f -t -e trace=$calls -e raw=$raw -o "$(o t)"
run r 4971 strace -f -r -e trace=$calls -e raw=$raw -o "$(o r)"
run t-r 4971 strace -f -t -r -e trace=$calls -e raw=$raw -o "$(o t-r)"
run ns 4971 strace -f --timestamps=unix,ns -e trace=$calls -e raw=$raw -o "$(o ns)"
run none 4971 strace -f -e trace=$calls -e raw=$raw -o "$(o none)"
run yy 4971 strace -f -ttt -yy -e trace=$calls -e raw=$raw -o "$(o yy)"
run pid1 1 strace -f -ttt -e trace=$calls -e raw=$raw -o "$(o pid1)"
# no -o: "[pid N]" once there are two processes, and strace's own
# "Process N attached" in the middle of the clone line
run stderr 4971 sh -c 'c=$1 r=$2; shift 2; exec strace -f -ttt -e trace=$c -e raw=$r "$@" 2>"$0"' \
	"$(o stderr)" "$calls" "$raw"
# without -f: the main process alone, no process id column
run main 4971 strace -ttt -e trace=$calls -e raw=$raw -o "$(o main)"
# without -e raw: the buffers' data instead of their addresses
run data 4971 strace -f -ttt -e trace=$calls -o "$(o data)"
