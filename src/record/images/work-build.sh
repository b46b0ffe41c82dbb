#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# work-build.sh - guest workload for a recorded trace: build C programs
# (compiler, headers and libraries come in from disk; the compiler's memory
# is freed and reused between runs), then delete the results.
# Installed as /anonsim-work by mkimage-debian.sh --work; the sources it
# builds are those given with --add (they land in /root).
set -eu
cd /root
echo "anonsim-phase work-start"
for round in 1 2 3; do
	for src in *.c; do
		if grep -q '^int main' "$src"; then
			gcc -O2 -Wall -o "/tmp/${src%.c}.$round" "$src"
		else	# a library
			gcc -O2 -Wall -fPIC -shared -o "/tmp/${src%.c}.$round" "$src" -ldl
		fi
	done
	rm -f /tmp/*."$round"
	echo "anonsim-phase build-$round"
done
