/*
 * db_validate.h - the validator's statements (slots 176..191), and the
 * transitioner's hand-over (need_validate).  Codes are BOINC's:
 * result.validate_state 0 INIT, 1 VALID, 2 INVALID, 3 NO_CHECK,
 * 4 INCONCLUSIVE, 5 TOO_LATE; workunit.need_validate 1 when a success
 * waits for the validator.
 */
#ifndef LOCSCHED_DB_VALIDATE_H
#define LOCSCHED_DB_VALIDATE_H

#include "db.h"

/* In the caller's transaction: mark a workunit for the validator. */
int db_va_need_validate(struct db_conn *c, int wuid);

/* Up to limit ids of workunits with need_validate set (id > after,
 * id % mod_n == mod_i), in id order. */
int db_va_list(struct db_conn *c, int mod_n, int mod_i, int after, int limit, int *ids, int *n);

/* A workunit as the validator needs it. */
struct db_va_wu {
    int id;
    char name[256];
    int need_validate, canonical_resultid, error_mask;
    int min_quorum, target_nresults;
    double max_out_nbytes, rsc_fpops_est;
};

/* Read one workunit; DB_NOTFOUND if it is gone. */
int db_va_wu_read(struct db_conn *c, int wuid, struct db_va_wu *wu);

/* A successful result (server_state OVER, outcome SUCCESS). */
struct db_va_result {
    int id;
    char name[256];
    int validate_state, received_time, hostid;
};

/* The successful results of a workunit, in id order, into out[0..max);
 * more are left out (*n == max). */
int db_va_results(struct db_conn *c, int wuid, struct db_va_result *out, int max, int *n);

/* Set a result's validate_state; with bad_output, its outcome becomes
 * VALIDATE_ERROR (6) too. */
int db_va_result_set(struct db_conn *c, int result_id, int validate_state, int bad_output);

/*
 * The validator is done with a workunit: need_validate 0, the canonical
 * result and its credit (0: none, unchanged), target_nresults raised to
 * at least target, transition_time now (the transitioner acts next), and
 * with a canonical result, ready to assimilate.
 */
int db_va_wu_done(struct db_conn *c, int wuid, int canonical_resultid, double canonical_credit,
                  int target, int now);

/* A host's standing with the validator (schema 014, sched/policy/host_quota.h). */
struct db_host_quota {
    int max_results_day;       /* jobs per CPU per day; 0: the project's */
    int consecutive_valid;
    double error_rate;
};

/* In the caller's transaction: lock a host's row and read its standing;
 * DB_NOTFOUND if the host is gone. */
int db_va_host_quota_lock(struct db_conn *c, int hostid, struct db_host_quota *q);

/* Write a host's standing (after db_va_host_quota_lock). */
int db_va_host_quota_set(struct db_conn *c, int hostid, const struct db_host_quota *q);

/* A batch's reported successes by validate_state (VALIDATE_ERROR
 * outcomes count as invalid), for batch_status. */
struct db_va_counts {
    long long waiting, valid, invalid, inconclusive;
};
int db_va_batch_counts(struct db_conn *c, int batch_id, struct db_va_counts *k);

#endif
