#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# trace_names.sh - the traces that come with anonsim by name, from a
# directory that has none: every command that reads traces finds
# "debian-boot-64M" (and "debian-boot-64M.trace.gz", and the calibration
# corpus's names) under the data directory and says which file it read; a
# file of that name in the working directory comes first and says so; a
# name of nothing, and the README's old traces/NAME.trace.gz away from the
# source tree, are refused with status 2 and the exact message; anonsim
# trace list gives the thirteen traces with the event counts of
# traces/README.md and the durations of trace stat, in all three formats.
# ANONSIM_DATADIR stands for the installed data directory (the source
# tree has its layout; tests/cli/examples.sh runs an installed anonsim).
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "$top_srcdir" && pwd) || exit 1
ANONSIM_DATADIR=$src
export ANONSIM_DATADIR
shipped=$src/traces/debian-boot-64M.trace.gz
small=$src/tests/trace/traces/small.trace
mkdir "$tmp/here" && cd "$tmp/here" || exit 1

# replay by name reads the very file the path names: the same report
expect_status 0 "$ANONSIM" replay -q --csv --pages "$shipped"
report=$out
for name in debian-boot-64M debian-boot-64M.trace.gz; do
	expect_status 0 "$ANONSIM" replay --csv --pages "$name"
	[ "$out" = "$report" ] || fail "replay $name: not the report of $shipped"
	[ "$err" = "anonsim replay: $name: reading the shipped trace $shipped" ] ||
		fail "replay $name: stderr: $err"
done
# -q: not a word
expect_status 0 "$ANONSIM" replay -q --csv --pages debian-boot-64M
[ -z "$err" ] || fail "replay -q said: $err"
# the JSON names the file read
expect_status 0 "$ANONSIM" replay -q -s punch --json debian-boot-64M
expect_match "$out" "\"name\": \"$shipped\""

# the calibration corpus by name
expect_status 0 "$ANONSIM" trace check seq-stream
[ "$out" = "$src/traces/calibration/seq-stream.trace.gz: ok, 10531 events" ] ||
	fail "trace check seq-stream: $out"

# every command that reads traces, by name and by a name of nothing
has_live=false
"$ANONSIM" --help | grep -q '^  live ' && has_live=true
mkdir "$tmp/scratch"
for cmd in "replay -s punch" "density -q -m 256M --max 4" "sweep -q -s read-copy -o sweep.csv" \
	"fidelity" "trace check" "trace stat" "trace cat" "live -s read-copy -d $tmp/scratch"; do
	case $cmd in live*) $has_live || continue ;; esac
	name=${cmd%% -*}
	case $cmd in density*|sweep*) said= ;; *) said="anonsim $name: debian-boot-64M: reading the shipped trace $shipped" ;; esac
	# shellcheck disable=SC2086 # the command and its options are words
	expect_status 0 "$ANONSIM" $cmd debian-boot-64M
	[ "$err" = "$said" ] || fail "$cmd debian-boot-64M: stderr: $err"
	# shellcheck disable=SC2086
	expect_status 2 "$ANONSIM" $cmd debian-boot-65M
	[ "$err" = "anonsim $name: debian-boot-65M: No such file or directory, nor a shipped trace (anonsim trace list names them)" ] ||
		fail "$cmd debian-boot-65M: stderr: $err"
done
[ -s sweep.csv ] || fail "sweep by name wrote no sweep.csv"
expect_status 0 "$ANONSIM" trace convert debian-boot-64M boot.atr
expect_status 0 "$ANONSIM" trace check boot.atr
[ "$out" = "boot.atr: ok, 12270 events" ] || fail "converted by name: $out"

# a path is a path: away from the source tree the README's old example
# names what would have found it, any other missing file is as before
expect_status 2 "$ANONSIM" replay traces/debian-boot-64M.trace.gz
[ "$err" = "anonsim replay: traces/debian-boot-64M.trace.gz: No such file or directory (a shipped trace is named without its folder: debian-boot-64M)" ] ||
	fail "replay traces/debian-boot-64M.trace.gz: stderr: $err"
expect_status 2 "$ANONSIM" replay nowhere/missing.trace
[ "$err" = "anonsim replay: nowhere/missing.trace: No such file or directory" ] ||
	fail "replay nowhere/missing.trace: stderr: $err"
# trace check goes on past a name of nothing, and says which it refused
expect_status 2 "$ANONSIM" trace check nosuch debian-boot-128M
[ "$out" = "$src/traces/debian-boot-128M.trace.gz: ok, 12310 events" ] ||
	fail "trace check nosuch debian-boot-128M: $out"
expect_match "$err" '^anonsim trace check: nosuch: No such file or directory, nor a shipped trace'

# the working directory wins, and says so
cp "$small" debian-boot-64M.trace.gz
expect_status 0 "$ANONSIM" trace check debian-boot-64M.trace.gz
[ "$out" = "debian-boot-64M.trace.gz: ok, 14 events" ] || fail "local file not read: $out"
[ "$err" = "anonsim trace check: debian-boot-64M.trace.gz: reading the file in the working directory, not the shipped trace $shipped" ] ||
	fail "local file: stderr: $err"
