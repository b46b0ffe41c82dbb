#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One output convention: replay, density, reproduce, fidelity, trace stat
# and live (where it is built) each take -o FILE, --csv and --json; the JSON is one object that jq reads,
# with the version, the command line, the inputs and each trace's header,
# then the results at full precision; "never" is a JSON null and an empty
# CSV field; --csv with --json is refused; - reads standard input.
# Figures: tests/model/replay/basic.trace and density.trace work them out.
. "${top_srcdir:-.}/tests/lib.sh"
command -v jq >/dev/null || { echo "jq is not installed"; exit 77; }
basic=$top_srcdir/tests/model/replay/basic.trace
dens=$top_srcdir/tests/model/replay/density.trace
mid=$top_srcdir/tests/model/fidelity-traces/mid-footprint.trace
conf=$top_srcdir/traces/reproduce.conf
version=$("$ANONSIM" --version | awk '{ print $2 }')
phases=$top_srcdir/tests/live/traces/phases.trace
# anonsim live runs on Linux only; its scratch files go on a disk filesystem
live=
if "$ANONSIM" --help | grep -q '^ *live '; then
	live=yes
	mkdir "$tmp/scratch"
fi

# jq_is JSON FILTER WANT: the filter's compact output must be WANT
jq_is() {
	got=$(jq -c "$2" "$1" 2>&1) || { fail "jq '$2' on $1: $got"; return; }
	[ "$got" = "$3" ] || fail "$1: jq '$2' gave $got, expected $3"
}

# every command: the three options, JSON valid, -o the same bytes as stdout
run_all() {
	# name|arguments
	cat <<LIST
replay|-q -s punch $basic
density|-q -s read-copy -m 256K --policy 2.4 --max 32 $dens
reproduce|-q --published-only -c $conf
fidelity|$mid
trace stat|$basic
LIST
	[ -z "$live" ] || echo "live|-s punch -d $tmp/scratch $phases"
}
run_all | while IFS='|' read -r cmd args; do
	name=$(echo "$cmd" | tr ' ' _)
	for fmt in json csv; do
		# shellcheck disable=SC2086 # words on purpose
		"$ANONSIM" $cmd --$fmt $args >"$tmp/$name.$fmt" 2>"$tmp/err" ||
			fail "$cmd --$fmt exited $?: $(cat "$tmp/err")"
		"$ANONSIM" $cmd --$fmt -o "$tmp/$name-o.$fmt" $args >"$tmp/stdout" 2>"$tmp/err" ||
			fail "$cmd --$fmt -o exited $?: $(cat "$tmp/err")"
		[ ! -s "$tmp/stdout" ] || fail "$cmd -o also wrote standard output"
		if [ $fmt = json ]; then	# the command lines differ by the -o
			jq -S 'del(.command_line)' "$tmp/$name.$fmt" >"$tmp/a"
			jq -S 'del(.command_line)' "$tmp/$name-o.$fmt" >"$tmp/b"
		else
			cp "$tmp/$name.$fmt" "$tmp/a"
			cp "$tmp/$name-o.$fmt" "$tmp/b"
		fi
		cmp -s "$tmp/a" "$tmp/b" || fail "$cmd --$fmt: -o FILE differs from standard output"
	done
	jq -e 'type == "object"' "$tmp/$name.json" >/dev/null || fail "$cmd --json: jq refuses it"
	jq_is "$tmp/$name.json" '[.anonsim_version, .command]' "[\"$version\",\"$cmd\"]"
	jq_is "$tmp/$name.json" '.command_line[1:3] | map(select(. != null)) | .[0]' "\"$(echo "$cmd" | cut -d' ' -f1)\""
	jq_is "$tmp/$name.json" 'has("traces") and has("results")' true
	# the table goes to -o too, and --csv with --json is refused
	"$ANONSIM" $cmd -o "$tmp/$name.txt" $args 2>/dev/null
	[ -s "$tmp/$name.txt" ] || fail "$cmd -o FILE wrote no table"
	"$ANONSIM" $cmd --csv --json $args >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] || fail "$cmd --csv --json was not refused"
	grep -qx "anonsim $cmd: --csv and --json exclude each other" "$tmp/err" ||
		fail "$cmd --csv --json: $(cat "$tmp/err")"
