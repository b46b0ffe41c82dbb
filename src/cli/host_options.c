/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_options.c - parse and document the host-model options shared by the
 * commands that replay traces.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cli/host_options.h"
#include "model/page_report.h"
#include "strategy/registry.h"
#include "util/names.h"
#include "util/util.h"

void host_cli_init(struct host_cli *hc)
{
	*hc = (struct host_cli){ .strategy = "all", .variant = "both" };
	replay_opts_init(&hc->o);
}

int bad_option_value(const char *opt, const char *val, const char *want)
{
	msg("%s '%s': expected %s", opt, val, want);
	return EXIT_USAGE;
}

int strategy_list_option(const char *list)
{
	char bad[64], all[NAMES_LIST_MAX + 16];
	bool twice = false;

	if (!strategy_list_check(list, bad, sizeof(bad), &twice))
		return 0;
	if (twice) {
		msg("--strategy '%s': %s named twice", list, bad);
		return EXIT_USAGE;
	}
	snprintf(all, sizeof(all), "one of %s, or all", strategy_names());
	return bad_option_value("--strategy", bad, all);
}

int64_t parse_seconds(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 1e12)
		return -1;
	return (int64_t)(v * 1e6 + 0.5);
}

int host_cli_option(struct host_cli *hc, int c, const char *arg)
{
	struct replay_opts *o = &hc->o;
	char want[NAMES_LIST_MAX];
	uint64_t v;

	switch (c) {
	case 's':
		if (strategy_list_option(arg))
			return EXIT_USAGE;
		hc->strategy = arg;
		return 0;
	case HOST_O_VARIANT:
		if (names_find(strategy_variant_names, arg) < 0)
			return bad_option_value("--variant", arg,
						names_or(strategy_variant_names, want, sizeof(want)));
		hc->variant = arg;
		return 0;
	case 'm':
		/* 0 would be unlimited, the default: not a host one can ask for */
		if (parse_size(arg, &o->host_mem) || o->host_mem < REPLAY_HOST_MEM_MIN)
			return bad_option_value("--host-mem", arg, "a size such as 512M (at least 4K)");
		return 0;
	case HOST_O_SWAP:
		if (parse_size(arg, &o->swap) || o->swap > REPLAY_SWAP_MAX)
			return bad_option_value("--swap", arg, "a size such as 1G, up to 1T");
		return 0;
	case HOST_O_POLICY:
		if (reclaim_policy_find(arg, &o->policy))
			return bad_option_value("--policy", arg,
						names_or(reclaim_policy_names, want, sizeof(want)));
		return 0;
	case HOST_O_RA:
		if (parse_uint(arg, 1u << 30, &v))
			return bad_option_value("--readahead", arg, "a window in KiB");
		o->readahead_kb = (int64_t)v;
		return 0;
	case HOST_O_OVERHEAD:
		if (parse_size(arg, &o->overhead))
			return bad_option_value("--overhead", arg, "a size such as 2M");
		return 0;
	case HOST_O_OVERHEAD_ANON:
		if (parse_size(arg, &o->overhead_anon))
			return bad_option_value("--overhead-anon", arg, "a size such as 300K");
		return 0;
	case HOST_O_STAGGER:
		if ((o->stagger_us = parse_seconds(arg)) < 0)
			return bad_option_value("--stagger", arg, "seconds, e.g. 2.5");
		return 0;
	case HOST_O_NOSHARE:
		o->share = false;
		return 0;
	case HOST_O_NOHOST:
		o->no_host_events = true;
		return 0;
	case HOST_O_GEOM:
		if (!shmem_geom_find(arg))
			return bad_option_value("--geometry", arg, shmem_geom_names(want, sizeof(want)));
		o->geom = shmem_geom_find(arg);
		return 0;
	case HOST_O_CHECK:
		o->check = true;
		return 0;
	case HOST_O_REPORT:
		if (parse_uint(arg, PAGE_REPORT_ORDER_MAX, &v))
			return bad_option_value("--report-order", arg, "an order from 0 to 10");
		o->report = true;
		o->report_order = (unsigned)v;
		return 0;
	case HOST_O_RECOUNT: {
		uint64_t n;

		if (parse_uint(arg, UINT32_MAX, &n) || !n)
			return bad_option_value("--recount-every", arg, "a number of events >= 1");
		o->check = true;
		o->recount_every = n;
		return 0;
	}
	}
	return -1;
}

unsigned host_cli_runs(const struct host_cli *hc, struct strategy_run *runs,
		       unsigned max)
{
	return strategy_runs(hc->strategy, hc->variant, runs, max);
}

void host_options_usage(FILE *f, const char *between)
{
	fputs("  -s, --strategy LIST   strategies, comma-separated, or \"all\" (default:\n"
	      "                        all)\n"
	      "      --variant V       src/kernel code for devanon: posted, fixed or both\n"
	      "                        (default: both)\n"
	      "  -m, --host-mem SIZE   host memory, e.g. 512M (default: unlimited)\n"
	      "      --swap SIZE       swap device size (default: 1G)\n"
	      "      --policy P        reclaim: modern (Linux 6.x LRU) or 2.4 (swap-eager)\n"
	      "                        (default: modern)\n"
	      "      --readahead KB    readahead window; 0 disables (default: the\n"
	      "                        window recorded in each trace, else 0)\n"
	      "      --overhead SIZE   fixed host memory per instance, on top of the\n"
	      "                        trace's host events (default: 0)\n"
	      "      --overhead-anon SIZE  and anonymous memory of each instance's own\n"
	      "                        process, which the host can swap (default: 0)\n"
	      "      --no-host-events  leave out the traces' host events (what UML's host\n"
	      "                        processes hold), as anonsim live, which runs no\n"
	      "                        UML, does\n"
	      "      --report-order N  the guests report their free blocks of 2^N pages\n"
	      "                        (virtio-balloon free page reporting; Linux's\n"
	      "                        default is 9) and the VMM gives them back, under\n"
	      "                        any strategy (default: no reporting)\n", f);
	fputs(between, f);
	fputs("      --stagger SECS    start instances SECS apart (default: each one\n"
	      "                        after the previous trace ends)\n"
	      "      --no-share        instances do not share backing page cache\n"
	      "      --geometry G      block-table geometry: x86_64 or i386 (default: x86_64)\n"
	      "      --check           verify invariants while replaying (the pages of\n"
	      "                        each event after it, a full recount every 1024\n"
	      "                        events and at the end); exit 3 on a break no\n"
	      "                        posted defect explains\n"
	      "      --recount-every N  --check, with the full recount every N events\n", f);
}

void host_options_strategies(FILE *f)
{
	const struct strategy *const *s;

	const struct strategy_alias *a;

	fputs("Strategies:\n", f);
	for (s = strategies; *s; s++)
		fprintf(f, "  %-12s %s\n", (*s)->name, (*s)->summary);
	for (a = strategy_aliases; a->name; a++)
		fprintf(f, "  %-12s QEMU's cache=%s: %s on the host\n", a->name, a->name, a->s->name);
}
