/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "util/names.h"

int names_find(const char *const *names, const char *name)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

char *names_or(const char *const *names, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; names[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i ? "" : names[i + 1] ? ", " : " or ", names[i]);
	return buf;
}
