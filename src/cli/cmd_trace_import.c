/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_trace_import.c - "anonsim trace import --from strace": a trace from
 * the strace log of a UML run.
 */
#include <config.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/host_options.h"
#include "cli/usage.h"
#include "cli/output_file.h"
#include "trace/import.h"
#include "trace/trace.h"
#include "util/names.h"
#include "util/util.h"

static void import_usage(FILE *f)
{
	fputs("Usage: anonsim trace import --from strace --memory SIZE -o OUT [OPTIONS] LOG\n"
	      "\n"
	      "Make a trace of the UML run whose system calls strace logged in LOG\n"
	      "(plain or gzip; - is standard input).  Record the log with\n"
	      "anonsim-strace-record (in the source tree's src/record/uml/): it boots\n"
	      "UML with strace attached to the processes that matter, the main\n"
	      "process, which maps UML's memory file, and the io threads (children\n"
	      "made with clone(CLONE_VM)), which read and write the disks.  strace -f\n"
	      "cannot be used: it takes over the processes UML traces itself, and UML\n"
	      "stops at its start-up check.  By hand, attach to both while UML runs\n"
	      "(UML's mapping of its physical memory, made as it boots, is then\n"
	      "assumed):\n"
	      "\n"
	      "  strace -ttt -e trace=pread64,pwrite64,preadv,pwritev,mmap,munmap \\\n"
	      "         -e raw=pread64,pwrite64 -o LOG -p UML_PID -p IO_THREAD_PID\n"
	      "\n"
	      "-e raw= makes strace print the buffers' addresses: a buffer's physical\n"
	      "page is the page of the memory file mapped where it lies.  Each\n"
	      "descriptor that moves data to or from physical memory becomes a disk\n"
	      "(ubda, ubdb, ... in order of first use); UML's shared mappings of its\n"
	      "memory file, from its mapping of physical memory on, become mmap\n"
	      "events, and unmappings of them munmap events.  strace does not see the\n"
	      "guest write or free its memory: the trace has no touch or free events.\n"
	      "\n"
	      "Every form strace writes its lines in is read: a -t, -tt, -ttt or -r\n"
	      "time stamp or none (times start at the first call; without time\n"
	      "stamps every event is at 0), a process id column of any width or\n"
	      "\"[pid N]\", -y/-yy files, calls split in two (<unfinished ...> and\n"
	      "<... resumed>), signals, exits, strace's own messages.  The trace's\n"
	      "notes count the lines that hold nothing for it and the calls it leaves\n"
	      "out (failed, unfinished, begun before the log, vector transfers,\n"
	      "transfers outside physical memory); UML's probe of an image's header\n"
	      "(4136 bytes) is rounded out to whole sectors.  A line strace does not\n"
	      "write, a time stamp of another form than the first one's, a call whose\n"
	      "arguments or result cannot be read, a line cut off in the middle of the\n"
	      "log: each is refused with its place.  A line cut off at the log's end\n"
	      "is left out, with a warning; a log without a disk read of the guest or\n"
	      "without a mapping of the memory file is imported with a warning too:\n"
	      "strace was attached to other processes than UML's.\n"
	      "\n"
	      "Options:\n"
	      "      --from strace     the kind of log (strace is the one there is)\n"
	      "  -o, --output OUT      the trace to write (.trace, .atr, optionally .gz);\n"
	      "                        it appears only when complete\n"
	      "      --memory SIZE     UML's physical memory, its mem= (required)\n"
	      "      --phys-base ADDR  host address of physical page 0 (default:\n"
	      "                        0x60000000, UML's on x86_64)\n"
	      "      --memory-fd N     the memory file's descriptor (default: the file\n"
	      "                        a shared mapping puts at its own address, page\n"
	      "                        0 at --phys-base; else the one descriptor other\n"
	      "                        than the disks mapped shared)\n"
	      "      --device FD=SIZE[:BACKING]  the disk read through FD: its size and\n"
	      "                        backing identity (default: the farthest byte\n"
	      "                        read, rounded up to 1 MiB, and strace-fdFD)\n"
	      "      --readahead KB    the host's readahead window to record\n"
	      QUIET_NOTHING_HELP
	      "  -h, --help            this help\n"
	      "\n"
	      "A log that cannot be read is bad data (2; the message names the line);\n"
	      "one whose memory file --memory-fd alone can tell, a usage error (1).\n"
	      EXIT_STATUS_HELP, f);
}

/* "FD=SIZE[:BACKING]" */
static int parse_device(const char *arg, struct strace_device_opt *d)
{
	char buf[512], *eq, *colon;
	uint64_t fd;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	eq = strchr(buf, '=');
	if (!eq)
		return -1;
	*eq = '\0';
	colon = strchr(eq + 1, ':');
	if (colon) {
		*colon = '\0';
		if (!colon[1] || strlen(colon + 1) > 255 || strpbrk(colon + 1, " \t#"))
			return -1;
		snprintf(d->backing, sizeof(d->backing), "%s", colon + 1);
	} else {
		d->backing[0] = '\0';
	}
	if (parse_uint(buf, 1 << 20, &fd) || parse_size(eq + 1, &d->size) || !d->size ||
	    d->size % 512)
		return -1;
	d->fd = (int)fd;
	return 0;
}

enum { O_FROM = 256, O_MEMORY, O_BASE, O_MEMFD, O_DEVICE, O_RA };

/* What the command line asks of an import. */
struct import_cli {
	struct strace_import_opts o;
	const char *from, *out;
};

