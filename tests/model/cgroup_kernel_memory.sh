#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/cgroup_kernel_memory.sh on hand-made runs of two corpus
# configurations, one of each half.  Each instance's probe held 0.5 MiB
# (128 pages); beyond it the fit run's cgroup holds 50 pages with 10000
# of tmpfs (0.5 %), 100 with 10000 of page cache (1 %), and 200 with
# 20000 and 10000 of both: the fit is 0.5 % and 1 % exactly, the mean
# (50 + 100 + 200) / 3 = 117 pages, no error.  The point after the first
# swap-out and the "end" point are left out; the held run, with its own
# shares, counts only under --half held.
. "${top_srcdir:-.}/tests/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "needs jq"; exit 77; }
script=$top_srcdir/bench/cgroup_kernel_memory.sh
d=$tmp/calibrate
mkdir -p "$d/boot64-128-6-rc" "$d/boot128-128-6-rc"

point() {	# NAME TIME TMPFS CACHE CGROUP
	printf '{"point": "%s", "time_s": %s, "tmpfs_pages": %s, "cache_pages": %s, "cgroup_pages": %s, "swap_pages": 0}' \
		"$1" "$2" "$3" "$4" "$5"
}
cat >"$d/boot64-128-6-rc/run-1.json" <<JSON
{"results": [{"overhead_mib": 0.5, "first_swap_out_s": 30.0, "points": [
  $(point 1:a 1.0 10000 0 10178),
  $(point 1:b 2.0 0 10000 10228),
  $(point 2:c 3.0 20000 10000 30456),
  $(point 3:d 31.0 20000 0 90000),
  $(point end 40.0 20000 0 90000)]}]}
JSON
# held: 1 % of tmpfs and 2 % of page cache
cat >"$d/boot128-128-6-rc/run-1.json" <<JSON
{"results": [{"overhead_mib": 0, "first_swap_out_s": null, "points": [
  $(point 1:a 1.0 10000 0 10100),
  $(point 1:b 2.0 0 10000 10200)]}]}
JSON

out=$(sh "$script" -o "$d") || fail "exit $?: $out"
[ "$out" = "fit: 3 points before the first swap-out: beyond the probe, 0.50 % of the tmpfs pages and 1.00 % of the page cache pages (mean 117 pages, rms error 0)" ] ||
	fail "fit: $out"
out=$(sh "$script" --half held -o "$d") || fail "exit $?: $out"
[ "$out" = "held: 2 points before the first swap-out: beyond the probe, 1.00 % of the tmpfs pages and 2.00 % of the page cache pages (mean 150 pages, rms error 0)" ] ||
	fail "held: $out"
expect_status 1 sh "$script" --half both -o "$d"
expect_status 1 sh "$script" -o "$tmp/none"
