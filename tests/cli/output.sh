#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Outputs that never lie: a failed write of any output, standard output
# included, exits 5 with a message and leaves no file behind; an output
# that is also an input is refused before work starts (1); devices and
# FIFOs are written where they are, symbolic links followed; SIGINT,
# SIGTERM and SIGHUP remove the temporary files and exit 128 + signal.
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "$top_srcdir" && pwd)
t=$src/tests/model/replay/density.trace
cd "$tmp" || exit 1

if [ -w /dev/full ]; then
	# standard output, checked when closed
	"$ANONSIM" replay --json "$t" >/dev/full 2>err; st=$?
	[ "$st" -eq 5 ] || fail "replay --json >/dev/full exited $st, expected 5"
	expect_match "$(cat err)" "standard output: write failed"
	"$ANONSIM" trace cat "$t" >/dev/full 2>err; st=$?
	[ "$st" -eq 5 ] || fail "trace cat >/dev/full exited $st, expected 5"
	# a device is written directly; its failure shows at fclose
	expect_status 5 "$ANONSIM" density -m 1M -o /dev/full "$t"
	expect_match "$err" "/dev/full: write failed"
	expect_status 5 "$ANONSIM" replay -q --series /dev/full "$t"
fi

# the output is one of the inputs: refused, the input intact
cp "$t" in.trace
expect_status 1 "$ANONSIM" density -m 1M -o in.trace in.trace
expect_match "$err" "in.trace: the output is also the input in.trace"
cmp -s in.trace "$t" || fail "density -o in.trace in.trace changed its input"
ln -s in.trace alias.trace
expect_status 1 "$ANONSIM" replay -q --series alias.trace in.trace
expect_status 1 "$ANONSIM" trace convert in.trace alias.trace
cmp -s in.trace "$t" || fail "an output named by a link changed the input"

# a symbolic link: the file it names is replaced, the link stays
echo old >real.csv
ln -s real.csv link.csv
expect_status 0 "$ANONSIM" density -m 1M --csv -o link.csv "$t"
[ -L link.csv ] || fail "density -o LINK replaced the link"
head -1 real.csv | grep -q '^strategy,' || fail "density -o LINK did not write the file it names"

# a FIFO is written, not replaced
mkfifo fifo
cat fifo >fifo.out &
expect_status 0 "$ANONSIM" density -m 1M --csv -o fifo "$t"
wait
[ -p fifo ] || fail "density -o FIFO replaced the FIFO"
[ "$(head -c 9 fifo.out)" = "strategy," ] || fail "density -o FIFO wrote nothing into it"

# signals: the command waits on an input FIFO with its output open
sig_test() {	# sig_test SIGNAL STATUS OUTPUT CMD...
	sig=$1 want=$2 output=$3; shift 3
	if signal_ignored $((want - 128)); then
		echo "SKIP: SIG$sig is ignored where this test runs (started in the background or under nohup): not sent to $1 $2"
		return
	fi
	rm -f in.fifo; mkfifo in.fifo
	rm -f pid
	# in the foreground, so that SIGINT is not ignored; a command still
	# there 20 s after the signal is killed, and fails the test, not hangs
	( i=0; while [ ! -s pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	  i=0; while ! ls "$output".tmp* >/dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	  kill -"$sig" "$(cat pid)"
	  i=0; while kill -0 "$(cat pid)" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	  kill -KILL "$(cat pid)" 2>/dev/null ) &
	sh -c 'echo $$ >pid; exec "$@"' sh "$@" >/dev/null 2>&1
	got=$?
	wait
	[ "$got" -eq "$want" ] || fail "$* on SIG$sig exited $got, expected $want"
	left=$(ls | grep "\.tmp")
	[ -z "$left" ] || fail "$* on SIG$sig left $left"
	rm -f "$output"* in.fifo
}
sig_test INT 130 s.csv "$ANONSIM" replay -q --series s.csv in.fifo
sig_test TERM 143 s.csv "$ANONSIM" replay -q --series s.csv in.fifo
sig_test HUP 129 d.csv "$ANONSIM" density -m 1M -o d.csv in.fifo
# reproduce: its outputs and its scratch trace under $TMPDIR
mkdir scratch data
TMPDIR=$tmp/scratch sig_test TERM 143 data/footprint.csv \
	"$ANONSIM" reproduce -c "$src/traces/reproduce.conf" -d data
[ -z "$(ls -A scratch)$(ls -A data)" ] || fail "reproduce on SIGTERM left $(ls -A scratch data)"
finish