done

# replay: punch on basic.trace, tmpfs 2 + cache 3 pages = 5/256 MiB exactly
j=$tmp/replay.json
jq_is "$j" '.inputs | [.host_mem_mib, .swap_mib, .policy, .readahead_kb, .geometry, .strategies]' \
	'[null,1024,"modern",null,"x86_64",["punch"]]'
jq_is "$j" '.traces[0] | [.name, .header.memory_bytes, .header.devices[0].name, .header.readahead_kb]' \
	"[\"$basic\",1048576,\"ubda\",0]"
jq_is "$j" '.results[0] | [.strategy, .final_tmpfs_mib, .final_cache_mib, .final_total_mib, .calls_punch, .first_swap_out_s, .trace_s]' \
	'["punch",0.0078125,0.01171875,0.01953125,1,null,3e-05]'
row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == 2 { print $c["final_total_mib"] "|" $c["first_swap_out_s"] "|" $c["trace_s"] }' "$tmp/replay.csv")
[ "$row" = "0.01953125||0.00003" ] || fail "replay --csv: total|first swap-out|time = $row"

# density: read-copy, shared image, 64 pages of host, 2.4 reclaim: density
# 10; N = 11 demands 6 * 11 + 4 = 70 pages and swaps out 70 - 64 = 6
j=$tmp/density.json
jq_is "$j" '.results[0] | [.strategy, .density, .tried]' '["read-copy",10,12]'
jq_is "$j" '.results[0].points[10] | [.instances, .total_mib, .swap_out_pages, .fits]' \
	'[11,0.2734375,6,false]'
jq_is "$j" '.results[0].points[9] | [.first_swap_out_s, .fits]' '[null,true]'
jq_is "$j" '.inputs | [.host_mem_mib, .policy, .max_instances]' '[0.25,"2.4",32]'
row=$(awk -F, '$2 == 11 { print $8 "|" $11 } $2 == 10 { print $12 "|" $14 }' "$tmp/density.csv" | tr '\n' ' ')
[ "$row" = "|10 0.2734375|6 " ] || fail "density --csv: $row"

# reproduce: the published figures of traces/reproduce.conf
j=$tmp/reproduce.json
jq_is "$j" '.results[0] | [.trace, .published, (.strategies | map(.density))]' '["woody-2004",true,[16,20,20]]'
jq_is "$j" '.results[0].strategies | map(.within_tolerance)' '[true,true,true]'
jq_is "$j" '[.inputs.host_mem_mib, .inputs.policy, .missed]' '[576,"2.4",false]'
[ "$(awk -F, 'NR > 1 { print $2 "=" $7 }' "$tmp/reproduce.csv" | tr '\n' ' ')" = "read-copy=16 devanon=20 punch=20 " ] ||
	fail "reproduce --csv: $(cat "$tmp/reproduce.csv")"

# fidelity: the page cache of mid-footprint.trace, 3 pages measured and modelled
j=$tmp/fidelity.json
jq_is "$j" '.results[0] | [.tmpfs, .cache.measured_pages, .cache.model_pages, .cache.diff_pct, .within_tolerance, .not_held]' \
	'[null,3,3,0,true,"the trace has no touch events"]'
[ "$(sed -n 2p "$tmp/fidelity.csv")" = "$mid,,,,3,3,0,yes,the trace has no touch events" ] ||
	fail "fidelity --csv: $(sed -n 2p "$tmp/fidelity.csv")"

