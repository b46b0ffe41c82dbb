/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/keyval.h"
#include "util/names.h"
#include "util/util.h"
#include "util/xalloc.h"

static int listed(const char *const *list, const char *key)
{
	return list && names_find(list, key) >= 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int kv_load(struct kv_file *f, const char *path, const char *const *known,
	    const char *const *multi, char *err, size_t errlen)
{
	FILE *in;
	char line[4096];
	unsigned no = 0;

	memset(f, 0, sizeof(*f));
	if (!strcmp(path, "-") && isatty(STDIN_FILENO)) {
		snprintf(err, errlen, "standard input: a terminal, not a settings file");
		return -1;
	}
	in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!in) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	path = input_name(path);	/* in messages; f->path resolves names */
	f->path = xstrdup(in == stdin ? "-" : path, "a settings file's name");
	while (fgets(line, sizeof(line), in)) {
		char *hash, *key, *val;

		no++;
		if (!strchr(line, '\n') && !feof(in)) {
			snprintf(err, errlen, "%s:%u: line longer than %zu bytes",
				 path, no, sizeof(line) - 2);
			goto fail;
		}
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		val = key;
		while (*val && !isspace((unsigned char)*val))
			val++;
		if (*val)
			*val++ = '\0';
		val = trim(val);
		if (!listed(known, key)) {
			char want[NAMES_LIST_MAX];

			snprintf(err, errlen, "%s:%u: unknown setting '%s': expected %s", path, no,
				 key, names_or(known, want, sizeof(want)));
			goto fail;
		}
		if (kv_get(f, key) && !listed(multi, key)) {
			snprintf(err, errlen, "%s:%u: '%s' is set twice (first on line %u)",
				 path, no, key, kv_get(f, key)->line);
			goto fail;
		}
		if (!*val) {
			snprintf(err, errlen, "%s:%u: '%s' needs a value", path, no, key);
			goto fail;
		}
		f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v), "a setting");
		f->v[f->n].key = xstrdup(key, "a setting");
		f->v[f->n].value = xstrdup(val, "a setting");
		f->v[f->n].line = no;
		f->n++;
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	if (in != stdin)
		fclose(in);
	return 0;
fail:
	if (in != stdin)
		fclose(in);
	kv_free(f);
	return -1;
}

void kv_free(struct kv_file *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].key);
		free(f->v[i].value);
	}
	free(f->v);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

const struct kv_entry *kv_get(const struct kv_file *f, const char *key)
{
	unsigned i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].key, key))
			return &f->v[i];
	return NULL;
}

int kv_size(const struct kv_file *f, const char *key, unsigned long long *out,
	    char *err, size_t errlen)
{
	const struct kv_entry *e = kv_get(f, key);
	uint64_t v;

	if (!e)
		return 1;
	if (parse_size(e->value, &v)) {
		snprintf(err, errlen, "%s:%u: %s '%s': expected a size such as 7M",
			 f->path, e->line, key, e->value);
		return -1;
	}
	*out = v;
	return 0;
}

void kv_path(const struct kv_file *f, const char *rel, char *buf, size_t len)
{
	const char *slash = strrchr(f->path, '/');

	if (rel[0] == '/' || !slash)
		snprintf(buf, len, "%s", rel);
	else
		snprintf(buf, len, "%.*s/%s", (int)(slash - f->path), f->path, rel);
}
