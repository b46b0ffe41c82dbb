#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# examples.sh - the examples of README.md and doc/anonsim.1 run as
# written: anonsim is installed ("make install" into a scratch DESTDIR,
# removed at the end and on INT, TERM and HUP), and every example marked
# runnable runs in an empty directory of its own with the installed
# bindir first on PATH; any command that fails fails the test, as does an
# example without a marker.  ANONSIM_DATADIR and ANONSIM stand for the
# compiled-in pkgdatadir and bindir, which DESTDIR moves.
#
# The markers.  Each example is a code block: in README.md an indented
# block, whose nearest line before it (blank lines aside) is
#     <!-- example: KINDS -->
# and in doc/anonsim.1 a .nf ... .fi block right after the comment line
#     .\" example: KINDS
# KINDS is "runnable", or one or more of those left out and why:
# "needs-root" (packages, cgroups, swap), "slow" (minutes: builds, the
# test suite, long runs), "needs-uml" (a UML guest running),
# "needs-source" (a script of the source tree, not installed); "text" marks
# a block that is no command (a layout, a diagram).  In a block, the lines
# that start with "$ " are the commands (with the lines a trailing
# backslash continues) and the rest their output; a block without such
# lines is all commands.  A runnable example that needs a program missing
# here (jq, GNU parallel, gnuplot for anonsim-plot, anonsim live off
# Linux) is reported and left out, and the test then exits 77 unless
# something failed.
. "${top_srcdir:-.}/tests/lib.sh"
: "${MAKE:?run through make check}" "${bindir:?}" "${pkgdatadir:?}"
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
src=$(cd "$top_srcdir" && pwd) || exit 1
dest=$tmp/dest

if ! (cd "$top_builddir" && MAKEFLAGS= MFLAGS= $MAKE install DESTDIR="$dest") \
	>"$tmp/install.log" 2>&1; then
	fail "make install DESTDIR=$dest failed: $(tail -n 5 "$tmp/install.log")"
	finish
fi

# blocks FILE: each example of README.md or anonsim.1 into $tmp/blocks:
# NAME.LINE.txt its text (roff escapes undone), and a line "FILE LINE KINDS"
# in $tmp/blocks/index (KINDS "-" without a marker); "FILE LINE marker"
# for a marker no block follows
mkdir "$tmp/blocks"
blocks() {
	case $1 in
	*.1) awk -v f="$1" -v base="${1##*/}" -v dir="$tmp/blocks" '
		function undo(s) { gsub(/\\-/, "-", s); gsub(/\\e/, "\\", s); return s }
		inb && /^\.(fi|EE)$/ { inb = 0; next }
		inb && /^\./ { next }
		inb { print undo($0) > (dir "/" base "." start ".txt"); next }
		/^\.(nf|EX)$/ { inb = 1; start = NR; print f, NR, (kinds == "" ? "-" : kinds); kinds = ""; next }
		kinds != "" { print f, mline, "marker" ; kinds = "" }
		/^\.\\" example: / { kinds = $0; sub(/^\.\\" example: */, "", kinds); mline = NR }
		END { if (kinds != "") print f, mline, "marker" }' "$src/$1" ;;
	*) awk -v f="$1" -v base="${1##*/}" -v dir="$tmp/blocks" '
		inb && /^$/ { blank++; next }
		inb && /^    / { while (blank) { print "" > (dir "/" base "." start ".txt"); blank-- }
			print substr($0, 5) > (dir "/" base "." start ".txt"); next }
		inb { inb = 0 }
		/^    / && prev == "" { inb = 1; blank = 0; start = NR; print f, NR, (kinds == "" ? "-" : kinds)
			kinds = ""; print substr($0, 5) > (dir "/" base "." start ".txt"); next }
		/^$/ { prev = ""; next }
		{ prev = $0 }
		kinds != "" { print f, mline, "marker"; kinds = "" }
		/^<!-- example: .* -->$/ { kinds = $0; sub(/^<!-- example: */, "", kinds)
			sub(/ *-->$/, "", kinds); mline = NR }
		END { if (kinds != "") print f, mline, "marker" }' "$src/$1" ;;
	esac
}
{ blocks README.md; blocks doc/anonsim.1; } >"$tmp/blocks/index"

