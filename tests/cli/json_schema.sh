#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every command's --json holds to its schema in doc/schema (draft 2020-12,
# strict: required keys, fixed types, null only where a figure may not
# exist, no unknown key), on runs that reach the nullable figures both
# ways; a document with a number turned into a string, an unknown key, a
# null where a figure always exists or sweep's policy as the number 2.4
# fails.  Every command whose source writes json_head() has a schema.
. "${top_srcdir:-.}/tests/lib.sh"
command -v jq >/dev/null || { echo "jq is not installed"; exit 77; }
python3 -c 'import jsonschema' 2>/dev/null || {
	echo "python3-jsonschema is not installed"
	exit 77
}
schemas=$top_srcdir/doc/schema
basic=$top_srcdir/tests/model/replay/basic.trace
dens=$top_srcdir/tests/model/replay/density.trace
mid=$top_srcdir/tests/model/fidelity-traces/mid-footprint.trace
phases=$top_srcdir/tests/live/traces/phases.trace

# valid SCHEMA-NAME FILE: FILE holds to doc/schema/anonsim-NAME.schema.json
valid() {
	python3 "$top_srcdir/tests/cli/validate_json.py" "$schemas/anonsim-$1.schema.json" "$2" \
		2>"$tmp/why" || fail "$2 does not hold to anonsim-$1: $(head -5 "$tmp/why")"
	echo "$1" >>"$tmp/checked"
}

# json STATUS NAME ANONSIM-ARGUMENTS...: run, keep the JSON as NAME.json
json() {
	want=$1 name=$2; shift 2
	expect_status "$want" "$ANONSIM" "$@"
	printf '%s\n' "$out" >"$tmp/$name.json"
}

# every command that writes JSON has its schema, and no schema is left over
grep -ho 'json_head(&j, "[a-z ]*")' "$top_srcdir"/src/cli/*.c |
	sed -e 's/.*"\(.*\)")/\1/' -e 's/ /-/g' | sort -u >"$tmp/commands"
(cd "$schemas" && ls anonsim-*.schema.json) | sed -e 's/^anonsim-//' -e 's/\.schema\.json$//' |
	grep -vx common >"$tmp/schemas"
diff "$tmp/commands" "$tmp/schemas" >&2 || fail "commands with --json and schemas differ"

json 0 replay replay -q --json -s all "$basic"
valid replay "$tmp/replay.json"
json 0 replay-pages replay -q --json -s all --pages --check -n 2 "$basic"
valid replay "$tmp/replay-pages.json"
# a density (host memory limited) and none (unlimited: null)
json 0 density density -q --json -s all -m 256K --policy 2.4 --max 32 "$dens"
valid density "$tmp/density.json"
json 0 density-unlimited density -q --json -s punch --max 4 "$dens"
valid density "$tmp/density-unlimited.json"
json 0 sweep sweep -q --json -s punch,read-copy --policy 2.4,modern --readahead trace,64 "$basic"
valid sweep "$tmp/sweep.json"
# the 2004 boot with its published figures, and a trace without (null)
src=$(cd "$top_srcdir" && pwd)	# the config's paths are read from its folder
sed -e "s|^profile .*|profile $src/traces/woody-2004.profile|" -e '/^trace /d' \
	"$top_srcdir/traces/reproduce.conf" >"$tmp/r.conf"
echo "trace $src/tests/model/replay/basic.trace" >>"$tmp/r.conf"
json 0 reproduce reproduce -q --json -c "$tmp/r.conf"
valid reproduce "$tmp/reproduce.json"
# fidelity: both figures held, the tmpfs one not held (null), and a
# difference from a measured 0 (null); that last one is beyond tolerance
grep -v 'footprint tmpfs' "$mid" >"$tmp/cache-only.trace"
printf '%s\n' 'anonsim-trace 1' 'page-size 4096' 'memory 1048576' \
	'device ubda size=1048576 backing=zero' 'events' '0 mmap 0x60000000 1048576 0' \
	'10 touch 1 2' '20 footprint tmpfs 0' '20 footprint cache:ubda 0' >"$tmp/zero.trace"
json 4 fidelity fidelity --json "$mid" "$tmp/cache-only.trace" "$tmp/zero.trace"
valid fidelity "$tmp/fidelity.json"
[ "$(jq -c '[.results[] | [(.tmpfs | type), .tmpfs.diff_pct]]' "$tmp/fidelity.json")" = \
	'[["null",null],["null",null],["object",null]]' ] || fail "fidelity: not the nulls meant"
json 0 trace-stat trace stat --json "$basic"
valid trace-stat "$tmp/trace-stat.json"
expect_status 0 env ANONSIM_DATADIR="$top_srcdir" "$ANONSIM" trace list --json
printf '%s\n' "$out" >"$tmp/trace-list.json"
valid trace-list "$tmp/trace-list.json"
if "$ANONSIM" --help | grep -q '^ *live '; then
	mkdir "$tmp/scratch"
	json 0 live live --json -s punch -d "$tmp/scratch" "$phases"
	valid live "$tmp/live.json"
else
	echo "anonsim live is not built here: its JSON not validated"
	echo live >>"$tmp/checked"
fi
sort -u "$tmp/checked" | diff "$tmp/schemas" - >&2 || fail "a schema was not used"

# wrong documents fail, each with the one error it has
# invalid SCHEMA-NAME FILE JQ-EDIT MESSAGE
invalid() {
	jq "$3" "$2" >"$tmp/bad.json"
	python3 "$top_srcdir/tests/cli/validate_json.py" "$schemas/anonsim-$1.schema.json" \
		"$tmp/bad.json" 2>"$tmp/why"
	rc=$?
	[ $rc -eq 1 ] || fail "$3: the validator exited $rc, expected 1"
	[ "$(cat "$tmp/why")" = "$tmp/bad.json: $4" ] || fail "$3: $(cat "$tmp/why")"
}
invalid replay "$tmp/replay.json" '.results[0].final_total_mib |= tostring' \
	"/results/0/final_total_mib: '0.03125' is not of type 'number'"
invalid replay "$tmp/replay.json" '.results[0].final_total_pages = 8' \
	"/results/0: Additional properties are not allowed ('final_total_pages' was unexpected)"
invalid replay "$tmp/replay.json" '.traces[0].header.devices[0].size_bytes = null' \
	"/traces/0/header/devices/0/size_bytes: None is not of type 'integer'"
invalid replay "$tmp/replay.json" 'del(.results[0].failure)' \
	"/results/0: 'failure' is a required property"
invalid sweep "$tmp/sweep.json" '.results[0].policy = 2.4' \
	"/results/0/policy: 2.4 is not of type 'string'
$tmp/bad.json: /results/0/policy: 2.4 is not one of ['2.4', 'modern']"
invalid reproduce "$tmp/reproduce.json" 'del(.results[1].strategies[0].published_mib)' \
	"/results/1/strategies/0: 'published_mib' is a required property"
invalid trace-stat "$tmp/trace-stat.json" '.results.events = "4"' \
	"/results/events: '4' is not of type 'integer'"
finish
