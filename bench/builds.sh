# SPDX-License-Identifier: GPL-2.0-only
# Shared by the scripts that set two builds side by side (same_output.sh,
# instructions.sh): a commit's tree, or the working tree, unpacked and
# built in a scratch folder.  The including script runs at the top of the
# git tree and sets "jobs" (make -j) and die() (report and exit 5).

# unpack REV DIR: the tree of commit REV (empty REV: the working tree,
# tracked files and new ones git does not ignore) into DIR
unpack() {
	mkdir -p "$2" || return 1
	if [ -n "$1" ]; then
		git archive "$1" | tar -xf - -C "$2"
	else
		git ls-files -z -co --exclude-standard | xargs -0 sh -c \
			'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
			tar -cf - -T - | tar -xf - -C "$2"
	fi
}

# build DIR TARGET...: configure DIR without sanitizers and make TARGETs,
# the log in DIR.build.log (its tail printed if the build fails)
build() {
	build_dir=$1
	shift
	echo "$(basename "$0" .sh): building $build_dir" >&2
	(cd "$build_dir" && autoreconf -fi && ./configure --disable-sanitizers &&
		make -j"$jobs" "$@") >"$build_dir.build.log" 2>&1 ||
		{ tail -n 20 "$build_dir.build.log" >&2; die "build of $build_dir failed (log: $build_dir.build.log)"; }
}
