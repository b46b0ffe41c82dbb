#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# quiet.sh - -q, --quiet on every command and trace subcommand: where a
# trace is named, it leaves out the line saying which file the name read
# (standard error then empty), never an error; where there is nothing to
# leave out it is taken all the same.  Every --help lists it.
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "$top_srcdir" && pwd) || exit 1
ANONSIM_DATADIR=$src
export ANONSIM_DATADIR
mkdir "$tmp/here" "$tmp/scratch" && cd "$tmp/here" || exit 1

has_live=false
"$ANONSIM" --help | grep -q '^  live ' && has_live=true
for cmd in "replay -s punch" "density -m 256M --max 4" "sweep -s read-copy -o sweep.csv" \
	"fidelity" "trace check" "trace stat" "trace cat" "live -s read-copy -d $tmp/scratch"; do
	case $cmd in live*) $has_live || continue ;; esac
	# shellcheck disable=SC2086 # the command and its options are words
	expect_status 0 "$ANONSIM" $cmd -q debian-boot-64M
	[ -z "$err" ] || fail "$cmd -q debian-boot-64M: stderr: $err"
	# shellcheck disable=SC2086
	expect_status 0 "$ANONSIM" $cmd --quiet debian-boot-64M
	[ -z "$err" ] || fail "$cmd --quiet debian-boot-64M: stderr: $err"
done
expect_status 0 "$ANONSIM" trace convert -q debian-boot-64M boot.atr
[ -z "$err" ] || fail "trace convert -q: stderr: $err"
expect_status 0 "$ANONSIM" trace check -q boot.atr
[ "$out" = "boot.atr: ok, 12270 events" ] || fail "trace check -q boot.atr: $out"

# never an error
expect_status 2 "$ANONSIM" trace check -q nosuch boot.atr
[ "$err" = "anonsim trace check: nosuch: No such file or directory, nor a shipped trace (anonsim trace list names them)" ] ||
	fail "trace check -q nosuch: stderr: $err"
[ "$out" = "boot.atr: ok, 12270 events" ] || fail "trace check -q nosuch boot.atr: $out"
expect_status 2 "$ANONSIM" fidelity -q debian-boot-65M
[ "$err" = "anonsim fidelity: debian-boot-65M: No such file or directory, nor a shipped trace (anonsim trace list names them)" ] ||
	fail "fidelity -q debian-boot-65M: stderr: $err"

# taken where there is nothing to leave out
expect_status 0 "$ANONSIM" selftest -q
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" -eq 8 ] || fail "selftest -q: $out"
expect_status 0 "$ANONSIM" trace list -q --csv
[ "$(printf '%s\n' "$out" | grep -c "^[A-Za-z0-9-]*,$src/traces/")" -eq 18 ] || fail "trace list -q: $out"
expect_status 0 "$ANONSIM" trace gen -q "$src/traces/woody-2004.profile" woody.trace
[ "$out" = "woody.trace: 4388 events, 1792 pages read, 2525 touched, 0 freed, 4277 physical pages used" ] ||
	fail "trace gen -q: $out"
expect_status 1 "$ANONSIM" trace gen -x a b
[ "$err" = "anonsim trace gen: unknown option '-x' (see anonsim trace gen --help)" ] ||
	fail "trace gen -x: stderr: $err"
expect_status 1 "$ANONSIM" selftest extra
[ "$err" = "anonsim selftest: unexpected argument 'extra' (see anonsim selftest --help)" ] ||
	fail "selftest extra: stderr: $err"

# every --help says it
for cmd in selftest replay density fidelity sweep reproduce "trace check" "trace stat" \
	"trace convert" "trace cat" "trace list" "trace gen" "trace import" live; do
	case $cmd in live) $has_live || continue ;; esac
	# shellcheck disable=SC2086
	expect_status 0 "$ANONSIM" $cmd --help
	expect_match "$out" '^  -q, --quiet  '
done
finish
