#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/density-real.sh on one and two busybox UMLs (private
# images, 96 MiB memory cgroup, 64 MiB swap): the traces it records of
# the UMLs it measures, its real figures and the model's beside them, and
# a host left as it was found, after the run and after SIGTERM in the
# middle of one.  The
# density and the 5 % curve are the full run's to hold (README, "Real
# density"); here they are only reported.  Skips (77) where the script
# cannot run: not Linux, not root, no cgroup v1, no UML, no busybox.
. "${top_srcdir:-.}/tests/lib.sh"

skip() { echo "SKIP: $*"; exit 77; }

rec=$top_srcdir/src/record
tools=$top_builddir/src/record
[ "$(uname -s)" = Linux ] || skip "needs a Linux host"
as_root || skip "needs root: a memory cgroup and a swap file"
[ -x /usr/bin/linux ] || skip "user-mode-linux is not installed (/usr/bin/linux)"
[ -f /sys/fs/cgroup/memory/memory.memsw.usage_in_bytes ] ||
	skip "needs the cgroup v1 memory controller with swap accounting"
[ -d /sys/fs/cgroup/freezer ] || skip "needs the cgroup v1 freezer"
command -v busybox >/dev/null 2>&1 || skip "busybox (busybox-static) is not installed"
PATH=$PATH:/sbin:/usr/sbin
command -v mke2fs >/dev/null 2>&1 || skip "mke2fs (e2fsprogs) is not installed"
[ -x "$tools/anonsim-rec-host" ] && [ -f "$tools/uml_preload.so" ] &&
	[ -x "$tools/kpage-sampler" ] || skip "the recorder was not built"

# what the script run PID leaves on the host: its cgroups (named after
# it), the memory cgroups of its recordings (anonsim-record.PID of a
# recorder no longer running), swap files, scratch folders and UMLs
# (both under $tmp), the recorders and their log writers
host_left() {
	ls /sys/fs/cgroup/memory /sys/fs/cgroup/freezer | grep "^anonsim-density\.$1\b"
	for _c in /sys/fs/cgroup/memory/anonsim-record.*; do
		[ -d "$_c" ] && ! kill -0 "${_c##*.}" 2>/dev/null && echo "$_c"
	done
	grep "$tmp/" /proc/swaps
	ls "$tmp" | grep '^anonsim-density'
	ps -eo pid,args | grep -v grep | grep -e "ubd0=$tmp/" -e "$tmp/anonsim-density"
}
expect_status 0 sh "$rec/images/mkimage-busybox.sh" --sampler "$tools/kpage-sampler" "$tmp/bb.img"

# 0: density and curve agree; 4: they do not (reported, not judged here)
sh "$top_srcdir/bench/density-real.sh" -i "$tmp/bb.img" -m 96M --swap 64M -n 2 --label bb \
	-d "$tmp" --tools "$tools" --anonsim "$ANONSIM" -o "$tmp/res" >"$tmp/log1" 2>&1 &
pid=$!
wait $pid
st=$?
[ $st -eq 0 ] || [ $st -eq 4 ] || fail "density-real.sh exited $st: $(cat "$tmp/log1")"
left=$(host_left $pid)
[ -z "$left" ] || fail "left on the host: $left"
o=$tmp/res

# the traces: one of each UML measured, of its command line, valid;
# its host events (what the run's memory cgroup holds beyond what it held
# when the UML started) show the boot's
# burst of host processes (a peak above what UML holds at the end); it
# ends where the UML was frozen at the guest's work-done (no footprint:
# the guest never shut down)
expect_match "$(cd "$o" && ls trace-*.gz | tr '\n' ' ')" \
	'^trace-free-1\.gz trace-free-2\.gz trace-limited-1\.gz trace-limited-2\.gz $'
