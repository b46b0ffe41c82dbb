#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/bounded.sh, the runner of every shell test: a test past
# TEST_TIMEOUT fails (143, its SIGTERM trap run) with its processes
# listed, and nothing it started is left; a test's own status (0, 1, 77)
# passes through; SIGTERM to the runner reaches the test and its children.
. "${top_srcdir:-.}/tests/lib.sh"

command -v setsid >/dev/null 2>&1 || { echo "no setsid: the runner runs tests unbounded"; exit 77; }
runner=$top_srcdir/tests/bounded.sh

# a test that hangs: a child asleep, the shell waiting on it
cat >"$tmp/hang.sh" <<EOT
trap 'echo "cleanup ran"; exit 143' TERM
sleep 600 &
sleep 601 &
echo started >"$tmp/started"
wait
EOT
left() { ps -eo args | grep -c '^sleep 60[01]$'; }
before=$(left)
TEST_TIMEOUT=2 sh "$runner" /bin/sh "$tmp/hang.sh" >"$tmp/out" 2>&1
st=$?
[ "$st" -eq 143 ] || fail "a hanging test: status $st, expected 143: $(cat "$tmp/out")"
expect_match "$(cat "$tmp/out")" "^FAIL: $tmp/hang\\.sh still running after 2 s \\(TEST_TIMEOUT\\); its processes:\$"
expect_match "$(cat "$tmp/out")" ' sleep 600$'
expect_match "$(tail -n 1 "$tmp/out")" '^cleanup ran$'
sleep 0.2
[ "$(left)" -eq "$before" ] || fail "the hanging test's sleeps are left: $(ps -eo pid,args | grep 'sleep 60[01]$')"

# statuses pass through, within the bound
for want in 0 1 77; do
	echo "exit $want" >"$tmp/st.sh"
	TEST_TIMEOUT=60 sh "$runner" /bin/sh "$tmp/st.sh"
	st=$?
	[ "$st" -eq "$want" ] || fail "a test exiting $want: runner status $st"
done
TEST_TIMEOUT=x sh "$runner" /bin/sh "$tmp/st.sh" 2>"$tmp/err"
st=$?
[ "$st" -eq 99 ] || fail "TEST_TIMEOUT=x: status $st, expected 99"
expect_match "$(cat "$tmp/err")" "^TEST_TIMEOUT: seconds from 1, not 'x'\$"

# SIGTERM to the runner: the test's trap runs, its children go
rm -f "$tmp/started"
TEST_TIMEOUT=600 sh "$runner" /bin/sh "$tmp/hang.sh" >"$tmp/out" 2>&1 &
pid=$!
i=0
until [ -f "$tmp/started" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $pid
wait $pid
st=$?
[ "$st" -eq 143 ] || fail "SIGTERM to the runner: status $st, expected 143: $(cat "$tmp/out")"
expect_match "$(cat "$tmp/out")" '^cleanup ran$'
sleep 0.2
[ "$(left)" -eq "$before" ] || fail "after SIGTERM the sleeps are left: $(ps -eo pid,args | grep 'sleep 60[01]$')"
finish
