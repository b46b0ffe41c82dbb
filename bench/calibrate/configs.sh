# SPDX-License-Identifier: GPL-2.0-only
# configs.sh - the calibration corpus read one way by every script that
# reads it (bench/calibrate.sh, bench/cgroup_kernel_memory.sh); sourced.
#
# corpus_configs PROG CORPUS HALF ONLY: the configuration lines of CORPUS,
# "NAME HALF TRACE STRATEGY N CGROUP STAGGER", comments and blank lines
# left out, of HALF (fit, held or all) and, when ONLY (names apart by
# spaces) is not empty, of those names; a line without 7 fields is
# reported as "PROG: CORPUS:LINE: 7 fields expected" and the status is 1
corpus_configs() {
	sed -e 's/#.*//' "$2" | awk -v prog="$1" -v half="$3" -v only="$4" -v file="$2" '
		NF == 0 { next }
		NF != 7 { printf "%s: %s:%d: 7 fields expected\n", prog, file, NR > "/dev/stderr"; bad = 1; next }
		half != "all" && $2 != half { next }
		only != "" && index(" " only " ", " " $1 " ") == 0 { next }
		{ print }
		END { exit bad }'
}
