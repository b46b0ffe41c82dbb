/*
 * scratch.h - the files a live run makes (disk images, copy-on-write layers)
 * in a scratch directory of their own, removed at the end, on failure, and
 * on SIGINT, SIGTERM or SIGHUP (then the process exits 128 + signal).
 */
#ifndef ANONSIM_LIVE_SCRATCH_H
#define ANONSIM_LIVE_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCRATCH_MAX_FILES 64

/*
 * Make a scratch directory under @parent (which must not be a tmpfs: a file
 * there has no page cache of its own).  Writes the filesystem's name into
 * @fstype.  Returns 0, or -1 with a message in @err.
 */
int scratch_open(const char *parent, char *fstype, size_t fslen,
		 char *err, size_t errlen);

/*
 * A new sparse file of @size bytes in the scratch directory: its fd (read
 * and write), or -1.  Its path goes to @path.
 */
int scratch_file(uint64_t size, char *path, size_t pathlen, char *err, size_t errlen);

/* The process the signal handlers kill before they clean up (0: none). */
void scratch_watch_child(pid_t pid);

/* Remove every scratch file and the directory. */
void scratch_close(void);

#endif
