/*
 * replay_out.h - the load replay's report: what was run and what was
 * measured, printed as text (and optionally JSON), always ending with the
 * one-line summary
 *   replay: R req/s, J jobs/s, p50 A ms, p99 B ms, E errors
 */
#ifndef LOCSCHED_REPLAY_OUT_H
#define LOCSCHED_REPLAY_OUT_H

#include <stdio.h>

#include "replay_db.h"
#include "replay_proc.h"
#include "replay_stats.h"

struct replay_result {
    /* what was run */
    const char *url;
    int nhosts, ntemplates, nauth;
    int concurrency;               /* closed loop; 0 in open loop */
    double rate;                   /* open loop target; 0 in closed loop */
    double warmup, run_seconds, work_secs;
    /* measured, in the window after the warm-up */
    double secs;                   /* length of the window */
    struct replay_counts c;
    struct lat_summary lat;
    unsigned long failed;          /* requests with at least one error, whole run */
    unsigned long errors_all[RE_NKINDS];   /* whole run, warm-up included */
    char first_error[RE_NKINDS][240];
    char first_notice[240];        /* of a handled reply (no error), whole run */
    unsigned long between;         /* replies between the counter snapshots */
    int have_db;
    struct rdb_snap db;            /* counter deltas (own reads subtracted) */
    int have_cpu;
    double cpu[PC_NCLASSES];
    int nprocs[PC_NCLASSES];
    double machine_busy, machine_total;
    double self_cpu;               /* the replay's own CPU seconds in the window */
};

/* Human-readable report (several lines). */
void replay_print_text(FILE *out, const struct replay_result *r);

/* The same figures as one JSON object on one line. */
void replay_print_json(FILE *out, const struct replay_result *r);

/* The summary line (always last). */
void replay_print_summary(FILE *out, const struct replay_result *r);

#endif
