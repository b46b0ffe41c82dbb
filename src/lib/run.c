/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run.c - libanonsim's runs (replay, density) and the figures they leave.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lib/sim.h"
#include "model/density.h"
#include "util/util.h"

/* The runs @strategy names, into @runs; their count, 0 after a message. */
static unsigned sim_runs(anonsim_sim *sim, const char *fn, const char *strategy,
			 struct strategy_run *runs)
{
	char bad[64];
	bool twice = false;
	unsigned n;

	sim->err[0] = '\0';
	sim->nres = 0;
	n = strategy_list_check(strategy, bad, sizeof(bad), &twice) ? 0 :
		strategy_runs(strategy, "both", runs, SIM_MAX_RUNS);
	if (!n && twice)
		sim_fail(sim, ANONSIM_EINVAL, "%s: '%s': %s named twice", fn, strategy, bad);
	else if (!n)
		sim_fail(sim, ANONSIM_EINVAL, "%s: '%s': expected one of %s, or all",
			 fn, bad, strategy_names());
	else if (!sim->npaths) {
		sim_fail(sim, ANONSIM_EINVAL, "%s: no trace opened (anonsim_open_trace)", fn);
		n = 0;
	}
	return n;
}

int anonsim_replay(anonsim_sim *sim, const char *strategy)
{
	struct strategy_run runs[SIM_MAX_RUNS];
	unsigned n = sim_runs(sim, "anonsim_replay", strategy, runs), r;
	int rc;

	if (!n)
		return ANONSIM_EINVAL;
	for (r = 0; r < n; r++) {
		rc = replay_run(sim->paths, sim->npaths, runs[r].s, runs[r].v, &sim->o,
				&sim->res[r], sim->err, sizeof(sim->err));
		if (rc)
			return rc;
	}
	sim->nres = n;
	sim->has_density = false;
	return ANONSIM_OK;
}

int anonsim_density(anonsim_sim *sim, const char *strategy, unsigned max_n)
{
	struct strategy_run runs[SIM_MAX_RUNS];
	struct density_point *pts;
	unsigned n = sim_runs(sim, "anonsim_density", strategy, runs), r, filled;
	int rc = ANONSIM_OK;

	if (!n)
		return ANONSIM_EINVAL;
	if (!sim->o.host_mem)
		return sim_fail(sim, ANONSIM_EINVAL,
				"anonsim_density: the host memory is unlimited (anonsim_set_host_mem)");
	if (!max_n || max_n > REPLAY_COPIES_MAX)
		return sim_fail(sim, ANONSIM_EINVAL,
				"anonsim_density: %u: expected a number from 1 to %d",
				max_n, REPLAY_COPIES_MAX);
	pts = calloc(max_n, sizeof(*pts));
	if (!pts)
		return sim_fail(sim, ANONSIM_ESYSTEM, "anonsim_density: out of memory");
	for (r = 0; r < n && !rc; r++) {
		rc = density_sweep(sim->paths, sim->npaths, runs[r].s, runs[r].v, &sim->o,
				   max_n, online_cpus(), pts, &filled, &sim->density[r],
				   sim->err, sizeof(sim->err));
		/* the figures of as many instances as fit, or of one */
		if (!rc)
			sim->res[r] = pts[sim->density[r] ? sim->density[r] - 1 : 0].limited;
	}
	free(pts);
	if (rc)
		return rc;
	sim->nres = n;
	sim->has_density = true;
	return ANONSIM_OK;
}

unsigned anonsim_result_count(const anonsim_sim *sim)
{
	return sim->nres;
}

const char *anonsim_result_label(const anonsim_sim *sim, unsigned i)
{
	return i < sim->nres ? sim->res[i].label : NULL;
}

/* Figure @f of @res, in bytes or a count; false if it has none such. */
static bool result_figure(const struct replay_result *res, enum anonsim_figure f,
			  uint64_t *value)
{
	static const enum mem_cat cat[] = {
		CAT_TMPFS, CAT_CACHE, CAT_SWAP_TABLE, CAT_MAP_TABLE, CAT_OVERHEAD,
	};

	if ((unsigned)f <= ANONSIM_FINAL_OVERHEAD)
		*value = res->final[cat[f - ANONSIM_FINAL_TMPFS]];
	else if (f == ANONSIM_FINAL_TOTAL)
		*value = res->final_total;
	else if (f == ANONSIM_FINAL_SWAP_USED)
		*value = res->swap_final;
	else if (f >= ANONSIM_PEAK_TMPFS && f <= ANONSIM_PEAK_MAP_TABLES)
		*value = res->peak[cat[f - ANONSIM_PEAK_TMPFS]];
	else if (f == ANONSIM_PEAK_TOTAL)
		*value = res->peak_total;
	else if (f == ANONSIM_PEAK_SWAP_USED)
		*value = res->swap_peak;
	else
		return false;
	*value *= 4096;
	return true;
}

int anonsim_result(anonsim_sim *sim, unsigned i, enum anonsim_figure figure,
		   uint64_t *value)
{
	sim->err[0] = '\0';
	if (i >= sim->nres)
		return sim_fail(sim, ANONSIM_EINVAL, "anonsim_result: no run %u (%u run%s)",
				i, sim->nres, sim->nres == 1 ? "" : "s");
	if (figure == ANONSIM_SWAP_OUTS)
		*value = sim->res[i].swap_outs;
	else if (figure == ANONSIM_INSTANCES)
		*value = sim->res[i].instances;
	else if (figure == ANONSIM_DENSITY && sim->has_density)
		*value = sim->density[i];
	else if (figure == ANONSIM_DENSITY || !result_figure(&sim->res[i], figure, value))
		return sim_fail(sim, ANONSIM_EINVAL, "anonsim_result: run %u has no figure %d%s",
				i, (int)figure, figure == ANONSIM_DENSITY ?
				" (ANONSIM_DENSITY: after anonsim_density only)" : "");
	return ANONSIM_OK;
}
