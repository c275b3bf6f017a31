/*
 * job_source_plain.c - the plain job source: unsent results of plain
 * batches in job order,
 * skipping workunits of which the user already has a replica.  The read
 * starts at this process's front (sched/policy/scan_front.h).
 */
#include "job_source.h"

#include "handler.h"
#include "scan_front.h"

static int plain_candidates(struct sched_ctx *ctx, struct request_state *rs, int limit,
                            struct db_candidate *out, int *n)
{
    int appids[64];
    int napps = handler_runnable_apps(ctx, rs, appids, 64);
    int start = scan_front_start(&ctx->plain_front, rs->now), r;

    /* at most twice: a read from the front that came back short is made
     * again from the start (scan_front_after never asks that of one) */
    for (;;) {
        r = db_candidates_plain(ctx->db, rs->user.id, appids, napps, start, limit, out, n);
        if (r != DB_OK || !scan_front_after(&ctx->plain_front, rs->now, start, *n, limit,
                                            *n > 0 ? out[0].job_num : 0))
            break;
        start = 0;
    }
    return r;
}

const struct job_source job_source_plain = { "plain", plain_candidates, NULL };
