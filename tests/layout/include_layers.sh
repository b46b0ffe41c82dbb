#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The parts of src/ depend one way (README, Layout):
#
#   cli -> live -> strategy -> model -> trace -> util, kernel
#
# A file may include headers of its own part and of the parts to its right,
# never of a part to its left.  The model calls strategies only through
# their interface, strategy/strategy.h.  Outside src/kernel every project
# header is named by its part ("trace/trace.h"), so the part is read off the
# name; src/kernel includes only its own headers, by their bare names, as it
# does in a kernel tree.
. "${top_srcdir:-.}/tests/lib.sh"

# allowed PART HEADER: may a file of PART include HEADER ("part/file.h")?
allowed() {
	case $1:$2 in
	util:util/*) ;;
	trace:util/* | trace:trace/* | trace:kernel/*) ;;
	model:util/* | model:trace/* | model:kernel/* | model:model/*) ;;
	model:strategy/strategy.h) ;;
	strategy:util/* | strategy:trace/* | strategy:kernel/* | strategy:model/*) ;;
	strategy:strategy/*) ;;
	live:util/* | live:trace/* | live:kernel/* | live:model/*) ;;
	live:strategy/* | live:live/*) ;;
	cli:*/*) ;;
	*) return 1 ;;
	esac
}

# check SRC: print each include that breaks the rules; the number of files
# checked goes to $tmp/files
check() {
	src=$1
	files=0
	for part in kernel util trace model strategy live cli; do
		[ -d "$src/$part" ] || { say "no folder $src/$part"; continue; }
		for f in "$src/$part"/*.[ch]; do
			[ -e "$f" ] || continue
			files=$((files + 1))
			# the quoted includes of f, one header a line
			sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
				sort -u >"$tmp/includes"
			while read -r h; do
				where="${f#"$src"/}: #include \"$h\""
				if [ "$part" = kernel ]; then
					case $h in
					*/*) say "$where: kernel code includes only its own headers" ;;
					*) [ -f "$src/kernel/$h" ] ||
						say "$where: no such header in src/kernel" ;;
					esac
					continue
				fi
				[ "$h" = config.h ] && continue
				case $h in
				*/*) ;;
				*) say "$where: name the part (\"part/$h\")"; continue ;;
				esac
				[ -f "$src/$h" ] || { say "$where: no such header under src/"; continue; }
				allowed "$part" "$h" ||
					say "$where: $part may not include a header of ${h%%/*}"
			done <"$tmp/includes"
		done
	done
	echo "$files" >"$tmp/files"
}
say() { printf '%s\n' "$*"; }

check "$top_srcdir/src" >"$tmp/broken"
if [ -s "$tmp/broken" ]; then
	fail "includes against the direction of the parts:"
	cat "$tmp/broken" >&2
fi
files=$(cat "$tmp/files")
[ "$files" -gt 20 ] || fail "only $files sources found under $top_srcdir/src"
echo "$files files checked for include direction"

# The check itself: each upward include planted in a copy must be reported.
cp -R "$top_srcdir/src" "$tmp/planted"
for plant in "trace/reader.c model/host.h" "util/util.c trace/trace.h" \
	"model/replay.c strategy/registry.h" "strategy/punch.c cli/report.h" \
	"kernel/anon.c util/util.h" "model/host.c host.h" \
	"strategy/devanon.c live/live.h" "live/guest.c cli/commands.h"; do
	set -- $plant
	cp "$top_srcdir/src/$1" "$tmp/planted/$1"
	printf '#include "%s"\n' "$2" >>"$tmp/planted/$1"
	check "$tmp/planted" >"$tmp/broken"
	grep -q "^$1: #include \"$2\"" "$tmp/broken" ||
		fail "the check missed $1 including $2"
	cp "$top_srcdir/src/$1" "$tmp/planted/$1"
done
finish
