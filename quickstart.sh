#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# quickstart.sh - all set-up on a fresh Debian machine, safe to rerun.
#
#   ./quickstart.sh run    install what is missing, build, run the main job
#   ./quickstart.sh test   install what is missing, build, run the test suite
#
# Packages are installed with apt-get as root, through sudo otherwise; without
# either the script lists the packages to install and stops.
set -eu

cd "$(dirname "$0")"

# What building and running need: the compiler, the autotools and libtool
# (libanonsim), zlib, and gnuplot for the plots.
RUN_PACKAGES="build-essential autoconf automake libtool pkg-config zlib1g-dev gnuplot-nox"
# What the tests add: Check for the unit tests, clang for the fuzzers,
# user-mode-linux and the image tools for the recording smoke test and the
# real density run (debootstrap for its Debian images), qemu-system-x86
# for the QEMU recorder's smoke test and the validation of real QEMU
# guests (their kernel is fetched with
# apt-get download), strace for the
# strace recorder's test, GNU parallel and jq
# for the sweep's job test, valgrind for make check-valgrind, gcovr for make
# coverage, the 6.1 kernel source and what building it needs for make
# check-kernel (/dev/anon in a UML guest), groff to render the man pages,
# bash-completion to load the installed completion as bash does, debhelper
# and autopkgtest for make deb and make deb-test (the Debian packages),
# python3-jsonschema to hold every --json to its schema.
TEST_PACKAGES="check clang libclang-rt-14-dev user-mode-linux qemu-system-x86 e2fsprogs busybox-static
debootstrap strace parallel jq valgrind gcovr linux-source-6.1 flex bison bc xz-utils groff-base
bash-completion debhelper autopkgtest python3-jsonschema perl"

missing_packages() {
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			printf '%s ' "$p"
	done
}

install_packages() {
	command -v dpkg-query >/dev/null 2>&1 || {
		echo "quickstart: not a Debian system; install the equivalents of: $PACKAGES" >&2
		return 0
	}
	missing=$(missing_packages)
	[ -n "$missing" ] || return 0
	# configure decides on what it finds: have it look again
	rm -f config.status
	if [ "$(id -u)" = 0 ]; then
		sudo=
	elif command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "quickstart: please install these Debian packages as root: $missing" >&2
		exit 1
	fi
	echo "quickstart: installing $missing"
	$sudo apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
}

build() {
	[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
	[ -f Makefile ] && [ -f config.status ] || ./configure
	make -j"$(nproc 2>/dev/null || echo 2)"
}

case "${1:-}" in
run)
	PACKAGES=$RUN_PACKAGES
	install_packages
	build
	./anonsim --version
	./anonsim selftest
	# the reproduction table, then the plots under plots/ drawn anew
	make plots
	;;
test)
	PACKAGES="$RUN_PACKAGES $TEST_PACKAGES"
	install_packages
	build
	make -j"$(nproc 2>/dev/null || echo 2)" check
	;;
*)
	echo "usage: $0 run|test" >&2
	exit 1
	;;
esac
