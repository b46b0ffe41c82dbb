#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# anonsim live against the model: tmpfs pages equal and page cache within
# 2 % at every phase and at the end, on the hand-made and shipped traces,
# under every strategy that runs live; exact tmpfs figures worked out in
# tests/live/traces/phases.trace, in CSV and in JSON (through jq); the
# scratch files and the -o output's temporary file removed, also on a signal.
. "${top_srcdir:-.}/tests/lib.sh"

"$ANONSIM" --help 2>&1 | grep -q '^ *live ' || {
	echo "anonsim live is not built here (Linux with memfd_create and fallocate only)"
	exit 77
}
mkdir "$tmp/scratch"
phases="$top_srcdir/tests/live/traces/phases.trace"

# check_rows CSV ROWS: every row within tolerance (tmpfs equal, cache 2 %)
check_rows() {
	n=$(awk -F, 'NR > 1' "$1" | wc -l)
	[ "$n" -eq "$2" ] || fail "$1: $n rows, expected $2"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i }
	NR > 1 {
		t = $k["tmpfs_pages"]; mt = $k["model_tmpfs_pages"]
		c = $k["cache_pages"]; mc = $k["model_cache_pages"]
		d = c ? (mc - c) / c : (mc ? 1 : 0); if (d < 0) d = -d
		if (t != mt || d > 0.02)
			printf "%s %s %s: tmpfs %s (model %s), cache %s (model %s)\n",
				$1, $2, $k["point"], t, mt, c, mc }' "$1" >"$tmp/beyond"
	[ -s "$tmp/beyond" ] && fail "real and model apart: $(cat "$tmp/beyond")"
}

# the worked-out figures, every strategy, 3 phases + the end each
expect_status 0 "$ANONSIM" live --csv -d "$tmp/scratch" "$phases"
printf '%s\n' "$out" >"$tmp/phases.csv"
check_rows "$tmp/phases.csv" 16
got=$(awk -F, 'NR > 1 { printf "%s/%s=%s ", $2, $4, $6 }' "$tmp/phases.csv")
want="read-copy/one=7 read-copy/two=10 read-copy/three=10 read-copy/end=10 \
punch/one=3 punch/two=4 punch/three=5 punch/end=5 \
free-hint/one=7 free-hint/two=10 free-hint/three=8 free-hint/end=8 \
odirect/one=7 odirect/two=10 odirect/three=10 odirect/end=10 "
[ "$got" = "$want" ] || fail "tmpfs pages: $got"
awk -F, '$2 == "odirect" && $9 != 0 { exit 1 }' "$tmp/phases.csv" ||
	fail "odirect left page cache behind"
[ "$(awk -F, 'NR > 1 { printf "%s%s/%s/%s ", $15, $16, $17, $18 }' "$tmp/phases.csv")" = \
	"$(printf '//yes %.0s' $(seq 16))" ] || fail "cgroup, first swap-outs, within: $(cat "$tmp/phases.csv")"

# the same run as one JSON object (jq reads it), written whole to -o FILE
if command -v jq >/dev/null; then
	expect_status 0 "$ANONSIM" live --json -o "$tmp/phases.json" -d "$tmp/scratch" \
		-s punch,free-hint "$phases"
	[ -z "$out" ] || fail "live -o also wrote standard output: $out"
	got=$(jq -c '[.command, .inputs, (.traces | map([.name, .header.memory_bytes,
		(.header.devices | map(.name))])), (.results | map([.strategy, .instances,
		.within_tolerance, .first_swap_out_s, (.points | map([.point, .tmpfs_pages,
		.model_tmpfs_pages, (.cache_pages == .model_cache_pages), .swap_pages,
		.cgroup_pages, .within_tolerance]))]))]' "$tmp/phases.json") ||
		fail "jq refuses live --json: $(cat "$tmp/phases.json")"
	want='["live",{"host_mem_mib":null,"swap_mib":0,"policy":"modern","overhead_mib":0,"overhead_anon_mib":0,'
	want=$want'"stagger_s":null,"instances":1,"strategies":["punch","free-hint"],'
	want=$want"\"dir\":\"$tmp/scratch\",\"cache_tolerance_pct\":2,\"paced\":false,\"read_zeros\":false},"
	want=$want"[[\"$phases\",1048576,[\"ubda\",\"ubdb\"]]],"
	want=$want'[["punch",1,true,null,[["one",3,3,true,0,null,true],["two",4,4,true,0,null,true],'
	want=$want'["three",5,5,true,0,null,true],["end",5,5,true,0,null,true]]],'
	want=$want'["free-hint",1,true,null,[["one",7,7,true,0,null,true],["two",10,10,true,0,null,true],'
	want=$want'["three",8,8,true,0,null,true],["end",8,8,true,0,null,true]]]]]'
	[ "$got" = "$want" ] || fail "live --json: $got"
	# the readahead window of each run is the scratch device's, as in the table
	ra=$("$ANONSIM" live -s punch -d "$tmp/scratch" "$phases" | sed -n '1s/.*readahead \([0-9]*\) KiB.*/\1/p')
	[ "$(jq -c '[.results[].readahead_kb] | unique' "$tmp/phases.json")" = "[$ra]" ] ||
		fail "live --json readahead_kb: $(jq -c '[.results[].readahead_kb]' "$tmp/phases.json"), table $ra"
