/*
 * job_source.h - where the scheduler gets candidate jobs.
 *
 * A job source locks candidates for a request, in the order it prefers
 * them; the handler then decides which to send (app version, estimate,
 * EDF check) and claims them; then the source's after_claim hook (if any)
 * records what it must, in the same transaction.
 *
 * The plain source takes unsent results of plain batches in order.  The
 * locality source (the default) puts the host in a team of each active
 * locality batch, takes its cursor's unsent results in job order with a
 * preference for files the host holds, tells it which sticky files to
 * delete, and then falls back to plain batches.
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
    /* After the claim, in the same transaction (may be NULL). */
    int (*after_claim)(struct sched_ctx *ctx, struct request_state *rs);
};

extern const struct job_source job_source_plain;
extern const struct job_source job_source_locality;

/*
 * The tail source (job_source_tail.c), consulted when the request's
 * source sent nothing: a backup replica of the in-progress result this
 * host would beat most, made and claimed in the request's transaction,
 * within the batch's budget (tail_pick.h).  DB_OK also when it sends
 * nothing.
 */
int tail_send(struct sched_ctx *ctx, struct request_state *rs);

/* Locality batches handled per request (more are served next time). */
#define LOC_MAX_BATCHES 32

/* A sticky file the host listed, as the locality source maps it to the
 * active locality batches (once per request, in its candidates). */
struct loc_held_file {
    int batch_id;                  /* 0: of no active locality batch, or failed */
    int file_num;
    int req_index;                 /* into the request's sticky_files */
};

/* The host's team in one active locality batch, for this request. */
struct loc_choice {
    int batch_id;
    int cursor_id;                 /* 0: none (cannot run the app, or all done) */
    int first_needed_file;         /* files the cursor still needs: */
    int last_needed_file;          /*   [first, last]; first > last: none */
    int action;                    /* enum cc_action */
};

#endif