# trace stat: basic.trace has 4 events, 3 pages read, 2 touched, 1 freed
j=$tmp/trace_stat.json
jq_is "$j" '.results | [.events, .read_pages, .touched_pages, .freed_pages, .events_by_kind.mmap]' '[4,3,2,1,1]'
jq_is "$j" '.traces[0] | [.name, .encoding, .header.page_size_bytes]' "[\"$basic\",\"text\",4096]"

# live: punch on phases.trace, tmpfs pages worked out in the trace; the page
# cache depends on the scratch device's readahead, so real equals model
if [ -n "$live" ]; then
	j=$tmp/live.json
	jq_is "$j" '.inputs | [.host_mem_mib, .swap_mib, .instances, .strategies, has("readahead_kb"), has("geometry")]' \
		'[null,0,1,["punch"],false,false]'
	jq_is "$j" '.results[0] | [.trace, .strategy, .within_tolerance, .model_first_swap_out_s, (.points | map([.point, .time_s, .tmpfs_pages, .tmpfs_blocks_pages, .model_tmpfs_pages, .cgroup_pages]))]' \
		"[\"$phases\",\"punch\",true,null,[[\"one\",3e-05,3,3,3,null],[\"two\",8e-05,4,4,4,null],[\"three\",0.00012,5,5,5,null],[\"end\",0.00012,5,5,5,null]]]"
	jq_is "$j" '[.results[0].points[] | .cache_pages == .model_cache_pages] | all' true
	row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 1 { printf "%s|%s|%s|%s|%s|%s ", $c["point"], $c["time_s"], $c["tmpfs_pages"],
			$c["cgroup_pages"], $c["first_swap_out_s"], $c["within_tolerance"] }' "$tmp/live.csv")
	[ "$row" = "one|0.00003|3|||yes two|0.00008|4|||yes three|0.00012|5|||yes end|0.00012|5|||yes " ] ||
		fail "live --csv: $row"
	[ -z "$(ls "$tmp/scratch")" ] || fail "live left scratch files: $(ls "$tmp/scratch")"
fi

# every command's inputs are the ones it uses: density varies the
# instances itself, fidelity replays once with no limit
jq_is "$tmp/density.json" '.inputs | [has("instances"), has("max_instances"), has("stagger_s"), has("check")]' \
	'[false,true,true,true]'
jq_is "$tmp/fidelity.json" '.inputs | keys' \
	'["cache_only","cache_tolerance_pct","readahead_kb","strategies","tmpfs_tolerance_pct"]'
jq_is "$tmp/replay.json" '.inputs | keys' \
	'["check","geometry","host_events","host_mem_mib","instances","overhead_anon_mib","overhead_mib","pages","policy","readahead_kb","report_order","share","stagger_s","strategies","swap_mib"]'

# - is standard input, read once for every strategy; gzip too
expect_status 0 "$ANONSIM" replay -q --csv --pages "$basic"
by_name=$out
expect_status 0 sh -c '"$1" replay -q --csv --pages - <"$2"' sh "$ANONSIM" "$basic"
[ "$out" = "$by_name" ] || fail "replay - differs from replay FILE: $out"
gzip -c "$basic" >"$tmp/basic.trace.gz"
expect_status 0 sh -c '"$1" replay -q --csv --pages - - <"$2"' sh "$ANONSIM" "$tmp/basic.trace.gz"
expect_match "$out" '^punch,2,8,'
expect_status 0 sh -c '"$1" trace check - <"$2"' sh "$ANONSIM" "$basic"
[ "$out" = "-: ok, 4 events" ] || fail "trace check -: $out"
printf 'anonsim-trace 1\nbogus\n' >"$tmp/bad.trace"
expect_status 2 sh -c '"$1" trace stat - <"$2"' sh "$ANONSIM" "$tmp/bad.trace"
expect_match "$err" '^anonsim trace stat: standard input:2: '
ls "${TMPDIR:-/tmp}" | grep -q "^anonsim-stdin\.[^.]*\$" && [ -n "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'anonsim-stdin.*' -newer "$tmp/bad.trace")" ] &&
	fail "the copy of standard input was left in ${TMPDIR:-/tmp}"

