#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The parts of the tree include one another in one direction (README,
# Layout), and no two files include each other, directly or through
# others, but host.c and pagecache.c (a charge can reclaim, and reclaim
# evicts page cache: the kernel's own shape).  Every folder of src/,
# tests/ and bench/ has its rule:
#
#   src/kernel          its own headers, by bare name; <linux/...> alone;
#                       kapi.h alone its userspace half, user/kapi_defs.h
#   src/kernel/linux    its own and src/kernel's; <linux/...>, <asm/...> and
#                       <kunit/...> (its KUnit suite)
#   src/kernel/user     its own, src/kernel and src/util
#   src/util            nothing of the project
#   src/trace           src/util, src/kernel and its own
#   src/model           src/trace, src/util, src/kernel, src/kernel/user, its own
#   src/strategy        src/model and what it may include, its own
#   src/live            src/strategy and what it may include, its own, and
#                       the driver's user interface (kernel/linux/devanon_uapi.h)
#   src/lib             src/live and what it may include, its own (the
#                       public anonsim/anonsim.h it implements is named
#                       <anonsim/anonsim.h>, as its users name it)
#   src/cli             anything under src/ but src/record and src/lib
#   src/record          src/util and its own
#   src/record/*        src/util, src/record and its own
#   tests/*, bench/*    anything
#   src                 no files of its own
#
# Outside src/kernel a header of src/ is named by its part
# ("trace/trace.h"), so that the part reads off the name.  A second check
# reads the symbols each object file of the build defines and uses: no
# two source files call each other, directly or through others, but
# host.c and pagecache.c either (skipped where the objects or nm are
# missing).
. "${top_srcdir:-.}/tests/lib.sh"

# allowed FOLDER HEADER_FOLDER [HEADER]: may a file of FOLDER include
# HEADER, a header of HEADER_FOLDER?  Exit 2: FOLDER has no rule.
allowed() {
	[ "$1" = "$2" ] && return 0
	case $1 in
	src) return 1 ;;
	src/kernel) return 1 ;;
	src/kernel/linux) case $2 in src/kernel) ;; *) return 1 ;; esac ;;
	src/kernel/user) case $2 in src/kernel | src/util) ;; *) return 1 ;; esac ;;
	src/util) return 1 ;;
	src/trace) case $2 in src/util | src/kernel) ;; *) return 1 ;; esac ;;
	src/model) case $2 in src/trace | src/util | src/kernel | src/kernel/user) ;;
		*) return 1 ;; esac ;;
	src/strategy) allowed src/model "$2" || [ "$2" = src/model ] ;;
	src/live) allowed src/strategy "$2" || [ "$2" = src/strategy ] ||
		[ "${3:-}" = src/kernel/linux/devanon_uapi.h ] ;;
	src/lib) allowed src/live "$2" "${3:-}" || [ "$2" = src/live ] ;;
	src/cli) case $2 in src/record | src/record/* | src/lib) return 1 ;; src/*) ;;
		*) return 1 ;; esac ;;
	src/record) case $2 in src/util) ;; *) return 1 ;; esac ;;
	src/record/*) case $2 in src/util | src/record) ;; *) return 1 ;; esac ;;
	tests | tests/* | bench | bench/*) ;;
	*) return 2 ;;
	esac
}

# angle_ok FOLDER HEADER: may FOLDER include <HEADER>?  (src/kernel is
# kernel code: no libc)
angle_ok() {
	case $1:$2 in
	src/kernel:linux/*) ;;
	src/kernel/linux:linux/* | src/kernel/linux:asm/* | src/kernel/linux:kunit/*) ;;
	src/kernel:* | src/kernel/linux:*) return 1 ;;
	esac
}

# resolve ROOT FOLDER HEADER: the file (relative to ROOT) a quoted include
# of HEADER in FOLDER names, as the build finds it: beside the file, then
# (kernel code) in src/kernel, else under src/ and tests/; nothing if none
resolve() {
	for d in "$2" src/kernel src tests; do
		case $d:$2 in src/kernel:src/kernel*) ;; src/kernel:*) continue ;; esac
		[ -f "$1/$d/$3" ] || continue
		case $d/$3 in
		*../*) printf '%s\n' "$d/$3" | sed -e ':a' -e 's|[^/][^/]*/\.\./||' -e 'ta' ;;
		*) printf '%s\n' "$d/$3" ;;
		esac
		return
	done
}