fi
expect_status 1 "$ANONSIM" live --csv --json "$phases"
[ "$err" = "anonsim live: --csv and --json exclude each other" ] || fail "live --csv --json: $err"
expect_status 1 "$ANONSIM" live -o "$phases" "$phases"
expect_match "$err" "^anonsim live: .*phases.trace: the output is also the input"

# instances whose reads interleave, each with the readahead state of its
# own open file as each UML has: three staggered instances re-reading one
# data set keep the model's page cache (sharing one open file, and so one
# readahead state, they kept 11264 pages of the model's 13312)
expect_status 0 "$ANONSIM" live -q --csv -s read-copy -n 3 --stagger 0.3 -d "$tmp/scratch" \
	"$top_srcdir/traces/calibration/shared-reread.trace.gz"
end_cache=$(printf '%s\n' "$out" | awk -F, '$4 == "end" { print $9, $10 }')
[ "$end_cache" = "13312 13312" ] ||
	fail "interleaved instances: page cache at the end (real, model) '$end_cache', want '13312 13312'"

# the other hand-made traces and the shipped ones, each phase and the end
for t in "$top_srcdir"/tests/model/replay/*.trace; do
	phases_in=$(grep -c '^[0-9]* phase ' "$t")
	expect_status 0 "$ANONSIM" live --csv -d "$tmp/scratch" "$t"
	printf '%s\n' "$out" >"$tmp/hand.csv"
	check_rows "$tmp/hand.csv" $((4 * (phases_in + 1)))
done
for t in "$top_srcdir"/traces/*.trace.gz; do
	phases_in=$("$ANONSIM" trace stat "$t" | sed -n 's/^  phase: //p')
	expect_status 0 "$ANONSIM" live --csv -d "$tmp/scratch" "$t"
	printf '%s\n' "$out" >"$tmp/shipped.csv"
	check_rows "$tmp/shipped.csv" $((4 * (phases_in + 1)))
done
[ -z "$(ls "$tmp/scratch")" ] || fail "scratch files left: $(ls "$tmp/scratch")"

# a signal ends a run at once and takes its files with it, the output's
# temporary file too; the run before it does not leave the output open
build="$top_srcdir/traces/debian-build-128M.trace.gz"
"$ANONSIM" live --csv -o "$tmp/signalled.csv" -d "$tmp/scratch" "$phases" "$build" >/dev/null 2>"$tmp/signalled.err" &
pid=$!
i=0
# (up to 60 s: on a machine busy with other tests, writing the images can
# take a while; a run that ends first is a failure of its own)
# (an ended run stays a zombie until waited for: kill -0 does not see it end)
# (what was seen is kept: a second look can fall between two runs, each
# with a scratch directory of its own, and find none)
running() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
seen=
while [ $i -lt 600 ] && running $pid; do
	seen=$(ls "$tmp/scratch")
	[ -z "$seen" ] || break
	sleep 0.1
	i=$((i + 1))
done
running $pid || fail "live ended before it could be signalled: $(cat "$tmp/signalled.err")"
[ -n "$seen" ] || fail "no scratch directory appeared in 60 s: $(cat "$tmp/signalled.err")"
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 143 ] || fail "SIGTERM: exit status $status, expected 143"
[ -z "$(ls "$tmp/scratch")" ] || fail "scratch files left after SIGTERM: $(ls -R "$tmp/scratch")"
[ -z "$(ls "$tmp" | grep '^signalled\.csv')" ] || fail "output left after SIGTERM: $(ls "$tmp" | grep '^signalled')"

# DAMON: paused for every run, the pause shared with the runs beside it
# (src/util/damon.h); this script holds one, as the recorder's scripts do
# (hostlib.sh), and the live run beside it must leave it off; the run
# killed above has left the registry
rechost=$top_builddir/src/record/anonsim-rec-host
states=/sys/kernel/mm/damon/admin/kdamonds
registry=/run/lock/anonsim-damon
[ -w /run/lock ] || registry=/tmp/anonsim-damon.lock
# (a context is on, or off and listed by a run under way)
if ! as_root || [ ! -x "$rechost" ] || { ! grep -qx on $states/*/state 2>/dev/null &&
	! grep -q "^paused $states/" "$registry" 2>/dev/null; }; then
	echo "no DAMON context on or paused, or not root: the shared pause is not checked"