# sweep too: its JSON is one object, its --csv and --json exclude each other
expect_status 0 "$ANONSIM" sweep -q --json -s punch,read-copy "$basic"
printf '%s\n' "$out" >"$tmp/sweep.json"
jq_is "$tmp/sweep.json" '[.command, (.results | map([.strategy, .final_total_pages, .first_swap_out_s]))]' \
	'["sweep",[["punch",5,null],["read-copy",8,null]]]'
# a value's type follows its key, never the value: policy is a string
# ("2.4" too, which once went out as the number 2.4), readahead_kb a number
# or null (each trace's own window), the trace a string though it reads as
# a number
cp "$basic" "$tmp/24"
expect_status 0 "$ANONSIM" sweep -q --json -s punch --policy 2.4,modern --readahead trace,64 "$tmp/24"
printf '%s\n' "$out" >"$tmp/sweep-types.json"
jq_is "$tmp/sweep-types.json" '.results | map([(.trace | ltrimstr("'"$tmp"'/")), .policy, .readahead_kb])' \
	'[["24","2.4",null],["24","2.4",64],["24","modern",null],["24","modern",64]]'
expect_status 1 "$ANONSIM" sweep --json --csv "$basic"
[ "$err" = "anonsim sweep: --csv and --json exclude each other" ] || fail "sweep --json --csv: $err"

# the progress line, on a terminal only: names the trace, never passes its
# total (density once said "17 of at most 16"), ends at the total, and -q
# or a file leaves it out
if command -v script >/dev/null 2>&1; then
	script -qec "'$ANONSIM' density -m 256K --policy 2.4 -s read-copy --max 32 '$dens' >/dev/null" \
		/dev/null >"$tmp/tty" 2>&1
	tr '\r' '\n' <"$tmp/tty" | grep ' of ' >"$tmp/lines"
	[ -s "$tmp/lines" ] || fail "density on a terminal showed no progress: $(cat -v "$tmp/tty")"
	grep -q 'density read-copy, density.trace: ' "$tmp/lines" ||
		fail "the progress line does not name the trace: $(cat -v "$tmp/lines")"
	# read-copy stops at N = 12: 24 replays, the limited and the demand run of each N
	awk '{ for (i = 2; i < NF; i++) if ($i == "of") { d = $(i - 1); t = $(i + 1) } }
		d + 0 > t + 0 { bad = 1 } END { exit bad || d != 24 || t != 24 }' "$tmp/lines" ||
		fail "progress past its total, or not ending at 24 of 24: $(cat -v "$tmp/lines")"
	# replay's first strategy, whose event count is not known yet: the part
	# done from the bytes of the trace read (gzip: compressed bytes), within
	# two points of the events applied of 100 x 12270, never past 100 %
	boot=$top_srcdir/traces/debian-boot-64M.trace.gz
	script -qec "'$ANONSIM' replay -s punch -n 100 '$boot' >/dev/null" /dev/null >"$tmp/tty" 2>&1
	tr '\r' '\n' <"$tmp/tty" | grep 'replay punch, debian-boot-64M.trace.gz: [0-9]* events (' >"$tmp/lines"
	[ -s "$tmp/lines" ] || fail "replay on a terminal showed no part done: $(cat -v "$tmp/tty")"
	awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "events") { n = $i; p = $(i + 2) }
		gsub(/[(%),]/, "", p); p += 0; want = 100 * n / 1227000; d = p - want
		if (p > 100 || d > 2 || d < -2) { print; bad = 1 } } END { exit bad }' "$tmp/lines" ||
		fail "replay's part done strays from the events applied: $(cat -v "$tmp/lines")"
	script -qec "'$ANONSIM' density -q -m 256K --policy 2.4 -s read-copy '$dens' >/dev/null" \
		/dev/null >"$tmp/tty" 2>&1
	[ ! -s "$tmp/tty" ] || fail "density -q showed: $(cat -v "$tmp/tty")"
