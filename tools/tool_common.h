/*
 * tool_common.h - what every admin tool does first: find and read the
 * configuration and open the database, with errors that say which file
 * or which database failed.
 */
#ifndef LOCSCHED_TOOL_COMMON_H
#define LOCSCHED_TOOL_COMMON_H

#include "config.h"
#include "db.h"

/* Read the config (explicit path, $LOCSCHED_CONFIG or ./locsched.conf)
 * and connect.  On failure prints "PROG: reason" to stderr and returns -1. */
int tool_open(const char *prog, const char *config_path, struct config *cfg,
              struct db_conn **db);

/* Copy src to dst (mode 0644), refusing to overwrite a different file. */
int tool_copy_file(const char *prog, const char *src, const char *dst);

/*
 * Strict numbers from the command line: the whole text must be a decimal
 * number (no sign for tool_parse_id), finite, within [lo, hi].  Return 0
 * and set *out, or -1 (nothing set).
 */
int tool_parse_long(const char *s, long lo, long hi, long *out);
int tool_parse_double(const char *s, double lo, double hi, double *out);

/* A batch (or other row) id: a positive decimal int, else 0. */
int tool_parse_id(const char *s);

#endif
