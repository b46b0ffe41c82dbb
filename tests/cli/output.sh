#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Outputs that never lie: a failed write of any output, standard output
# included, exits 5 with a message and leaves no file behind; an output
# that is also an input is refused before work starts (1); devices and
# FIFOs are written where they are, symbolic links followed; a file
# replaced keeps its mode and group; every signal that would end a
# command (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, ...)
# removes its temporary files, and it exits 128 + the signal; an empty
# output name is refused before any work (1).
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
	# $feed: what a writer puts into the input FIFO before it holds it open
	feeder=
	[ -z "${feed:-}" ] || { { cat "$feed"; exec sleep 30; } >in.fifo & feeder=$!; }
	# in the foreground, so that SIGINT is not ignored; a command still
	# there 20 s after the signal is killed, and fails the test, not hangs
	( i=0; while [ ! -s pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	  i=0; while ! ls "$output".tmp* >/dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	  ls "$output".tmp* >/dev/null 2>&1 || echo "no $output.tmp* appeared" >>no-temp
	  kill -"$sig" "$(cat pid)"
	  i=0; while kill -0 "$(cat pid)" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	  kill -KILL "$(cat pid)" 2>/dev/null ) &
	sh -c 'echo $$ >pid; exec "$@"' sh "$@" >/dev/null 2>&1
	got=$?
	[ -z "$feeder" ] || kill "$feeder" 2>/dev/null
	wait
	[ "$got" -eq "$want" ] || fail "$* on SIG$sig exited $got, expected $want"
	left=$(ls | grep "\.tmp")
	[ -z "$left" ] || fail "$* on SIG$sig left $left"
	[ ! -s no-temp ] || fail "$* on SIG$sig: $(cat no-temp) before the signal"
	rm -f no-temp
	rm -f "$output"* in.fifo
}
sig_test INT 130 s.csv "$ANONSIM" replay -q --series s.csv in.fifo
sig_test TERM 143 s.csv "$ANONSIM" replay -q --series s.csv in.fifo
sig_test HUP 129 d.csv "$ANONSIM" density -m 1M -o d.csv in.fifo
# the signals a command would die of besides: their temporaries go too
sig_test PIPE 141 d.csv "$ANONSIM" density -m 1M -o d.csv in.fifo
sig_test QUIT 131 s.csv "$ANONSIM" replay -q --series s.csv in.fifo
sig_test USR1 138 d.csv "$ANONSIM" density -m 1M -o d.csv in.fifo
# trace convert writes once its reader has the input's first megabytes:
# the FIFO gets a header and 300000 events (5 MB), then is held open
{ printf '%s\n' 'anonsim-trace 1' 'page-size 4096' 'memory 1048576' \
	'device ubda size=1048576 backing=x' 'events' '0 mmap 0x60000000 1048576 0'
  awk 'BEGIN { for (i = 1; i <= 300000; i++) printf "%d touch %d 1\n", i, i % 256 }'; } >feed.trace
feed=feed.trace sig_test PIPE 141 c.atr "$ANONSIM" trace convert in.fifo c.atr
feed=feed.trace sig_test TERM 143 c.atr "$ANONSIM" trace convert in.fifo c.atr
# reproduce: its outputs and its scratch trace under $TMPDIR
mkdir scratch data
TMPDIR=$tmp/scratch sig_test TERM 143 data/footprint.csv \
	"$ANONSIM" reproduce -c "$src/traces/reproduce.conf" -d data
[ -z "$(ls -A scratch)$(ls -A data)" ] || fail "reproduce on SIGTERM left $(ls -A scratch data)"

# an output replaced keeps its mode (and, as root, its group)
echo old >kept.csv
chmod 640 kept.csv
[ "$(id -u)" != 0 ] || chgrp 1 kept.csv
before=$(ls -ln kept.csv | awk '{ print $1, $3, $4 }')
expect_status 0 "$ANONSIM" density -m 1M --csv -o kept.csv "$t"
[ "$(ls -ln kept.csv | awk '{ print $1, $3, $4 }')" = "$before" ] ||
	fail "density -o replaced kept.csv's mode or owner: $before, now $(ls -ln kept.csv)"
cp "$t" kept.trace
chmod 600 kept.trace
expect_status 0 "$ANONSIM" trace convert "$t" kept.atr
chmod 604 kept.atr
expect_status 0 "$ANONSIM" trace convert "$t" kept.atr
[ "$(ls -ln kept.atr | awk '{ print $1 }')" = "-rw----r--" ] ||
	fail "trace convert replaced kept.atr's mode: $(ls -ln kept.atr)"

# an empty output name is refused before any work
expect_status 1 "$ANONSIM" replay -q -o '' "$t"
[ "$err" = "anonsim replay: --output '': expected a file name, or - for standard output" ] || fail "$err"
expect_status 1 "$ANONSIM" replay -q --series '' "$t"
[ "$err" = "anonsim replay: --series '': expected a file name, or - for standard output" ] || fail "$err"
expect_status 1 "$ANONSIM" sweep -o '' "$t"
[ "$err" = "anonsim sweep: --output '': expected a file name, or - for standard output" ] || fail "$err"
# --series - is standard output, where the report may not go too
expect_status 1 "$ANONSIM" replay -q --series - "$t"
[ "$err" = "anonsim replay: --series - and the report would share standard output: give the report -o FILE" ] ||
	fail "$err"
expect_status 0 "$ANONSIM" replay -q -s read-copy --series - -o rep.txt "$t"
expect_match "$out" '^strategy,time_s,tmpfs_mib,'
[ ! -e ./- ] || fail "--series - made a file named -"
# a swap device the model cannot hold is a usage error, with the limit
expect_status 1 "$ANONSIM" replay -q --swap 1000T "$t"
[ "$err" = "anonsim replay: --swap '1000T': expected a size such as 1G, up to 1T" ] || fail "$err"
# a scratch directory that is not there is a system failure, named
expect_status 5 env TMPDIR="$tmp/no-such-dir" "$ANONSIM" reproduce -q --published-only \
	-c "$src/traces/reproduce.conf"
expect_match "$err" "^anonsim reproduce: $tmp/no-such-dir/anonsim-repro-[0-9]+\\.atr: cannot create a temporary file beside it: No such file or directory\$"
finish