else
	! grep -q "^user $pid " "$registry" || fail "the run killed by SIGTERM is still registered: $(cat "$registry")"
	trap '"$rechost" damon resume $$; rm -rf "$tmp"' EXIT
	[ "$("$rechost" damon pause $$)" = paused ] || fail "anonsim-rec-host damon pause: not paused"
	! grep -qx on $states/*/state || fail "DAMON on after the pause: $(cat $states/*/state)"
	expect_status 0 "$ANONSIM" live -s read-copy -d "$tmp/scratch" "$phases"
	expect_match "$out" ", DAMON paused"
	! grep -qx on $states/*/state || fail "a live run beside a pause switched DAMON on"
	grep -q "^user $$ " "$registry" || fail "this script left the registry: $(cat "$registry")"
	"$rechost" damon resume $$
	trap 'rm -rf "$tmp"' EXIT
	! grep -q "^user $$ " "$registry" || fail "still registered after resume: $(cat "$registry")"
fi

# what cannot run, and bad input
expect_status 1 "$ANONSIM" live -s devanon "$phases"
expect_match "$err" "live: --strategy 'devanon' cannot run live: it needs the /dev/anon driver"
expect_status 1 "$ANONSIM" live -s swap-all "$phases"
[ "$err" = "anonsim live: --strategy 'swap-all': expected one of read-copy, devanon, punch, free-hint, odirect, dax, writeback, writethrough, unsafe, none, directsync, or all" ] ||
	fail "live --strategy swap-all: $err"
expect_status 1 "$ANONSIM" live --cache-tolerance nan "$phases"
expect_match "$err" "live: --cache-tolerance 'nan': expected a percentage"
expect_status 1 "$ANONSIM" live --probe "$phases"
expect_match "$err" "live: --probe measures the overhead in a memory cgroup: it takes -m, and not --overhead or --overhead-anon"
expect_status 1 "$ANONSIM" live --probe -m 64M --overhead-anon 8K "$phases"
expect_match "$err" "live: --probe measures the overhead in a memory cgroup: it takes -m"
expect_status 1 "$ANONSIM" live --probe --csv -m 64M "$phases"
expect_match "$err" "live: --probe writes a line or --json: its figures have no CSV columns"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	expect_status 1 "$ANONSIM" live -d /dev/shm "$phases"
	expect_match "$err" "/dev/shm is a tmpfs: its files have no page cache of their own"
fi
expect_status 2 "$ANONSIM" live -d "$tmp/scratch" "$tmp/missing.trace"
expect_match "$err" 'missing.trace: No such file or directory'
expect_status 2 "$ANONSIM" live -d "$tmp/scratch" \
	"$top_srcdir/tests/trace/traces/corrupt/truncated-record.atr"
expect_match "$err" 'truncated-record.atr: record'
[ -z "$(ls "$tmp/scratch")" ] || fail "scratch files left after errors: $(ls "$tmp/scratch")"
finish
