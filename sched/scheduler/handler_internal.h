/*
 * handler_internal.h - what the parts of the request handler share and
 * nobody else uses: handler.c (the transaction and the sending),
 * handler_rsc.c (the host's resources) and handler_reports.c (reported
 * results).
 */
#ifndef LOCSCHED_HANDLER_INTERNAL_H
#define LOCSCHED_HANDLER_INTERNAL_H

#include "handler.h"

/* Set up the host's resources from the request: their work requests and
 * EDF queues filled with the jobs in progress.  0, or -1 when out of
 * memory.  handler_free_rscs() frees the queues, also after a failure. */
int handler_setup_rscs(struct sched_ctx *ctx, struct request_state *rs);
void handler_free_rscs(struct request_state *rs);

/* 1 when the resource still wants work in this reply. */
int handler_rsc_needs_work(const struct rsc_state *r);

/* Handle the reported results in the request's transaction; sets
 * rs->nreported.  A DB_* code. */
int handler_handle_reports(struct sched_ctx *ctx, struct request_state *rs);

#endif
