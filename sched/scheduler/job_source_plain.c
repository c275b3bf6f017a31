/*
 * job_source_plain.c - the plain job source: unsent results of plain
 * batches in job order,
 * skipping workunits of which the user already has a replica.
 */
#include "job_source.h"

#include "handler.h"

static int plain_candidates(struct sched_ctx *ctx, struct request_state *rs, int limit,
                            struct db_candidate *out, int *n)
{
    int appids[64];
    int napps = handler_runnable_apps(ctx, rs, appids, 64);
    return db_candidates_plain(ctx->db, rs->user.id, appids, napps, limit, out, n);
}

const struct job_source job_source_plain = { "plain", plain_candidates, NULL };