for run in free limited; do
	for k in 1 2; do
		t=$o/trace-$run-$k.gz
		expect_status 0 "$ANONSIM" trace check "$t"
		expect_match "$(gzip -dc "$t" | grep '^recorder ')" ' host-memory=memcg$'
		bad=$(gzip -dc "$t" | awk '$2 == "host" { n++; if ($3 > m) m = $3; last = $3 }
			END { if (n < 2 || m <= last || last <= 0) print "host events: " n + 0 ", peak " m + 0 ", last " last + 0 }')
		[ -z "$bad" ] || fail "$t: $bad"
		expect_match "$(gzip -dc "$t" | grep '^note uml:')" \
			"^note uml: /usr/bin/linux mem=64M ubd0=$tmp/anonsim-density\.[A-Za-z0-9]+/disk-$k\.img root=/dev/ubda rw init=/sbin/anonsim-init con=null con0=fd:0,fd:1$"
		expect_match "$(gzip -dc "$t" | grep '^note recorded')" "; UML $k of its $run run, frozen at work-done\$"
		# ends where UML was frozen, milliseconds after work-done (it
		# would have powered off a second later)
		bad=$(gzip -dc "$t" | awk '/^events$/ { e = 1; next } !e { next }
			$2 == "phase" && $3 == "work-done" { w = $1 } { last = $1 }
			END { if (w == "" || last - w >= 1000000) print "last event at " last ", work-done at " w }')
		[ -z "$bad" ] || fail "$t: $bad"
		! gzip -dc "$t" | grep -q '^[0-9]* footprint ' || fail "$t has a footprint"
		# the anonymous part (the cgroup's rss) comes with it, never above
		bad=$(gzip -dc "$t" | awk '$2 == "host" { n++; if (NF == 4) a++; if ($4 > $3) print "anon above pages: " $0 }
			END { if (a == 0) print "no host event with an anonymous part, of " n + 0 }')
		[ -z "$bad" ] || fail "$t: $bad"
	done
	# both UMLs in the run's cgroup (the default): UML 2's host events
	# are what it holds beyond what the cgroup held when it started,
	# frozen UML 1's whole host memory among that; so its first is below
	# UML 1's last
	first2=$(gzip -dc "$o/trace-$run-2.gz" | awk '$2 == "host" { print $3; exit }')
	last1=$(gzip -dc "$o/trace-$run-1.gz" | awk '$2 == "host" { v = $3 } END { print v }')
	[ "$first2" -lt "$last1" ] ||
		fail "$run run: UML 2's first host event ($first2 pages) is not below UML 1's last ($last1): UML 1's memory counted as UML 2's"
done
expect_match "$(grep '^memcgs=' "$o/params")" '^memcgs=shared$'

# the free run: both UMLs, each adding tmpfs (shmem) and a page cache of
# its own image
free=$(sed 1d "$o/real-free.csv")
expect_match "$(printf '%s\n' "$free" | cut -d, -f1 | tr '\n' ' ')" '^1 2 $'
bad=$(printf '%s\n' "$free" | awk -F, '
	$3 <= 0 || $5 <= 0 || $6 <= 0 || $7 != 0 { print "bad row " $0 }
	NR == 2 && ($5 <= s || $6 <= c) { print "UML 2 adds nothing: " $0 }
	{ s = $5; c = $6 }')
[ -z "$bad" ] || fail "$bad"
# the model replays these very boots: its tmpfs after N boots is the
# cgroup's shmem to the page (the trace holds every page the recorder saw
# resident up to work-done, where the UML was frozen; 32 of 32 boots of
# bench/results/density-real agree so)
bad=$(awk -F, 'FNR == 1 { next } FILENAME ~ /real-free/ { sh[$1] = $5; next }
	$3 * 1048576 != sh[$2] { print "N = " $2 ": model tmpfs " $3 " MiB, real shmem " sh[$2] " bytes" }' \
	"$o/real-free.csv" "$o/model-free.csv")
[ -z "$bad" ] || fail "$bad"
# the limited run: UML 1 (40-47 MiB after its boot, 59-67 MiB at the peak
# of its burst of host processes: src/record/uml/boot-burst.sh) fits in
# 96 MiB; it stops at 2
expect_match "$(sed 1d "$o/real-limited.csv" | cut -d, -f1 | tr '\n' ' ')" '^1 2 $'
expect_match "$(sed -n 2p "$o/real-limited.csv")" '^1,[0-9.]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,0,$'

# the model: exactly anonsim density on each run's traces in the order
# the UMLs ran, their host events the overhead (no fixed one)
ov=0
expect_match "$(cat "$o/summary.txt")" '^bb: host 96\.000 MiB, model overhead 0\.00 MiB per UML and the host events of the traces$'
"$ANONSIM" density --csv -q -s read-copy --max 2 --no-share \
	--overhead "${ov}K" "$o/trace-free-1.gz" "$o/trace-free-2.gz" >"$tmp/model-free.csv" ||
	fail "anonsim density failed"
cmp -s "$tmp/model-free.csv" "$o/model-free.csv" || fail "model-free.csv is not anonsim density's output"
"$ANONSIM" density --csv -q -s read-copy -m 96M --swap 64M --max 2 --no-share \
	--overhead "${ov}K" "$o/trace-limited-1.gz" "$o/trace-limited-2.gz" >"$tmp/model.csv" ||
	fail "anonsim density -m failed"
cmp -s "$tmp/model.csv" "$o/model.csv" || fail "model.csv is not anonsim density -m's output"
# --from on the run's own output: the same model, the same summary
sh "$top_srcdir/bench/density-real.sh" --from "$o" --anonsim "$ANONSIM" -o "$tmp/res-from" >/dev/null 2>&1
st=$?
[ $st -eq 0 ] || [ $st -eq 4 ] || fail "density-real.sh --from exited $st"
for f in model-free.csv model.csv compare.csv summary.txt; do
	cmp -s "$o/$f" "$tmp/res-from/$f" || fail "--from: $f differs from the run's"
done

# real beside model, per N: the real column is the cgroup's usage, the
# model's its total with memory unlimited, the difference their ratio
bad=$(awk -F, 'FNR == 1 { next }
	FILENAME ~ /real-free/ { u[$1] = sprintf("%.3f", $3 / 1048576); next }
	FILENAME ~ /model-free/ { t[$2] = sprintf("%.3f", $8); next }
	{ d = sprintf("%+.2f", ($3 - $2) / $2 * 100)
	  if ($2 != u[$1] || $3 != t[$1] || $4 != d) print "compare row " $0 " (usage " u[$1] ", model " t[$1] ")" }' \
	"$o/real-free.csv" "$o/model-free.csv" "$o/compare.csv")
[ -z "$bad" ] || fail "$bad"
expect_match "$(cut -d, -f1,2 "$o/density.csv" | sed 1d | tr '\n' ' ')" '^bb-real,1 bb-real,2 bb-model,1 bb-model,2 $'
expect_match "$(cat "$o/summary.txt")" 'density: real (>=2|[0-9]), model (>=2|[0-9])'
expect_match "$(cat "$o/summary.txt")" 'memory after each boot: largest difference [0-9.]+% \(N = [12]\)'
# the first of the limited run's two traces first is the model's density
m=$(sed -n 's/^density: real [^,]*, model \([^ ]*\).*/\1/p' "$o/summary.txt")
expect_match "$(tail -n 1 "$o/summary.txt")" "^model density with each trace first: $m (>=2|[0-9])\$"

# a trace without host events: the fixed overhead of UML 1 (usage -
# shmem - image page cache, in KiB rounded up), from the same real figures
gzip -dc "$o/trace-free-1.gz" | grep -v '^[0-9]* host ' >"$tmp/nohost.trace"
sh "$top_srcdir/bench/density-real.sh" --from "$o" -t "$tmp/nohost.trace" --anonsim "$ANONSIM" \
	-o "$tmp/res-nohost" >/dev/null 2>&1
st=$?
[ $st -eq 0 ] || [ $st -eq 4 ] || fail "density-real.sh --from exited $st"
ov=$(awk -F, 'NR == 2 { v = $3 - $5 - $6; if (v < 0) v = 0; printf "%d", (v + 1023) / 1024 }' "$o/real-free.csv")
"$ANONSIM" density --csv -q -s read-copy --max 2 --no-share \
	--overhead "${ov}K" "$tmp/nohost.trace" >"$tmp/model-free.csv" || fail "anonsim density failed"
cmp -s "$tmp/model-free.csv" "$tmp/res-nohost/model-free.csv" ||
	fail "without host events, model-free.csv is not anonsim density --overhead ${ov}K's output"
expect_match "$(head -n 1 "$tmp/res-nohost/summary.txt")" \
	"^bb: host 96\.000 MiB, model overhead $(awk -F, 'NR == 2 { v = $3 - $5 - $6; printf "%.2f", sprintf("%.3f", (v > 0 ? v : 0) / 1048576) + 0 }' "$o/real-free.csv") MiB per UML\$"

# a given trace (-t): UMLs booted without the recorder, the model on that
# trace for both runs, nothing recorded
sh "$top_srcdir/bench/density-real.sh" -i "$tmp/bb.img" -m 96M --swap 64M -n 1 -t "$o/trace-free-1.gz" \
	-d "$tmp" --tools "$tools" --anonsim "$ANONSIM" -o "$tmp/res-t" >"$tmp/log-t" 2>&1 &
pid=$!
wait $pid
st=$?
[ $st -eq 0 ] || [ $st -eq 4 ] || fail "density-real.sh -t exited $st: $(cat "$tmp/log-t")"
left=$(host_left $pid)
[ -z "$left" ] || fail "-t: left on the host: $left"
expect_match "$(sed 1d "$tmp/res-t/real-free.csv" | cut -d, -f1,7 | tr '\n' ' ')" '^1,0 $'
[ -z "$(cd "$tmp/res-t" && ls | grep -e '^trace' -e '^swapped')" ] || fail "-t: files recorded: $(ls "$tmp/res-t")"
"$ANONSIM" density --csv -q -s read-copy -m 96M --swap 64M --max 1 --no-share \
	--overhead 0K "$o/trace-free-1.gz" >"$tmp/model-t.csv" || fail "anonsim density failed"
cmp -s "$tmp/model-t.csv" "$tmp/res-t/model.csv" || fail "-t: model.csv is not anonsim density's on the trace given"

# SIGTERM while UML 1 of the free run boots under the recorder, in a
# memory cgroup of its own (--memcg-per-uml): exit 143, nothing left
# (recorder, log writer and UML 1's cgroup among it)
sh "$top_srcdir/bench/density-real.sh" -i "$tmp/bb.img" -m 96M --swap 64M -n 2 --memcg-per-uml \
	-d "$tmp" --tools "$tools" --anonsim "$ANONSIM" -o "$tmp/res2" 2>"$tmp/err2" &
pid=$!
i=0
until grep -q '^free,.*,1,' "$tmp/res2/series.csv" 2>/dev/null || [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
[ $i -lt 300 ] || fail "the run did not start within 30 s: $(cat "$tmp/err2")"
kill -TERM $pid
wait $pid
st=$?
[ $st -eq 143 ] || fail "after SIGTERM: exit $st, expected 143: $(cat "$tmp/err2")"
left=$(host_left $pid)
[ -z "$left" ] || fail "left after SIGTERM: $left"
finish
