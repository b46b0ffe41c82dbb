#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cgroup_kernel_memory.sh - what a memory cgroup holds beyond its tmpfs and
# page cache, from the calibration's kept runs.
set -u
usage() {
	cat <<USAGE
usage: bench/cgroup_kernel_memory.sh [--half fit|held|all] [-o DIR]

Reads the kernel's runs kept by bench/calibrate.sh (DIR/NAME/run-K.json,
default DIR bench/results/calibrate) and, at each phase point before the
run's first swap-out, takes what the cgroup holds beyond its tmpfs
(shmem) and page cache: cgroup_pages - tmpfs_pages - cache_pages, less the
overhead the run's probe measured for each instance started (fixed and
anonymous: overhead_mib and overhead_anon_mib; k of the
point "k:name").  Fits that, by least squares through the origin, as a
share of the tmpfs pages plus a share of the page cache pages (the kernel
memory that grows with them: page tables, the shmem and page cache
xarrays) and prints the two shares, the points, their mean and the
root-mean-square error, for the configurations of the half asked (the
corpus's HALF column; default fit).  Needs no root; needs jq.

Exit status: 0 done; 1 usage error or no runs.
USAGE
}
top=$(cd "$(dirname "$0")/.." && pwd)
half=fit dir=$top/bench/results/calibrate jq=${JQ:-jq}
while [ $# -gt 0 ]; do
	case $1 in
	--half) [ $# -ge 2 ] || { echo "cgroup_kernel_memory: --half needs a value" >&2; exit 1; }
		half=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || { echo "cgroup_kernel_memory: -o needs a value" >&2; exit 1; }
		dir=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "cgroup_kernel_memory: unknown argument '$1' (see --help)" >&2; exit 1 ;;
	esac
done
case $half in fit|held|all) ;; *) echo "cgroup_kernel_memory: --half: fit, held or all, not '$half'" >&2; exit 1 ;; esac
command -v "$jq" >/dev/null 2>&1 || { echo "cgroup_kernel_memory: needs jq" >&2; exit 1; }
. "$top/bench/calibrate/configs.sh"

corpus_configs cgroup_kernel_memory "$top/bench/calibrate/corpus" "$half" "" |
while read -r name _; do
	for f in "$dir/$name"/run-*.json; do
		[ -r "$f" ] || continue
		# each point before the first swap-out: instances, tmpfs, cache, beyond the probe
		"$jq" -r '.results[0] | ((.overhead_mib + (.overhead_anon_mib // 0)) * 256) as $o | .first_swap_out_s as $first | .points[] |
			select(($first == null or .time_s < $first) and (.point | test("^[0-9]+:"))) |
			(.point | split(":")[0] | tonumber) as $k |
			[.tmpfs_pages, .cache_pages, .cgroup_pages - .tmpfs_pages - .cache_pages - $k * $o] | @tsv' "$f" ||
			exit 1
	done
done | awk -v half="$half" '
{ t = $1; c = $2; y = $3; n++; stt += t * t; scc += c * c; stc += t * c; sty += t * y; scy += c * y
  sy += y; v[n] = y; T[n] = t; C[n] = c }
END {
	if (!n) { print "cgroup_kernel_memory: no runs" > "/dev/stderr"; exit 1 }
	det = stt * scc - stc * stc
	a = (sty * scc - scy * stc) / det; b = (scy * stt - sty * stc) / det
	for (i = 1; i <= n; i++) { e = v[i] - a * T[i] - b * C[i]; se += e * e }
	printf "%s: %d points before the first swap-out: beyond the probe, %.2f %% of the tmpfs pages and %.2f %% of the page cache pages (mean %.0f pages, rms error %.0f)\n",
		half, n, a * 100, b * 100, sy / n, sqrt(se / n)
}'