/* One option into @cli; 0, or an exit status (-1: help shown). */
static int import_option(struct import_cli *cli, int opt, char **argv)
{
	struct strace_import_opts *o = &cli->o;
	char *end;
	uint64_t v;

	switch (opt) {
	case O_FROM:
		cli->from = optarg;
		return 0;
	case 'o':
		if (!*optarg)
			return bad_option_value("--output", optarg, "a file name");
		cli->out = optarg;
		return 0;
	case O_MEMORY:
		if (parse_size(optarg, &o->memory) || !o->memory || o->memory % 4096 ||
		    o->memory > (1ULL << 40)) {
			msg("--memory '%s': expected a size such as 64M, a multiple of 4K up to 1T",
			    optarg);
			return EXIT_USAGE;
		}
		return 0;
	case O_BASE:
		o->phys_base = strtoull(optarg, &end, 0);
		if (end == optarg || *end || o->phys_base % 4096) {
			msg("--phys-base '%s': expected a page-aligned address such as 0x60000000",
			    optarg);
			return EXIT_USAGE;
		}
		return 0;
	case O_MEMFD:
		if (parse_uint(optarg, 1 << 20, &v)) {
			msg("--memory-fd '%s': expected a descriptor number", optarg);
			return EXIT_USAGE;
		}
		o->memory_fd = (int)v;
		return 0;
	case O_DEVICE:
		if (o->nr_dev == TRACE_MAX_DEVICES || parse_device(optarg, &o->dev[o->nr_dev])) {
			msg("--device '%s': expected FD=SIZE[:BACKING], e.g. 14=1G:debian-img, at most %d",
			    optarg, TRACE_MAX_DEVICES);
			return EXIT_USAGE;
		}
		o->nr_dev++;
		return 0;
	case O_RA:
		if (parse_uint(optarg, 1u << 30, &v)) {
			msg("--readahead '%s': expected a window in KiB", optarg);
			return EXIT_USAGE;
		}
		o->readahead_kb = (int64_t)v;
		return 0;
	case 'q':
		return 0;
	case 'h':
		import_usage(stdout);
		return -1;
	default:
		return usage_error(opt, argv, "trace import");
	}
}

/* The options into @cli.  0, or an exit status (-1: help shown). */
static int import_parse(struct import_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, O_FROM },
		{ "output", required_argument, NULL, 'o' },
		{ "memory", required_argument, NULL, O_MEMORY },
		{ "phys-base", required_argument, NULL, O_BASE },
		{ "memory-fd", required_argument, NULL, O_MEMFD },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "readahead", required_argument, NULL, O_RA },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1)
		if ((rc = import_option(cli, opt, argv)))
			return rc;
	return 0;
}

/* The kinds of log --from takes. */
static const char *const log_kinds[] = { "strace", NULL };

/* What an import cannot do without: --from strace, --memory, -o OUT, one LOG. */
static int import_check(const struct import_cli *cli, int argc, char **argv)
{
	char want[NAMES_LIST_MAX];
	int binary, gz;

	if (!cli->from) {
		msg("--from KIND is required, the kind of log: %s",
		    names_or(log_kinds, want, sizeof(want)));
		return EXIT_USAGE;
	}
	if (names_find(log_kinds, cli->from) < 0)
		return bad_option_value("--from", cli->from, names_or(log_kinds, want, sizeof(want)));
	if (!cli->o.memory) {
		msg("--memory SIZE is required: UML's mem=, which strace does not see");
		return EXIT_USAGE;
	}
	if (!cli->out || trace_path_encoding(cli->out, &binary, &gz)) {
		msg("-o OUT is required, ending in %s", names_or(trace_suffixes, want, sizeof(want)));
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		msg("expected one LOG (see anonsim trace import --help)");
		return EXIT_USAGE;
	}
	if (output_not_input(cli->out, argv + optind, 1))
		return EXIT_USAGE;
	return 0;
}

/* The trace from @log, a line saying what it holds, and what looks wrong. */
static int import_run(const struct import_cli *cli, const char *log)
{
	const char *name = input_name(log);
	struct strace_import_result res;
	char err[1024];
	int rc;

	rc = strace_import(log, &cli->o, cli->out, &res, err, sizeof(err));
	if (rc) {
		msg("%s", err);
		return rc;
	}
	if (res.cut_line)
		msg("%s:%u: warning: the log ends in the middle of this line%s%s: left out",
		    name, res.cut_line, res.cut_name[0] ? ", a call of " : "", res.cut_name);
	if (!res.reads)
		msg("%s: warning: no disk read into UML's physical memory (%" PRIu64 " pread64 calls): "
		    "was strace attached to UML's io thread? (anonsim-strace-record attaches to it)",
		    name, res.preads);
	else if (res.reads == res.probes)
		msg("%s: warning: no disk read by the guest, only UML's own probes of an image's "
		    "header (%" PRIu64 "): was strace attached to UML's io thread? "
		    "(anonsim-strace-record attaches to it)", name, res.probes);
	if (!res.mapped)
		msg("%s: warning: no mapping of UML's memory file: was strace attached to UML's "
		    "main process? (anonsim-strace-record attaches to it)", name);
	printf("%s: %" PRIu64 " events from %s; %" PRIu64 " calls left out (see its notes)\n",
	       cli->out, res.events, name, res.left_out);
	return EXIT_OK;	/* a failure to write standard output: main says so, exit 5 */
}

int cmd_trace_import(int argc, char **argv)
{
	struct import_cli cli = { .o = { .phys_base = UML_PHYS_BASE_X86_64, .memory_fd = -1,
					 .readahead_kb = -1 } };
	int rc;

	rc = import_parse(&cli, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = import_check(&cli, argc, argv);
	if (rc)
		return rc;
	return import_run(&cli, argv[optind]);
}
