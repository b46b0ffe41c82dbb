/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim.c - a libanonsim handle: made, freed, its traces and host set.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sim.h"
#include "trace/trace.h"
#include "util/names.h"

const char *anonsim_version(void)
{
	return PACKAGE_VERSION;
}

int sim_fail(anonsim_sim *sim, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sim->err, sizeof(sim->err), fmt, ap);
	va_end(ap);
	return status;
}

anonsim_sim *anonsim_new(void)
{
	/* calloc, not xcalloc: a library returns NULL rather than end the program */
	anonsim_sim *sim = calloc(1, sizeof(*sim));

	if (sim)
		replay_opts_init(&sim->o);
	return sim;
}

void anonsim_free(anonsim_sim *sim)
{
	unsigned i;

	if (!sim)
		return;
	for (i = 0; i < sim->npaths; i++)
		free(sim->paths[i]);
	free(sim->paths);
	free(sim);
}

const char *anonsim_error(const anonsim_sim *sim)
{
	return sim->err;
}

int anonsim_open_trace(anonsim_sim *sim, const char *path)
{
	struct trace_reader *r;
	char **paths, *copy;

	sim->err[0] = '\0';
	if (!*path || !strcmp(path, "-"))
		return sim_fail(sim, ANONSIM_EINVAL,
				"anonsim_open_trace: '%s': expected the name of a trace file", path);
	r = trace_open(path, sim->err, sizeof(sim->err));
	if (!r)
		return ANONSIM_EDATA;
	trace_close(r);
	paths = realloc(sim->paths, (sim->npaths + 1) * sizeof(*paths));
	if (!paths)
		return sim_fail(sim, ANONSIM_ESYSTEM, "%s: out of memory", path);
	sim->paths = paths;
	copy = strdup(path);
	if (!copy)
		return sim_fail(sim, ANONSIM_ESYSTEM, "%s: out of memory", path);
	sim->paths[sim->npaths++] = copy;
	return ANONSIM_OK;
}

int anonsim_set_host_mem(anonsim_sim *sim, uint64_t bytes)
{
	sim->err[0] = '\0';
	if (bytes && bytes < REPLAY_HOST_MEM_MIN)
		return sim_fail(sim, ANONSIM_EINVAL,
				"anonsim_set_host_mem: %llu bytes: expected 0 (unlimited) or at least %d",
				(unsigned long long)bytes, REPLAY_HOST_MEM_MIN);
	sim->o.host_mem = bytes;
	return ANONSIM_OK;
}

int anonsim_set_swap(anonsim_sim *sim, uint64_t bytes)
{
	sim->err[0] = '\0';
	if (bytes > REPLAY_SWAP_MAX)
		return sim_fail(sim, ANONSIM_EINVAL,
				"anonsim_set_swap: %llu bytes: expected at most %llu (1 TiB)",
				(unsigned long long)bytes, (unsigned long long)REPLAY_SWAP_MAX);
	sim->o.swap = bytes;
	return ANONSIM_OK;
}

int anonsim_set_policy(anonsim_sim *sim, const char *name)
{
	char want[NAMES_LIST_MAX];

	sim->err[0] = '\0';
	if (reclaim_policy_find(name, &sim->o.policy))
		return sim_fail(sim, ANONSIM_EINVAL, "anonsim_set_policy: '%s': expected %s", name,
				names_or(reclaim_policy_names, want, sizeof(want)));
	return ANONSIM_OK;
}

int anonsim_set_instances(anonsim_sim *sim, unsigned n)
{
	sim->err[0] = '\0';
	if (!n || n > REPLAY_COPIES_MAX)
		return sim_fail(sim, ANONSIM_EINVAL,
				"anonsim_set_instances: %u: expected a number from 1 to %d",
				n, REPLAY_COPIES_MAX);
	sim->o.copies = n;
	return ANONSIM_OK;
}

const char *anonsim_strategy_name(unsigned i)
{
	unsigned n;

	for (n = 0; strategies[n]; n++)
		if (n == i)
			return strategies[n]->name;
	return NULL;
}