# commands BLOCK: its commands, a line each (continuations joined)
commands() {
	awk 'FNR == 1 { dollar = 0 } /^\$ / { dollar = 1 } { line[NR] = $0 } END {
		for (i = 1; i <= NR; i++) {
			l = line[i]
			if (dollar && !cont && l !~ /^\$ /) continue
			if (dollar && !cont) l = substr(l, 3)
			cont = l ~ /\\$/
			if (cont) { sub(/\\$/, "", l); printf "%s ", l } else print l
		} }' "$1"
}

# missing CMDS: the programs the commands start that are not here
live=false
"$dest$bindir/anonsim" --help | grep -q '^  live ' && live=true
GNUPLOT=${GNUPLOT:-}
[ -n "$GNUPLOT" ] || GNUPLOT=$(command -v gnuplot) || GNUPLOT=
missing() {
	sed -e "s/'[^']*'//g" -e 's/[[:space:]]#.*$//' "$1" | tr '|;&' '\n\n\n' | awk '{ sub(/^[ \t]+/, ""); while ($1 ~ /=/) sub(/^[^ ]+ +/, "")
		if ($1 != "") print $1, $2 }' | sort -u | while read -r prog arg; do
		case $prog in
		anonsim) [ "$arg" = live ] && ! $live && echo "anonsim live (Linux only)" ;;
		anonsim-plot) [ -n "$GNUPLOT" ] || echo gnuplot ;;
		*) command -v "$prog" >/dev/null 2>&1 || echo "$prog" ;;
		esac
	done | sort -u | tr '\n' ' '
}

run_shell=sh
command -v bash >/dev/null 2>&1 && run_shell=bash
mkdir "$tmp/home"
ran=0 left=0 skipped=0
while read -r file line kinds; do
	where=$file:$line
	if [ "$kinds" = marker ]; then
		fail "$where: an example marker with no example block after it"
		continue
	fi
	case " $kinds " in
	" - ") fail "$where: an example without a marker (see tests/cli/examples.sh)"; continue ;;
	" runnable ") ;;
	*" runnable "*) fail "$where: runnable and left out at once: $kinds"; continue ;;
	*)
		for k in $kinds; do
			case $k in
			needs-root|slow|needs-uml|needs-source|text) ;;
			*) fail "$where: unknown example kind '$k'" ;;
			esac
		done
		left=$((left + 1))
		continue ;;
	esac
	commands "$tmp/blocks/${file##*/}.$line.txt" >"$tmp/cmds"
	[ -s "$tmp/cmds" ] || { fail "$where: a runnable example with no command"; continue; }
	need=$(missing "$tmp/cmds")
	if [ -n "$need" ]; then
		echo "$where: left out, needs ${need% }"
		skipped=$((skipped + 1))
		continue
	fi
	# an empty directory of its own, the installed tool first on PATH
	run=$tmp/run/$(echo "$where" | tr '/:.' '___')
	mkdir -p "$run"
	{
		echo 'set -e'
		[ "$run_shell" = bash ] && echo 'set -o pipefail'
		cat "$tmp/cmds"
	} >"$tmp/script"
	if ! (cd "$run" && HOME=$tmp/home PATH="$dest$bindir:$PATH" ANONSIM="$dest$bindir/anonsim" \
		ANONSIM_DATADIR="$dest$pkgdatadir" GNUPLOT="$GNUPLOT" \
		$run_shell "$tmp/script" </dev/null >"$tmp/out" 2>"$tmp/err"); then
		fail "$where: the example failed: $(tail -n 5 "$tmp/err")
$(cat "$tmp/cmds")"
	fi
	ran=$((ran + 1))
done <"$tmp/blocks/index"

# the markers were read: both files have examples run
for file in README.md doc/anonsim.1; do
	grep -q "^$file [0-9]* runnable\$" "$tmp/blocks/index" || fail "$file: no runnable example found"
done
echo "examples: $ran run, $left left out by their markers, $skipped for want of a program"
[ "$failures" -eq 0 ] && [ "$skipped" -gt 0 ] && exit 77
finish
