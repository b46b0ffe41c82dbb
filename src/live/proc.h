/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc.h - the process of one live instance: it reads the trace itself and
 * executes its events a batch at a time, as the parent tells it, so that
 * the events of several instances interleave on the kernel in the order
 * the model applies them.
 */
#ifndef ANONSIM_LIVE_PROC_H
#define ANONSIM_LIVE_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "live/guest.h"

struct live_proc {
	pid_t pid;
	int to, from;		/* command pipe, reply pipe */
};

/*
 * Fork the instance of @path over memory file @memfd and devices @dev
 * (@read_zeros: live_opts).
 * @before_go runs in the parent once the process exists and before it
 * starts (to put it in a cgroup); 0 or -1 (@err).
 */
int live_proc_start(struct live_proc *p, const char *path,
		    const struct live_strategy *s, int memfd,
		    const struct live_device *dev, bool read_zeros,
		    int (*before_go)(pid_t pid, char *err, size_t errlen),
		    char *err, size_t errlen);

/* Execute the next @n events; 0, or -1 when the process failed (@err). */
int live_proc_run(struct live_proc *p, uint64_t n, char *err, size_t errlen);

/* Let the process exit and reap it; 0, or -1 if it had failed (@err). */
int live_proc_stop(struct live_proc *p, char *err, size_t errlen);

/* Kill and reap it (after a failure elsewhere). */
void live_proc_kill(struct live_proc *p);

#endif
