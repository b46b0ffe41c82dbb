/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * datadir.h - where anonsim's data is: the installed pkgdatadir, or the
 * directory ANONSIM_DATADIR names, laid out as the source tree is
 * (traces/, plots/).
 */
#ifndef ANONSIM_DATADIR_H
#define ANONSIM_DATADIR_H

/* The path of @rel under the data directory, in a buffer of this file's
 * that the next call reuses. */
const char *data_path(const char *rel);

#endif
