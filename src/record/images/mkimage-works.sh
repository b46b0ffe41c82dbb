#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mkimage-works.sh - build the one Debian image of the workload traces
# (traces/README.md): mkimage-debian.sh's image with build-essential, the
# five workloads as choices of the kernel command-line word
# anonsim.work=NAME, and what they need in /root.
set -eu

usage() {
	cat <<USAGE
usage: mkimage-works.sh [--build DIR] [--mirror URL] IMAGE

Prepares what the workloads need and runs mkimage-debian.sh --include
build-essential,zlib1g-dev with --work-choice for work-files.sh,
work-install.sh, work-compile.sh, work-reread.sh and work-tmpfs.sh (the
kernel command-line word anonsim.work=files, install, compile, reread or
tmpfs chooses one at boot), adding to /root:
  - the .deb files of python3 and of the packages it needs that the image
    lacks (apt-get download, from the archive apt uses): work-install.sh
  - anonsim-src.tar.gz: the C sources of this tree's model (src/util,
    src/trace, src/model, src/kernel, src/strategy, include), the build's
    config.h and a Makefile: work-compile.sh
  - data.bin: 32 MiB of random data: work-reread.sh
Needs root and the network (debootstrap, apt-get download).
  --build DIR     the configured build tree: its config.h and
                  src/record/kpage-sampler (default: this source tree)
  --mirror URL    Debian mirror, passed to mkimage-debian.sh
  -h, --help      this text
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
build=$top mirror=
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--mirror) mirror="--mirror $2"; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "mkimage-works.sh: unknown option $1" >&2; usage >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 1; }
img=$1
[ -f "$build/config.h" ] || { echo "mkimage-works.sh: $build/config.h: configure the tree first" >&2; exit 1; }
[ -x "$build/src/record/kpage-sampler" ] ||
	{ echo "mkimage-works.sh: $build/src/record/kpage-sampler: build the tree first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/anonsim-works.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM HUP

# python3 of bookworm and what it needs beyond minbase and build-essential.
mkdir "$tmp/debs"
(cd "$tmp/debs" && apt-get download -q python3 python3-minimal python3.11 \
	python3.11-minimal libpython3-stdlib libpython3.11-stdlib \
	libpython3.11-minimal libexpat1 libreadline8 readline-common \
	libsqlite3-0 media-types)

# The model's C sources with a Makefile that builds them into a library.
src=$tmp/anonsim-src
mkdir "$src"
(cd "$top" && find include src/util src/trace src/model src/strategy \
	src/kernel/user -name '*.[ch]' && ls src/kernel/*.[ch]) |
	while read -r f; do install -D -m 644 "$top/$f" "$src/$f"; done
cp "$build/config.h" "$src/config.h"
cat >"$src/Makefile" <<'MAKEFILE'
# Builds the model of anonsim into a static library (work-compile.sh).
CC = gcc
CFLAGS = -O2 -Wall
CPPFLAGS = -I. -Isrc -Iinclude
SRCS = $(sort $(wildcard src/util/*.c src/trace/*.c src/model/*.c \
	src/kernel/*.c src/kernel/user/*.c src/strategy/*.c))
OBJS = $(SRCS:.c=.o)

libanonsim-model.a: $(OBJS)
	ar rcs $@ $(OBJS)

clean:
	rm -f $(OBJS) libanonsim-model.a
MAKEFILE
tar -C "$tmp" --sort=name --owner=0 --group=0 --mtime=@0 -czf "$tmp/anonsim-src.tar.gz" anonsim-src

head -c 32M /dev/urandom >"$tmp/data.bin"

set --
for w in files install compile reread tmpfs; do
	set -- "$@" --work-choice "$here/work-$w.sh"
done
for f in "$tmp"/debs/*.deb "$tmp/anonsim-src.tar.gz" "$tmp/data.bin"; do
	set -- "$@" --add "$f"
done
# shellcheck disable=SC2086 # $mirror is empty or two words
"$here/mkimage-debian.sh" $mirror --include build-essential,zlib1g-dev \
	--sampler "$build/src/record/kpage-sampler" "$@" "$img"
