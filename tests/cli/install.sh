#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# install.sh - "make install" into a scratch DESTDIR gives a tool that runs
# from any directory: anonsim reproduce finds the installed config, profile
# and traces (ANONSIM_DATADIR stands for the compiled-in pkgdatadir, which
# DESTDIR moves), every trace of the source tree is installed and found by
# name, anonsim-plot draws from the installed scripts, the documents the
# README links to are installed beside it, and without data the error
# names the place looked at and -c.
. "$top_srcdir/tests/lib.sh"
: "${MAKE:?run through make check}" "${bindir:?}" "${pkgdatadir:?}" "${docdir:?}" "${mandir:?}" \
	"${bashcompletiondir:?}"
dest=$tmp/dest
src=$(cd "$top_srcdir" && pwd) || exit 1

# the build tree's make, apart from the jobs of the make running the tests
if ! (cd "$top_builddir" && MAKEFLAGS= MFLAGS= $MAKE install DESTDIR="$dest") \
	>"$tmp/install.log" 2>&1; then
	fail "make install DESTDIR=$dest failed: $(tail -n 5 "$tmp/install.log")"
	finish
fi
for f in "$bindir/anonsim" "$bindir/anonsim-plot"; do
	[ -x "$dest$f" ] || fail "$f not installed"
done
for f in traces/reproduce.conf traces/woody-2004.profile \
	plots/timeline.gp plots/density.gp plots/footprint.gp; do
	[ -s "$dest$pkgdatadir/$f" ] || fail "$pkgdatadir/$f not installed"
done
for f in "$src"/doc/schema/*.schema.json; do
	[ -s "$dest$pkgdatadir/schema/${f##*/}" ] || fail "$pkgdatadir/schema/${f##*/} not installed"
done
for f in README.md COPYING traces/FORMAT.md traces/README.md \
	plots/timeline.png plots/density.png plots/footprint.png; do
	[ -s "$dest$docdir/$f" ] || fail "$docdir/$f not installed"
done
[ -s "$dest$mandir/man1/anonsim.1" ] || fail "$mandir/man1/anonsim.1 not installed"
[ -s "$dest$bashcompletiondir/anonsim" ] || fail "$bashcompletiondir/anonsim not installed"

# bash-completion loads it by the command's name from a data directory
# (XDG_DATA_DIRS) when its directory is the default one under it
loader=/usr/share/bash-completion/bash_completion
case $bashcompletiondir in
*/bash-completion/completions)
	if [ -r "$loader" ] && command -v bash >/dev/null 2>&1; then
		expect_status 0 env XDG_DATA_DIRS="$dest${bashcompletiondir%/bash-completion/completions}" \
			bash --norc --noprofile -c ". $loader; __load_completion anonsim; complete -p anonsim"
		[ "$out" = "complete -F _anonsim anonsim" ] ||
			fail "bash-completion did not load the installed completion: $out"
	else
		echo "no bash-completion ($loader): its loading not tried"
	fi ;;
esac

anonsim=$dest$bindir/anonsim
data=$dest$pkgdatadir
mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere" || exit 1

# the reproduction from the installed data, in a directory that has none
expect_status 0 env ANONSIM_DATADIR="$data" "$anonsim" reproduce --published-only
expect_match "$out" "profile $data/traces/woody-2004.profile, config $data/traces/reproduce.conf"
[ "$(printf '%s\n' "$out" | grep -c ' ok$')" -eq 3 ] ||
	fail "expected read-copy, devanon and punch ok in: $out"
# every trace the installed config names is installed and valid
traces=$(sed -n 's/^trace //p' "$data/traces/reproduce.conf")
[ -n "$traces" ] || fail "the installed config names no trace"
for t in $traces; do
	expect_status 0 "$anonsim" trace check "$data/traces/$t"
done
# the installed traces are those the source tree ships, each by its name
(cd "$src/traces" && ls ./*.trace.gz calibration/*.trace.gz) |
	sed -e 's|^\./||' -e 's|^calibration/||' -e 's|\.trace\.gz$||' | sort >shipped
expect_status 0 env ANONSIM_DATADIR="$data" "$anonsim" trace list --csv
printf '%s\n' "$out" | awk -F, 'NR > 1 && $2 ~ /\.trace\.gz$/ { print $1 }' | sort >listed
[ "$(wc -l <shipped)" -eq 18 ] || fail "the source tree has $(wc -l <shipped) traces, not 18"
diff shipped listed >&2 || fail "trace list of the installed data: not the shipped traces"
expect_status 0 env ANONSIM_DATADIR="$data" "$anonsim" trace check tmpfs-churn
[ "$out" = "$data/traces/calibration/tmpfs-churn.trace.gz: ok, 1336 events" ] ||
	fail "trace check tmpfs-churn: $out"

# without ANONSIM_DATADIR the default is configure's pkgdatadir
expect_status 0 env ANONSIM_DATADIR= "$anonsim" reproduce --help
expect_match "$out" "default: $pkgdatadir/traces/reproduce.conf,"
# no data there: the error names the file looked for and -c
expect_status 2 env ANONSIM_DATADIR="$tmp/nowhere" "$anonsim" reproduce
expect_match "$err" "no config at $tmp/nowhere/traces/reproduce.conf .*-c FILE"
# -c still overrides: a config of one's own (sweeps of one instance, quick,
# so that the densities miss theirs: exit status 4)
sed -e '/^trace /d' -e 's/^max-instances .*/max-instances 1/' \
	"$data/traces/reproduce.conf" >reproduce.conf
cp "$data/traces/woody-2004.profile" "$data/traces/debian-boot-64M.trace.gz" .
expect_status 4 env ANONSIM_DATADIR="$tmp/nowhere" "$anonsim" reproduce --published-only \
	-c reproduce.conf
expect_match "$out" "profile woody-2004.profile, config reproduce.conf"

# the plots from the installed scripts and data (the footprint of the 2004
# boot alone: -p), into a directory of the user's
GNUPLOT=${GNUPLOT:-}
[ -n "$GNUPLOT" ] || GNUPLOT=$(command -v gnuplot) || GNUPLOT=
if [ -n "$GNUPLOT" ]; then
	expect_status 0 env ANONSIM="$anonsim" ANONSIM_DATADIR="$data" GNUPLOT="$GNUPLOT" \
		"$dest$bindir/anonsim-plot" -p -o mine
	for p in timeline density footprint readahead; do
		[ -s "mine/$p.png" ] && [ -s "mine/$p.svg" ] && [ -s "mine/data/$p.csv" ] ||
			fail "anonsim-plot: mine/$p.png, .svg or data/$p.csv missing"
	done
	[ "$(wc -l <mine/data/footprint.csv)" -eq 4 ] ||
		fail "anonsim-plot -p: expected the header and 3 rows in mine/data/footprint.csv"
else
	echo "gnuplot not found: anonsim-plot not run"
fi
expect_status 2 env ANONSIM_DATADIR="$tmp/nowhere" "$dest$bindir/anonsim-plot"
expect_match "$err" "anonsim-plot: cannot read $tmp/nowhere/traces/reproduce.conf: name it with -c"
finish
