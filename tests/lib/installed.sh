#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# installed.sh - "make install" into a scratch DESTDIR installs libanonsim
# shared and static, its header under include/anonsim/, anonsim.pc and the
# example; the shared library exports the header's functions alone; the
# example, compiled with "pkg-config --cflags --libs anonsim" against that
# prefix and linked either way, prints the figures "anonsim replay --csv
# --pages" and "anonsim density --csv" print for the same trace and host;
# "make uninstall" leaves no file behind.
. "$top_srcdir/tests/lib.sh"
: "${MAKE:?run through make check}" "${libdir:?}" "${includedir:?}" "${docdir:?}" "${VERSION:?}"
# a signal ends the test through its EXIT trap, which removes $tmp
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
srcdir=$(cd "$top_srcdir" && pwd) && builddir=$(cd "$top_builddir" && pwd) || exit 1
command -v "$PKG_CONFIG" >/dev/null 2>&1 || { echo "no pkg-config: skipped"; exit 77; }
dest=$tmp/dest

if ! (cd "$builddir" && MAKEFLAGS= MFLAGS= $MAKE install DESTDIR="$dest") \
	>"$tmp/install.log" 2>&1; then
	fail "make install DESTDIR=$dest failed: $(tail -n 5 "$tmp/install.log")"
	finish
fi
for f in "$libdir/libanonsim.a" "$libdir/libanonsim.so.0" "$includedir/anonsim/anonsim.h" \
	"$libdir/pkgconfig/anonsim.pc" "$docdir/examples/host_memory.c"; do
	[ -s "$dest$f" ] || fail "$f not installed"
done

# the functions the shared library exports: those the header declares
if command -v nm >/dev/null 2>&1; then
	sed -n 's/^[a-z].*[ *]\(anonsim_[a-z_]*\)(.*/\1/p' "$dest$includedir/anonsim/anonsim.h" |
		LC_ALL=C sort >"$tmp/declared"
	[ "$(wc -l <"$tmp/declared")" -eq 15 ] ||
		fail "expected 15 functions declared in anonsim.h: $(cat "$tmp/declared")"
	nm -D --defined-only "$dest$libdir/libanonsim.so.0" | awk '$2 == "T" { print $3 }' |
		LC_ALL=C sort >"$tmp/exported"
	cmp -s "$tmp/declared" "$tmp/exported" ||
		fail "libanonsim.so exports other than anonsim.h declares: $(diff "$tmp/declared" "$tmp/exported")"
fi

# pkg-config reads the installed anonsim.pc; the sysroot stands for DESTDIR
export PKG_CONFIG_PATH="$dest$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
expect_status 0 "$PKG_CONFIG" --modversion anonsim
[ "$out" = "$VERSION" ] || fail "pkg-config --modversion anonsim: '$out', expected $VERSION"
# (and zlib's -I, Requires.private)
expect_status 0 "$PKG_CONFIG" --cflags --libs anonsim
expect_match "$out" "^-I$dest$includedir .*-L$dest$libdir -lanonsim *\$"
cflags=$("$PKG_CONFIG" --cflags anonsim)
libs=$("$PKG_CONFIG" --libs anonsim)
# static: the archive in place of -lanonsim, what it needs from Libs.private
static_libs=$("$PKG_CONFIG" --static --libs anonsim | sed "s|-lanonsim|$dest$libdir/libanonsim.a|")

mkdir "$tmp/app" && cd "$tmp/app" || exit 1
cp "$dest$docdir/examples/host_memory.c" .
trace=$srcdir/traces/debian-boot-64M.trace.gz
# shellcheck disable=SC2086
$CC ${SAN_CFLAGS:-} -Wall -Wextra -Werror -o host_memory host_memory.c $cflags $libs \
	>cc.log 2>&1 || fail "the example does not build against the shared library: $(cat cc.log)"
# shellcheck disable=SC2086
$CC ${SAN_CFLAGS:-} -Wall -Wextra -Werror -o host_memory_static host_memory.c $cflags \
	$static_libs >cc.log 2>&1 ||
	fail "the example does not build against the static library: $(cat cc.log)"
[ -x host_memory ] && [ -x host_memory_static ] || finish

# the figures of debian-boot-64M on 200 MiB with 2.4 reclaim, as
# "anonsim replay --csv --pages -m 200M --policy 2.4" and "anonsim density
# --csv" print them
cat >expected <<END
libanonsim $VERSION
strategy,final_tmpfs_pages,final_cache_pages,final_total_pages,peak_total_pages,swap_out_pages
read-copy,7472,12711,20183,20183,0
devanon/fixed,5173,12711,17912,17912,0
devanon/posted,5173,12711,17912,17912,0
punch,5171,12711,17882,17882,0
free-hint,7178,12711,19889,20064,0
odirect,7472,0,7472,7472,0
dax,5979,27648,33627,33627,0
density read-copy 5
density devanon/fixed 7
density devanon/posted 7
density punch 7
density free-hint 5
density odirect 6
density dax 3
END
expect_status 0 env LD_LIBRARY_PATH="$dest$libdir" ./host_memory "$trace" 200 2.4
printf '%s\n' "$out" >shared.out
cmp -s expected shared.out || fail "the example linked shared printed: $(diff expected shared.out)"
if command -v ldd >/dev/null 2>&1; then
	LD_LIBRARY_PATH="$dest$libdir" ldd ./host_memory | grep -q "libanonsim.so.0 => $dest$libdir/" ||
		fail "the example did not load the installed libanonsim.so.0: $(ldd ./host_memory)"
	ldd ./host_memory_static | grep -q libanonsim && fail "host_memory_static loads libanonsim"
fi
expect_status 0 ./host_memory_static "$trace" 200 2.4
printf '%s\n' "$out" >static.out
cmp -s expected static.out || fail "the example linked static printed: $(diff expected static.out)"

# the same figures from the command, column by column
"$ANONSIM" replay -q --csv --pages -m 200M --policy 2.4 "$trace" >replay.csv ||
	fail "anonsim replay failed"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
		print "strategy,final_tmpfs_pages,final_cache_pages,final_total_pages,peak_total_pages,swap_out_pages"
		next }
	{ print $1 "," $col["final_tmpfs_pages"] "," $col["final_cache_pages"] "," \
		$col["final_total_pages"] "," $col["peak_total_pages"] "," $col["swap_out_pages"] }' \
	replay.csv >replay.cut
sed -n '2,9p' expected >expected.replay
cmp -s expected.replay replay.cut || fail "anonsim replay printed otherwise: $(diff expected.replay replay.cut)"
"$ANONSIM" density -q --csv -m 200M --policy 2.4 "$trace" >density.csv ||
	fail "anonsim density failed"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	!seen[$1]++ { print "density " $1 " " $col["density"] }' density.csv >density.cut
sed -n '10,$p' expected >expected.density
cmp -s expected.density density.cut || fail "anonsim density printed otherwise: $(diff expected.density density.cut)"

# a bad trace: the library's message, the example's status 2
expect_status 2 env LD_LIBRARY_PATH="$dest$libdir" ./host_memory "$tmp/none.trace" 200 2.4
[ "$err" = "./host_memory: $tmp/none.trace: No such file or directory" ] ||
	fail "unexpected message for a missing trace: $err"

cd "$tmp" || exit 1
if ! (cd "$builddir" && MAKEFLAGS= MFLAGS= $MAKE uninstall DESTDIR="$dest") \
	>"$tmp/uninstall.log" 2>&1; then
	fail "make uninstall DESTDIR=$dest failed: $(tail -n 5 "$tmp/uninstall.log")"
fi
left=$(find "$dest" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
finish
