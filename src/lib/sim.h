/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim.h - what a libanonsim handle holds (anonsim/anonsim.h), shared by
 * the files of src/lib.
 *
 * src/lib/ is the part of anonsim that other programs link: the public
 * API of include/anonsim/anonsim.h over the model, the strategy registry
 * and the trace reader.  It may use every part below the command line
 * (never src/cli, never src/record); nothing of the tool includes it.
 */
#ifndef ANONSIM_LIB_SIM_H
#define ANONSIM_LIB_SIM_H

#include <stdbool.h>

#include <anonsim/anonsim.h>

#include "model/replay.h"
#include "strategy/registry.h"

/* As many runs as "all" with both devanon variants makes, and more. */
#define SIM_MAX_RUNS 16

struct anonsim_sim {
	struct replay_opts o;		/* the host and instances asked for */
	char **paths;			/* the traces opened, in order */
	unsigned npaths;
	struct replay_result res[SIM_MAX_RUNS];	/* the last run's, in report order */
	unsigned density[SIM_MAX_RUNS];
	unsigned nres;
	bool has_density;		/* the last run was anonsim_density */
	char err[1024];			/* anonsim_error() */
};

/* Put the message of a failed call into @sim; returns @status. */
int sim_fail(anonsim_sim *sim, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
