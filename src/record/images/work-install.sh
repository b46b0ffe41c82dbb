#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# work-install.sh - guest workload for a recorded trace: a package
# install.  dpkg -i installs the .deb files in /root (python3 and the
# packages it needs that the image lacks, which mkimage-works.sh adds: the
# guest has no network), running their maintainer scripts (python3.11
# byte-compiles its standard library), then python3 runs once.
# Installed by mkimage-debian.sh as /anonsim-work (--work) or as a choice
# of the kernel command-line word anonsim.work=install (--work-choice).
set -eu
export DEBIAN_FRONTEND=noninteractive
echo "anonsim-phase work-start"
cd /root
# In three steps, as apt would: what python3-minimal and python3
# pre-depend on must be configured before they are unpacked.
dpkg -i libexpat1_*.deb libpython3.11-minimal_*.deb python3.11-minimal_*.deb >/dev/null
echo "anonsim-phase python3.11-minimal"
dpkg -i python3-minimal_*.deb >/dev/null
echo "anonsim-phase python3-minimal"
dpkg -i media-types_*.deb readline-common_*.deb libreadline8_*.deb \
	libsqlite3-0_*.deb libpython3.11-stdlib_*.deb libpython3-stdlib_*.deb \
	python3.11_*.deb python3_*.deb >/dev/null
echo "anonsim-phase installed"
python3 -c 'import json, sqlite3; print(json.dumps(sqlite3.sqlite_version))' >/dev/null
echo "anonsim-phase used"
