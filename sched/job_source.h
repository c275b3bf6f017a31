/*
 * job_source.h - where the scheduler gets candidate jobs.
 *
 * A job source locks candidates for a request, in the order it prefers
 * them; the handler then decides which to send (app version, estimate,
 * EDF check) and claims them.  The plain source takes unsent results in
 * order; the locality source takes those of the host's cursor.
 */
#ifndef LOCSCHED_JOB_SOURCE_H
#define LOCSCHED_JOB_SOURCE_H

#include "db_sched.h"

struct sched_ctx;
struct request_state;

struct job_source {
    const char *name;
    /* Lock up to limit candidates into out; *n gets the count. */
    int (*candidates)(struct sched_ctx *ctx, struct request_state *rs, int limit,
                      struct db_candidate *out, int *n);
};

extern const struct job_source job_source_plain;

#endif
