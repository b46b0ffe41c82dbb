#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# work-compile.sh - guest workload for a recorded trace: a compile of a
# multi-file project.  Unpacks /root/anonsim-src.tar.gz (the C sources of
# this project's model, 43 translation units, with a Makefile; added by
# mkimage-works.sh), builds them with make -j1 and gcc -O2 into a static
# library, then deletes the tree.
# Installed by mkimage-debian.sh as /anonsim-work (--work) or as a choice
# of the kernel command-line word anonsim.work=compile (--work-choice).
set -eu
dir=/root/compile
trap 'rm -rf "$dir"' EXIT INT TERM HUP
echo "anonsim-phase work-start"
mkdir -p "$dir"
tar -xzf /root/anonsim-src.tar.gz -C "$dir"
echo "anonsim-phase unpacked"
make -s -j1 -C "$dir/anonsim-src"
echo "anonsim-phase built"
rm -rf "$dir"
echo "anonsim-phase cleaned"