# check ROOT: print each include that breaks the rules, and each include
# cycle; the number of files checked goes to $tmp/files
check() {
	root=$1
	files=0
	: >"$tmp/edges"
	for dir in $(cd "$root" && find src tests bench -name '.*' -prune -o -type d -print |
		LC_ALL=C sort); do
		allowed "$dir" none
		if [ $? -eq 2 ]; then
			say "$dir: no rule for this folder (tests/layout/include_layers.sh)"
			continue
		fi
		for f in "$root/$dir"/*.[ch]; do
			[ -e "$f" ] || continue
			files=$((files + 1))
			rel=${f#"$root"/}
			unit=${rel%.[ch]}
			sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^">]*[">]\).*/\1/p' "$f" |
				sort -u >"$tmp/includes"
			while read -r inc; do
				h=${inc#?}
				h=${h%?}
				where="$rel: #include $inc"
				case $inc in
				\<*)
					angle_ok "$dir" "$h" || say "$where: $dir includes no system header but the kernel's"
					continue ;;
				esac
				[ "$h" = config.h ] && continue
				target=$(resolve "$root" "$dir" "$h")
				if [ -z "$target" ]; then
					say "$where: no such header"
					continue
				fi
				case $dir:$h in
				src/kernel*:*) ;;
				src/*:*/*) ;;
				src/*:*) say "$where: name the part (\"part/$h\")"; continue ;;
				esac
				tdir=$(dirname "$target")
				[ "$rel:$target" = src/kernel/kapi.h:src/kernel/user/kapi_defs.h ] ||
					allowed "$dir" "$tdir" "$target" ||
					say "$where: $dir may not include a header of $tdir"
				echo "$unit ${target%.[ch]}" >>"$tmp/edges"
			done <"$tmp/includes"
		done
	done
	echo "$files" >"$tmp/files"
	cycles "include cycle" <"$tmp/edges"
}
say() { printf '%s\n' "$*"; }

# cycles WHAT: on standard input "A B" lines (A depends on B); print each
# pair of nodes that reach each other, but host and pagecache
cycles() {
	awk -v what="$1" '
	$1 != $2 { out[$1] = out[$1] " " $2; node[$1]; node[$2] }
	END {
		for (s in node) {
			# every node s reaches, breadth first
			split("", seen); n = 0; q[n++] = s
			for (i = 0; i < n; i++) {
				k = split(out[q[i]], next_, " ")
				for (j = 1; j <= k; j++)
					if (!(next_[j] in seen)) { seen[next_[j]]; q[n++] = next_[j] }
			}
			for (t in seen) reach[s, t]
		}
		for (a in node) for (b in node)
			if (a < b && (a, b) in reach && (b, a) in reach &&
			    !(a == "src/model/host" && b == "src/model/pagecache"))
				printf "%s: %s and %s depend on each other\n", what, a, b
	}' | LC_ALL=C sort
}

check "$top_srcdir" >"$tmp/broken"
if [ -s "$tmp/broken" ]; then
	fail "includes against the rules of the tree:"
	cat "$tmp/broken" >&2
fi
files=$(cat "$tmp/files")
[ "$files" -gt 100 ] || fail "only $files sources found under $top_srcdir"
echo "$files files checked for include direction and cycles"

# The check itself: each include planted in a copy against a part's rule
# must be reported, and so must a planted cycle.
mkdir "$tmp/planted"
(cd "$top_srcdir" && tar -cf - src tests bench) | (cd "$tmp/planted" && tar -xf -)
for plant in "src/kernel/anon.c user/kapi_user.h" "src/kernel/anon.c user/kapi_defs.h" \
	"src/kernel/anon.c <stdio.h>" \
	"src/kernel/linux/dev_anon.c user/kapi_user.h" "src/kernel/user/kapi_user.c model/host.h" \
	"src/util/util.c trace/trace.h" "src/trace/reader.c model/host.h" \
	"src/model/replay.c strategy/registry.h" "src/model/host.c host.h" \
	"src/strategy/punch.c live/live.h" "src/live/guest.c cli/commands.h" \
	"src/cli/main.c ../../tests/kernel/check_util.h" "src/record/rec_host.c trace/trace.h" \
	"src/lib/run.c cli/commands.h" "src/cli/main.c lib/sim.h" \
	"src/record/uml/uml_preload.c model/host.h"; do
	set -- $plant
	cp "$top_srcdir/$1" "$tmp/planted/$1"
	case $2 in
	\<*) inc=$2 ;;
	*) inc="\"$2\"" ;;
	esac
	printf '#include %s\n' "$inc" >>"$tmp/planted/$1"
	check "$tmp/planted" >"$tmp/broken"
	grep -q "^$1: #include $inc" "$tmp/broken" ||
		fail "the check missed $1 including $inc"
	cp "$top_srcdir/$1" "$tmp/planted/$1"
done
printf '#include "trace/share.h"\n' >>"$tmp/planted/src/trace/gen.c"
printf '#include "trace/gen.h"\n' >>"$tmp/planted/src/trace/share.c"
check "$tmp/planted" >"$tmp/broken"
grep -q "^include cycle: src/trace/gen and src/trace/share depend on each other" "$tmp/broken" ||
	fail "the check missed the include cycle planted between gen.c and share.c"
cp "$top_srcdir/src/trace/gen.c" "$tmp/planted/src/trace/gen.c"
cp "$top_srcdir/src/trace/share.c" "$tmp/planted/src/trace/share.c"
mkdir "$tmp/planted/src/newpart"
check "$tmp/planted" >"$tmp/broken"
grep -q "^src/newpart: no rule for this folder" "$tmp/broken" ||
	fail "the check took a folder without a rule"

# Calls: the symbols each object of the build defines and uses.  Objects
# of src/ as the library and the command have them (the fault-injection
# build, the recorder's programs and libtool's second, PIC, copy in .libs/
# aside).
objects() {
	(cd "$top_builddir" && find src -name '*.o' ! -name 'tests_*' ! -path 'src/record/*' \
		! -path '*/.libs/*' |
		LC_ALL=C sort)
}
# calls: "A B" lines, source A calls (or reads) what source B defines
calls() {
	objects | while read -r o; do
		src=$(dirname "$o")/$(basename "$o" .o | sed 's/^anonsim-//')
		nm "$top_builddir/$o" | awk -v s="$src" '
			NF == 3 && $2 ~ /^[TDBR]$/ { print "D " s " " $3 }
			NF == 2 && $1 == "U" { print "U " s " " $2 }'
	done | awk '
		$1 == "D" { def[$3] = $2 }
		$1 == "U" { use[++n] = $2; sym[n] = $3 }
		END { for (i = 1; i <= n; i++) if (sym[i] in def) print use[i], def[sym[i]] }'
}
if ! command -v nm >/dev/null 2>&1; then
	echo "no nm: the call check is skipped"
elif [ "$(objects | wc -l)" -lt 40 ]; then
	echo "no objects under $top_builddir/src: the call check is skipped"
else
	calls >"$tmp/calls"
	cycles "call cycle" <"$tmp/calls" >"$tmp/broken"
	if [ -s "$tmp/broken" ]; then
		fail "source files that call each other:"
		cat "$tmp/broken" >&2
	fi
	echo "src/trace/text src/trace/reader" >>"$tmp/calls"
	cycles "call cycle" <"$tmp/calls" | grep -q "src/trace/reader and src/trace/text" ||
		fail "the call check missed a planted circle between reader.c and text.c"
	echo "$(objects | wc -l) object files checked for call cycles"
fi
finish
