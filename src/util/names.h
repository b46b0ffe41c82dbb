/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * names.h - a table of names (NULL-terminated) looked up, and listed in
 * the message that refuses a value: "expected modern or 2.4" comes from
 * the table that defines the values, never from a copy of it.
 */
#ifndef ANONSIM_UTIL_NAMES_H
#define ANONSIM_UTIL_NAMES_H

#include <stddef.h>

/* Longest list names_or writes for the tables here. */
#define NAMES_LIST_MAX 256

/* The index of @name in @names, or -1 when it is none of them. */
int names_find(const char *const *names, const char *name);

/* @names as "a, b or c" in @buf (cut to @len); returns @buf. */
char *names_or(const char *const *names, char *buf, size_t len);

#endif
