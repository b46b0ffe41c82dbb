# SPDX-License-Identifier: GPL-2.0-only
# tests/lib.sh - helpers for the shell tests; source it first.
# Run from the build tree by "make check", which exports ANONSIM, top_srcdir.
set -u
: "${ANONSIM:?run through make check}"
: "${top_srcdir:?run through make check}"
failures=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

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

finish() { [ "$failures" -eq 0 ]; exit $?; }
