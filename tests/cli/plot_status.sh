#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# plot_status.sh - anonsim-plot exits with anonsim's statuses: 1 for a
# usage error, 2 for an input it cannot read (named), 5 for an output it
# cannot make or a gnuplot missing or failing, and anonsim's own status
# when anonsim fails; each with its exact message.  A stand-in anonsim
# (a script that fails as told) keeps the runs short.
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "$top_srcdir" && pwd) || exit 1
plot=$(cd "$top_builddir" && pwd)/plots/anonsim-plot || exit 1
ANONSIM_DATADIR=$src
export ANONSIM_DATADIR
mkdir "$tmp/w" && cd "$tmp/w" || exit 1

# fake-anonsim: exits $FAIL_STATUS for the command $FAIL_ON, else 0;
# sweep writes a sweep's header and a row to its -o
cat >fake-anonsim <<'END'
#!/bin/sh
[ "$1" = "${FAIL_ON:-none}" ] && { echo "anonsim $1: failed as told" >&2; exit "$FAIL_STATUS"; }
[ "$1" = reproduce ] && echo "  host: 576 MiB, swap 1024 MiB, 2.4 reclaim, 7.0 MiB overhead per UML, private image"
if [ "$1" = sweep ]; then
	while [ "$1" != -o ]; do shift; done
	printf '%s\n' combo,trace,host_mem_bytes,swap_bytes,policy,readahead_kb,strategy,instances,final_tmpfs_pages,final_cache_pages,final_total_pages \
		0,boot,0,1073741824,modern,0,read-copy,1,256,512,768 >"$2"
fi
exit 0
END
chmod +x fake-anonsim
fake=$tmp/w/fake-anonsim

expect_status 1 "$plot" --bogus
[ "$err" = "anonsim-plot: unknown argument '--bogus' (see anonsim-plot --help)" ] || fail "--bogus: $err"
expect_status 1 "$plot" -o
[ "$err" = "anonsim-plot: -o needs an argument (see anonsim-plot --help)" ] || fail "-o: $err"
expect_status 2 "$plot" -c nowhere.conf
[ "$err" = "anonsim-plot: cannot read nowhere.conf: name it with -c or -t, or set ANONSIM_DATADIR" ] ||
	fail "-c nowhere.conf: $err"
expect_status 2 "$plot" -t nowhere.trace
[ "$err" = "anonsim-plot: cannot read nowhere.trace: name it with -c or -t, or set ANONSIM_DATADIR" ] ||
	fail "-t nowhere.trace: $err"
mkdir -p data/traces
cp "$src/traces/reproduce.conf" "$src/traces/debian-boot-64M.trace.gz" data/traces/
expect_status 2 env ANONSIM_DATADIR="$tmp/w/data" "$plot"
[ "$err" = "anonsim-plot: cannot read $tmp/w/data/plots/timeline.gp: set ANONSIM_DATADIR" ] ||
	fail "no gnuplot scripts: $err"
expect_status 5 env GNUPLOT="$tmp/no-gnuplot" "$plot"
[ "$err" = "anonsim-plot: gnuplot not found ($tmp/no-gnuplot): install it or set GNUPLOT" ] ||
	fail "no gnuplot: $err"
: >file
expect_status 5 env GNUPLOT=true ANONSIM="$fake" "$plot" -o file
expect_match "$err" "^anonsim-plot: cannot create file/data\$"

# anonsim's own status, 4 from reproduce aside
for cmd in reproduce replay sweep trace; do
	for st in 2 3 5; do
		expect_status $st env GNUPLOT=true ANONSIM="$fake" FAIL_ON=$cmd FAIL_STATUS=$st "$plot" -o out
		case $cmd in
		trace) what="trace stat $src/traces/debian-boot-64M.trace.gz" ;;
		replay) what="replay $src/traces/debian-boot-64M.trace.gz" ;;
		sweep) what="sweep --readahead 0,128,512,2048,8192 $src/traces/debian-boot-64M.trace.gz" ;;
		*) what=$cmd ;;
		esac
		[ "$err" = "anonsim $cmd: failed as told
anonsim-plot: anonsim $what failed (exit status $st)" ] || fail "$cmd exiting $st: $err"
	done
done
expect_status 0 env GNUPLOT=true ANONSIM="$fake" FAIL_ON=reproduce FAIL_STATUS=4 "$plot" -o out
expect_match "$out" '^anonsim-plot: out/timeline, out/density, out/footprint, out/readahead \(\.png, \.svg\)$'
# gnuplot failing: an output not drawn
expect_status 5 env GNUPLOT=false ANONSIM="$fake" "$plot" -o out
[ "$err" = "anonsim-plot: gnuplot $src/plots/timeline.gp failed" ] || fail "gnuplot failing: $err"
finish
