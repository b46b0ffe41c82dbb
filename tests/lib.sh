# SPDX-License-Identifier: GPL-2.0-only
# tests/lib.sh - helpers for the shell tests; source it first.
# Run from the build tree by "make check", which exports ANONSIM, top_srcdir.
set -u
: "${ANONSIM:?run through make check}"
: "${top_srcdir:?run through make check}"
failures=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# make check-valgrind: every run of anonsim under memcheck ($VALGRIND_RUN,
# which exits 97 on an error)
if [ -n "${VALGRIND_RUN:-}" ]; then
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$VALGRIND_RUN" "$ANONSIM" >"$tmp/anonsim-vg"
	chmod +x "$tmp/anonsim-vg"
	ANONSIM=$tmp/anonsim-vg
fi

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# as_root: whether the test may use root's powers (swap files, cgroups,
# mounts): run as root, and not asked to stay unprivileged
# (ANONSIM_TESTS_UNPRIVILEGED=1, as the Debian package's build does)
as_root() { [ "$(id -u)" = 0 ] && [ "${ANONSIM_TESTS_UNPRIVILEGED:-0}" != 1 ]; }

# expect_status STATUS CMD...: run CMD, keep stdout/stderr in $out/$err.
expect_status() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
	[ "$got" -eq "$want" ] || fail "$* exited $got, expected $want; stderr: $err"
}

# expect_match TEXT PATTERN: grep -E PATTERN in TEXT
expect_match() {
	printf '%s\n' "$1" | grep -Eq -- "$2" || fail "expected /$2/ in: $1"
}

# need_gnuplot: $GNUPLOT, else gnuplot on PATH, exported as GNUPLOT; the
# test skipped (77) without it
need_gnuplot() {
	GNUPLOT=${GNUPLOT:-}
	[ -n "$GNUPLOT" ] || GNUPLOT=$(command -v gnuplot) || GNUPLOT=
	if [ -z "$GNUPLOT" ]; then
		echo "gnuplot not found: plots not tested"
		exit 77
	fi
	export GNUPLOT
}

# plot_ok FILE: FILE is a non-empty plot of its extension: a PNG (its 8
# signature bytes 89 50 4E 47 0D 0A 1A 0A) or SVG (starting as XML or SVG)
plot_ok() {
	[ -s "$1" ] || { fail "$1 missing or empty"; return; }
	case $1 in
	*.png) [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1: no PNG signature" ;;
	*.svg) head -c 5 "$1" | grep -Eq '^(<\?xml|<svg)' || fail "$1: not SVG" ;;
	esac
}

finish() { [ "$failures" -eq 0 ]; exit $?; }

# qemu_skip MESSAGE: skip the test (77) for want of what a real QEMU guest
# needs; with QEMU_REQUIRED=1 in the environment (CI) a failure instead
qemu_skip() {
	if [ "${QEMU_REQUIRED:-0}" = 1 ]; then
		echo "FAIL: $* (QEMU_REQUIRED=1)" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

# fuzz_short PART MAXLEN: the libFuzzer target tests/PART/fuzz on each
# input kept in tests/PART/fuzz.corpus/ (crashes found before stay as
# regression inputs), then a short run (15 s) seeded with them, inputs up
# to MAXLEN bytes; new inputs go to a scratch corpus, crashes to $tmp.
# Exits 77 when configure found no clang with libFuzzer.
fuzz_short() {
	fuzzer=$top_builddir/tests/$1/fuzz
	corpus=$top_srcdir/tests/$1/fuzz.corpus
	[ -x "$fuzzer" ] || { echo "no libFuzzer build (configure --enable-fuzzer)"; exit 77; }
	TMPDIR=$tmp "$fuzzer" "$corpus"/* >"$tmp/regress.log" 2>&1 || {
		tail -20 "$tmp/regress.log" >&2
		fail "tests/$1/fuzz: a kept input fails again"
	}
	mkdir "$tmp/corpus"
	TMPDIR=$tmp "$fuzzer" -runs=20000 -max_total_time=15 -max_len="$2" -timeout=10 \
		-artifact_prefix="$tmp/" "$tmp/corpus" "$corpus" >"$tmp/log" 2>&1 || {
		tail -40 "$tmp/log" >&2
		fail "tests/$1/fuzz found a crash or a disagreement: keep the input under tests/$1/fuzz.corpus/"
	}
}

# signal_ignored NUMBER: whether this shell was started with signal NUMBER
# ignored (a test suite run in the background or under nohup); a program
# started from here keeps it ignored, as it should, so a test that sends
# it cannot expect it to act.  Linux only (/proc); elsewhere: not ignored.
signal_ignored() {
	mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
	[ -n "$mask" ] || return 1
	[ $(((0x$mask >> ($1 - 1)) & 1)) -eq 1 ]
}
