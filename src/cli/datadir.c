/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "cli/datadir.h"

/* PKGDATADIR: configure's pkgdatadir, given by the Makefile so that
 * "make prefix=..." holds for it too (GNU Coding Standards 7.2.5) */
const char *data_path(const char *rel)
{
	static char path[4096];
	const char *dir = getenv("ANONSIM_DATADIR");

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : PKGDATADIR, rel);
	return path;
}
