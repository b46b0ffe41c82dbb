#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/bounded.sh SHELL TEST [ARGS...]: make check's runner of the shell
# tests.  TEST runs under SHELL in a session of its own (setsid), for
# TEST_TIMEOUT seconds at most (default 1200, far above any test's time):
# a test still running then fails with what its processes were doing,
# and they get SIGTERM (their cleanup runs), SIGKILL 30 s later.  A hang
# fails one test instead of holding make check to CI's limit.  SIGINT,
# SIGTERM and SIGHUP to the runner go to the test and all it started.
set -u
sh_=$1
shift
limit=${TEST_TIMEOUT:-1200}
case $limit in ''|*[!0-9]*|0) echo "TEST_TIMEOUT: seconds from 1, not '$limit'" >&2; exit 99 ;; esac

# a session of its own: its process group is the test and all it starts
command -v setsid >/dev/null 2>&1 || exec "$sh_" "$@"	# unbounded
setsid "$sh_" "$@" &
pid=$!
(
	i=0
	while [ "$i" -lt "$limit" ]; do
		sleep 1
		i=$((i + 1))
	done
	echo "FAIL: $1 still running after $limit s (TEST_TIMEOUT); its processes:" >&2
	ps -eo pid,pgid,stat,etime,args 2>/dev/null | awk -v g="$pid" 'NR == 1 || $2 == g' >&2
	kill -TERM "-$pid" 2>/dev/null
	sleep 30
	kill -KILL "-$pid" 2>/dev/null
) &
dog=$!
trap 'kill -TERM "-$pid" 2>/dev/null' INT TERM HUP
while :; do
	wait "$pid"
	st=$?
	# wait returns early (above 128) on a trapped signal; the test may run on
	kill -0 "$pid" 2>/dev/null || break
done
kill "$dog" 2>/dev/null
wait "$dog" 2>/dev/null
exit "$st"
