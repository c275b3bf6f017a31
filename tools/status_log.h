/*
 * status_log.h - count the scheduler's requests and errors per minute from
 * its log lines, for the status page.  Pure: the caller reads the log.
 *
 * The scheduler logs one line per request it answers (log.h's format,
 * "YYYY-MM-DD HH:MM:SS LEVEL [scheduler:PID] message", UTC), possibly
 * inside a line of Apache's error log (mod_fcgid passes the FastCGI
 * program's standard error on).  A request is counted from the line that
 * says how it was answered: served ("rpc_seqno"), project down, malformed,
 * unknown account key, or not handled (database); the last three are
 * errors.  Needs the scheduler's log_level at info (the default).
 */
#ifndef LOCSCHED_STATUS_LOG_H
#define LOCSCHED_STATUS_LOG_H

#include <stddef.h>

#include "status_render.h"

enum sl_kind { SL_NONE = 0, SL_REQUEST = 1, SL_ERROR = 2 };

/*
 * Classify one log line (len bytes, no newline needed): SL_REQUEST for a
 * request answered normally, SL_ERROR for one answered with an error,
 * SL_NONE for any other line.  *t gets the line's time (Unix seconds)
 * when the result is not SL_NONE.
 */
int sl_classify(const char *line, size_t len, long long *t);

/*
 * Count the requests in text (whole lines; a partial first line is
 * skipped when skip_first) into m: minutes [minute0, minute0 + 60*60).
 * m->minute0 must be set; counts are added.
 */
void sl_count(struct sr_sched_minutes *m, const char *text, size_t len, int skip_first);

#endif /* LOCSCHED_STATUS_LOG_H */
