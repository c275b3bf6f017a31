/*
 * db_finish.h - the transitioner's statements for the batches' finish
 * lines (sched/policy/finish_line.h; schema 013).  Each function is one
 * prepared statement; none locks a row.
 */
#ifndef LOCSCHED_DB_FINISH_H
#define LOCSCHED_DB_FINISH_H

#include "db.h"

/* An active batch, as the finish line needs it. */
struct db_fl_batch {
    int id;
    int create_time;
    int njobs;
    int min_quorum;
    double fpops_per_result;       /* total_fpops / (njobs x target_nresults) */
};

/* Up to limit active batches (state IN_PROGRESS) with id % mod_n == mod_i. */
int db_fl_batches(struct db_conn *c, int mod_n, int mod_i, int limit, struct db_fl_batch *out,
                  int *n);

/*
 * A batch's results in progress (not counting those on hosts presumed
 * gone: replica_flags RF_HOST_LOST), and its successes received since
 * "since" (ind_res_batch_state, from the index alone).
 */
int db_fl_result_counts(struct db_conn *c, int batch_id, int since, long long *in_progress,
                        long long *recent);

/*
 * A batch's finished workunits (a canonical result, or an error), and the
 * successes received for its unfinished ones, not judged invalid: with a
 * quorum above 1 these are the part of a job already done.
 */
int db_fl_job_counts(struct db_conn *c, int batch_id, long long *finished, long long *partial);

/* A host seen lately, as the finish line needs it. */
struct db_fl_host {
    double p_fpops;          /* CPU speed per instance */
    int p_ncpus;
    double on_frac, active_frac;
    int busy;                /* it holds a result in progress (ind_res_host_state) */
};

/*
 * Up to limit hosts that contacted the scheduler since "since", newest
 * first: row(ctx, host) per host (0 to go on).
 */
int db_fl_host_speeds(struct db_conn *c, int since, int limit,
                      int (*row)(void *ctx, const struct db_fl_host *h), void *ctx);

/* Store a batch's projected end (0: none) and a fast host's speed. */
int db_fl_set(struct db_conn *c, int batch_id, int finish_eta, double fast_flops);

#endif