fi
"$ANONSIM" density -m 256K --policy 2.4 -s read-copy "$dens" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] || fail "a progress line went to a file: $(cat -v "$tmp/err")"

# one error style: anonsim CMD: ..., for unknown options and missing values
expect_status 1 "$ANONSIM" density --frob "$dens"
[ "$err" = "anonsim density: unknown option '--frob' (see anonsim density --help)" ] || fail "$err"
expect_status 1 "$ANONSIM" trace stat -x "$basic"
[ "$err" = "anonsim trace stat: unknown option '-x' (see anonsim trace stat --help)" ] || fail "$err"
expect_status 1 "$ANONSIM" fidelity -o
[ "$err" = "anonsim fidelity: option '-o' needs a value (see anonsim fidelity --help)" ] || fail "$err"
expect_status 1 "$ANONSIM" replay -o "$basic" "$basic"
expect_match "$err" "^anonsim replay: .*basic.trace: the output is also the input"

# Every output parses, whatever trace check accepts: times up to the
# latest a trace may hold print whole, a difference from a measured 0 is
# null (JSON) or empty (CSV), never inf, and a file name that is not UTF-8
# becomes U+FFFD in JSON.  (jq takes inf and bad UTF-8: the checks are
# grep and iconv.)
latest="$tmp/latest.trace"
printf '%s\n' 'anonsim-trace 1' 'page-size 4096' 'memory 1048576' \
	'device ubda size=1048576 backing=latest' 'events' '0 mmap 0x60000000 1048576 0' \
	'9223372036854775807 read ubda 0 4096 1' >"$latest"
expect_status 0 "$ANONSIM" replay -q --csv -s read-copy "$latest"
expect_match "$out" '^read-copy,1,2,9223372036854\.775807,'
expect_status 0 "$ANONSIM" trace stat --json "$latest"
expect_match "$out" '"last_event_s": 9223372036854\.775807,'
# two instances one after the other pass the latest host time: refused
expect_status 2 "$ANONSIM" replay -q -s read-copy -n 2 "$latest"
[ "$err" = "anonsim replay: $latest: event 1: instance 1, started at 9223372036854775807 us, passes 2^63 - 1 microseconds of host time" ] ||
	fail "sequential past 2^63: $err"
expect_status 1 "$ANONSIM" replay -q -s read-copy -n 11 --stagger 1e12 "$basic"
[ "$err" = "anonsim replay: --stagger 1000000000000: instance 11 would start past 2^63 - 1 microseconds of host time" ] ||
	fail "--stagger past 2^63: $err"
zero="$tmp/zero-footprint.trace"
printf '%s\n' 'anonsim-trace 1' 'page-size 4096' 'memory 1048576' \
	'device ubda size=1048576 backing=zero' 'events' '0 mmap 0x60000000 1048576 0' \
	'10 touch 1 2' '20 footprint tmpfs 0' '20 footprint cache:ubda 0' >"$zero"
expect_status 4 "$ANONSIM" fidelity --json "$zero"
printf '%s\n' "$out" | grep -Eiq '(^|[^a-z_"])(inf|infinity|nan)([^a-z_"]|$)' &&
	fail "fidelity --json wrote a bare non-finite number: $out"
expect_match "$out" '"diff_pct": null,'
expect_status 4 "$ANONSIM" fidelity --csv "$zero"
expect_match "$out" "^$zero,0,2,,0,0,0,no,\$"
bad_name="$tmp/$(printf 'n\351')"
cp "$basic" "$bad_name.trace"
expect_status 0 "$ANONSIM" replay -q --json -s read-copy "$bad_name.trace"
printf '%s\n' "$out" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 ||
	fail "replay --json wrote bytes that are not UTF-8"
expect_match "$out" "\"name\": \".*/n\\\\ufffd\\.trace\""
finish
