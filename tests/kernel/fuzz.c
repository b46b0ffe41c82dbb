/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tests/kernel/fuzz.c - libFuzzer target: src/kernel's block tables and map
 * counts driven by arbitrary operation sequences (swap out and in, lookup,
 * mmap, munmap, touch, punch, truncate, around every boundary of the
 * table), each checked against a flat-array model (core_check.h).  The
 * first byte picks the geometry (bit 0) and whether table-page allocations
 * may fail (bit 1: the following bytes then say which); any disagreement
 * is a crash.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/core_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	unsigned long enomem = 0;

	if (!size)
		return 0;
	if (core_check_differential_data(data[0] & 1 ? &shmem_geom_i386 : &shmem_geom_x86_64,
					 data + 1, size - 1, data[0] & 2 ? &enomem : NULL,
					 err, sizeof(err))) {
		fprintf(stderr, "tests/kernel/fuzz: %s\n", err);
		abort();
	}
	return 0;
}
