/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keyval.h - the small "key value..." files anonsim reads (trace profiles,
 * the reproduction config): one setting a line, '#' comments, blank lines
 * ignored.  Every setting remembers its line so messages can name it.
 */
#ifndef ANONSIM_KEYVAL_H
#define ANONSIM_KEYVAL_H

#include <stddef.h>

struct kv_entry {
	char *key, *value;	/* value: the rest of the line, trimmed */
	unsigned line;
};

struct kv_file {
	char *path;
	struct kv_entry *v;
	unsigned n;
};

/*
 * Load @path.  @known lists the keys allowed (NULL-terminated); @multi the
 * keys that may appear more than once.  0, or -1 with "FILE:LINE: what" in
 * @err.
 */
int kv_load(struct kv_file *f, const char *path, const char *const *known,
	    const char *const *multi, char *err, size_t errlen);
void kv_free(struct kv_file *f);

/* The (first) setting of @key, or NULL. */
const struct kv_entry *kv_get(const struct kv_file *f, const char *key);

/* @key as a size ("7M") / whole number: 0, 1 if absent (@out untouched), -1 bad (message). */
int kv_size(const struct kv_file *f, const char *key, unsigned long long *out,
	    char *err, size_t errlen);

/* @rel resolved against the directory of the file @f, into @buf. */
void kv_path(const struct kv_file *f, const char *rel, char *buf, size_t len);

#endif
