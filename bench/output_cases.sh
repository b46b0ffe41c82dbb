#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# output_cases.sh - the hostile output and input cases, each run once, as
# a table: the case, the exit status, the message (stderr's last line) and
# what was left behind.  The full-disk cases need root (a 64 KiB tmpfs,
# unmounted again on exit); without it they are reported as skipped.
#
# usage: bench/output_cases.sh [ANONSIM]     (default ./anonsim)
set -u
anonsim=${1:-./anonsim}
case $anonsim in /*) ;; *) anonsim=$(pwd)/$anonsim ;; esac
srcdir=$(cd "$(dirname "$0")/.." && pwd)
t=$srcdir/tests/model/replay/density.trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-cases.XXXXXX") || exit 1
mnt=
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$tmp" || exit 1
mkdir work
cd work || exit 1

# row CASE STATUS LEFT: one line of the table (the message from ./err)
row() {
	m=$(tail -n 1 ../err 2>/dev/null | sed "s|$tmp|TMP|g; s|$srcdir|SRC|g")
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "${m:-(none)}" "${3:-nothing}"
}
# run CMD...: status in $st, stderr in ../err
run() {
	"$@" >../out 2>../err
	st=$?
}
# left: what the working folder holds beyond what the case made ($keep)
left() {
	ls -A | grep -v -x -F -e err -e out $keep | tr '\n' ' ' | sed 's/ $//'
}

echo "| case | exit | message | left behind |"
echo "|---|---|---|---|"
keep=
run sh -c '"$0" replay --json "$1" >/dev/full' "$anonsim" "$t"
row "replay --json > /dev/full" $st "$(left)"
run sh -c '"$0" trace cat "$1" >/dev/full' "$anonsim" "$t"
row "trace cat > /dev/full" $st "$(left)"
run "$anonsim" density -m 1M -o /dev/full "$t"
row "density -o /dev/full" $st "$(left)"
run "$anonsim" replay -q --series /dev/full "$t"
row "replay --series /dev/full" $st "$(left)"

# a full disk: the write succeeds into stdio's buffer, fclose fails
if [ "$(id -u)" = 0 ] && mkdir ../full && mount -t tmpfs -o size=64k anonsim-cases ../full; then
	mnt=$tmp/full
	dd if=/dev/zero of=../full/filler bs=4k 2>/dev/null
	for c in "density -m 1M -o ../full/d.csv $t" \
		 "replay -q --series ../full/s.csv $t" \
		 "trace convert $t ../full/t.atr" \
		 "replay --csv $t >../full/stdout.csv"; do
		run sh -c "\"$anonsim\" $c"
		l=$(ls -A ../full | grep -v -x -e filler -e stdout.csv | tr '\n' ' ')
		[ -e ../full/stdout.csv ] && l="$l(stdout.csv: the shell's > made it)"
		row "full disk: $(echo "$c" | sed "s|$t|T|; s|\\.\\./full/||")" $st "$l"
		rm -f ../full/stdout.csv
	done
	umount ../full && mnt=
else
	row "full disk (tmpfs of 64 KiB)" skipped "needs root and mount"
fi

# an output that is one of its inputs
cp "$t" in.trace
keep="-e in.trace"
run "$anonsim" density -m 1M -o in.trace in.trace
row "density -o T T" $st "$(cmp -s in.trace "$t" && echo "input intact" || echo "INPUT CHANGED")"
ln -s in.trace alias.trace
keep="$keep -e alias.trace"
run "$anonsim" trace convert in.trace alias.trace
row "trace convert T LINK-TO-T" $st "$(cmp -s in.trace "$t" && echo "input intact" || echo "INPUT CHANGED")"

# a device node, a FIFO, a symbolic link
if mknod null c 1 3 2>/dev/null; then
	keep="$keep -e null"
	run "$anonsim" density -m 1M --csv -o null "$t"
	row "density -o DEVICE-NODE (char 1,3)" $st "$([ -c null ] && echo "still a device")"
else
	row "density -o DEVICE-NODE" skipped "mknod needs root"
fi
mkfifo fifo
keep="$keep -e fifo -e fifo.out"
cat fifo >fifo.out &
run "$anonsim" density -m 1M --csv -o fifo "$t"
wait
row "density -o FIFO (a reader on it)" $st "$([ -p fifo ] && echo "still a FIFO, $(wc -l <fifo.out) lines read")"
echo old >real.csv
ln -s real.csv link.csv
keep="$keep -e real.csv -e link.csv"
run "$anonsim" density -m 1M --csv -o link.csv "$t"
row "density -o SYMLINK" $st "$([ -L link.csv ] && echo "link kept, $(head -c 9 real.csv) in its file")"

# signals while the output is open: the command waits on an input FIFO
sig() {	# sig SIGNAL OUTPUT CMD...
	s=$1 o=$2
	shift 2
	rm -f in.fifo pid
	mkfifo in.fifo
	( i=0; while [ ! -s pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	  i=0; while ! ls "$o".tmp* >/dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	  kill -"$s" "$(cat pid)" ) &
	sh -c 'echo $$ >pid; exec "$@"' sh "$@" >../out 2>../err
	st=$?
	wait
	rm -f in.fifo pid
}
mkdir scratch data
keep="$keep -e scratch -e data"
sig INT s.csv "$anonsim" replay -q --series s.csv in.fifo
row "SIGINT: replay --series" $st "$(left)"
sig INT c.atr "$anonsim" trace convert in.fifo c.atr
row "SIGINT: trace convert" $st "$(left)"
TMPDIR=$tmp/work/scratch sig INT data/footprint.csv \
	"$anonsim" reproduce -c "$srcdir/traces/reproduce.conf" -d data
row "SIGINT: reproduce -d (scratch in TMPDIR)" $st "$(left)$(ls -A scratch data | grep -v -e ':$' -e '^$' | tr '\n' ' ')"

# gzip: a damaged second member, plain data after the last member
sed -n '1,/^events/p' "$t" | gzip -c >two.trace.gz
sed '1,/^events/d' "$t" | gzip -c >second.gz
size=$(wc -c <second.gz)
printf '\377' | dd of=second.gz bs=1 seek=$((size - 6)) conv=notrunc 2>/dev/null
cat second.gz >>two.trace.gz
gzip -c "$t" >trail.trace.gz
echo "plain data" >>trail.trace.gz
keep="$keep -e two.trace.gz -e second.gz -e trail.trace.gz"
run "$anonsim" trace check two.trace.gz
row "gzip: second member damaged (its CRC)" $st
run "$anonsim" replay -q two.trace.gz
row "gzip: the same, replay" $st
run "$anonsim" trace check trail.trace.gz
row "gzip: plain data after the last member" $st

# 1 TiB under a memory limit (ulimit -v 120000 KiB)
cat >huge.trace <<'END'
anonsim-trace 1
page-size 4096
memory 1099511627776
device ubda size=65536 backing=tiny-image
events
0 mmap 0x60000000 1099511627776 0
10 touch 0 268435456
END
keep="$keep -e huge.trace"
run sh -c 'ulimit -v 120000 && exec "$0" replay -q --series s.csv "$1"' "$anonsim" huge.trace
row "1 TiB touched, ulimit -v 120000, replay --series" $st "$(left)"
run sh -c 'ulimit -v 120000 && exec "$0" density -m 1G -o d.csv "$1"' "$anonsim" huge.trace
row "1 TiB touched, ulimit -v 120000, density -o" $st "$(left)"
run sh -c 'ulimit -v 262144 && exec "$0" replay -q --check "$1"' "$anonsim" "$srcdir/tests/model/replay/huge.trace"
row "1 TiB declared, 5 events, ulimit -v 262144, replay --check" $st "$(left)"