cp "$small" debian-boot-64M
expect_status 0 "$ANONSIM" trace check debian-boot-64M
[ "$out" = "debian-boot-64M: ok, 14 events" ] || fail "local file by the bare name not read: $out"
expect_status 0 "$ANONSIM" replay -q -s punch debian-boot-64M
[ -z "$err" ] || fail "replay -q of a local file said: $err"
rm debian-boot-64M debian-boot-64M.trace.gz
# in the data directory itself the file is the shipped trace: nothing to say
(cd "$src/traces" && "$ANONSIM" trace check debian-boot-64M.trace.gz) >"$tmp/o" 2>"$tmp/e" ||
	fail "trace check in traces/ failed: $(cat "$tmp/e")"
[ -s "$tmp/e" ] && fail "trace check in traces/ said: $(cat "$tmp/e")"

# anonsim trace list: eighteen traces, recorded then calibration, by name;
# events as traces/README.md counts them, durations as trace stat gives
expect_status 0 "$ANONSIM" trace list --csv
printf '%s\n' "$out" >list.csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i }
	NR > 1 && $k["file"] ~ /\.trace\.gz$/ { print $k["name"], $k["events"], $k["duration_s"] }' list.csv >got
cat >want <<'EOF'
debian-boot-128M 12310 29.185424
debian-boot-64M 12270 27.808028
debian-build-128M 27700 42.965373
debian-compile-128M 46344 58.693389
debian-cow-boot-64M 13349 26.021221
debian-files-64M 34578 14.693693
debian-install-128M 37862 31.646765
debian-reread-64M 27545 19.5149
debian-tmpfs-64M 13368 30.26104
qemu-debian-compile-1G 120013 219.942915
qemu-debian-files-256M 10410 21.50677
qemu-debian-install-512M 28823 82.336692
qemu-debian-reread-256M 7413 19.367279
qemu-debian-tmpfs-256M 8707 39.906729
random-reads 6416 20.225
seq-stream 10531 22.58
shared-reread 804 14.148
tmpfs-churn 1336 6.68
EOF
diff want got >&2 || fail "trace list --csv: names, events, durations differ"
head -n 1 list.csv | grep -qx 'name,file,memory_bytes,page_size_bytes,events,duration_s,recorder,notes' ||
	fail "trace list --csv header: $(head -n 1 list.csv)"
for t in debian-build-128M seq-stream; do
	expect_status 0 "$ANONSIM" trace stat --csv "$t"
	d=$(printf '%s\n' "$out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i }
		NR == 2 { print $k["duration_s"] }')
	grep -q "^$t .* $d\$" got || fail "trace list and trace stat differ on $t's duration ($d)"
done
expect_status 0 "$ANONSIM" trace list
expect_match "$out" '^debian-boot-64M: 64 MiB of memory, 12270 events over 27\.8 s$'
expect_match "$out" "^  file      $src/traces/calibration/tmpfs-churn\\.trace\\.gz\$"
expect_match "$out" '^  recorder  bench/calibrate/shapes\.sh shape=tmpfs-churn$'
expect_match "$out" '^  note      copy-on-write layer of ubda: data at byte 270336'
expect_match "$out" '^How each was recorded or made: .*/traces/README\.md$'
[ "$(printf '%s\n' "$out" | grep -c ' MiB of memory, ')" -eq 18 ] || fail "trace list: not 18 traces"
if command -v jq >/dev/null 2>&1; then
	expect_status 0 "$ANONSIM" trace list --json
	v=$(printf '%s\n' "$out" | jq -r '[.command, (.traces | length), .traces[1].name,
		.traces[1].header.memory_bytes, .results[14].name, .results[14].events,
		.results[14].duration_s] | map(tostring) | join(" ")')
	[ "$v" = "trace list 18 $shipped 67108864 random-reads 6416 20.225" ] ||
		fail "trace list --json: $v"
fi
expect_status 1 "$ANONSIM" trace list debian-boot-64M
[ "$err" = "anonsim trace list: unexpected argument 'debian-boot-64M': the list takes none (see anonsim trace list --help)" ] ||
	fail "trace list ARG: stderr: $err"
expect_status 1 "$ANONSIM" trace list --csv --json

# a data directory of its own: -o onto a shipped trace is refused before
# any work, a damaged trace is named, and without traces/ the place
# looked at is named (and names find nothing)
mkdir -p "$tmp/data/traces"
cp "$small" "$tmp/data/traces/small.trace.gz"
cp "$small" "$tmp/data/traces/keep.trace.gz"
expect_status 1 env ANONSIM_DATADIR="$tmp/data" "$ANONSIM" trace list -o "$tmp/data/traces/keep.trace.gz"
cmp -s "$small" "$tmp/data/traces/keep.trace.gz" || fail "trace list -o changed a shipped trace"
printf 'anonsim-trace 1\npage-size 4096\n' >"$tmp/data/traces/broken.trace.gz"
expect_status 2 env ANONSIM_DATADIR="$tmp/data" "$ANONSIM" trace list -o list.txt
[ "$err" = "anonsim trace list: $tmp/data/traces/broken.trace.gz:2: header not ended by an 'events' line" ] ||
	fail "trace list of a broken trace: stderr: $err"
[ -e list.txt ] && fail "a failed trace list left list.txt"
expect_status 2 env ANONSIM_DATADIR="$tmp/nowhere" "$ANONSIM" trace list
[ "$err" = "anonsim trace list: $tmp/nowhere/traces: No such file or directory (is anonsim installed? ANONSIM_DATADIR names another data directory)" ] ||
	fail "trace list without data: stderr: $err"
expect_status 2 env ANONSIM_DATADIR="$tmp/nowhere" "$ANONSIM" replay debian-boot-64M
expect_match "$err" '^anonsim replay: debian-boot-64M: No such file or directory, nor a shipped trace'
finish
