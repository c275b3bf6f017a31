/*
 * db_validate.c - the validator's statements (db_validate.h).
 */
#include "db_validate.h"

#include <stdio.h>
#include <string.h>

#include "db_internal.h"
#include "db_slots.h"

enum {
    SLOT_VA_NEED = SLOT_VALIDATE_FIRST,
    SLOT_VA_LIST,
    SLOT_VA_WU_READ,
    SLOT_VA_RESULTS,
    SLOT_VA_RESULT_SET,
    SLOT_VA_WU_DONE,
    SLOT_VA_BATCH_COUNTS,
    SLOT_VA_HOST_LOCK,
    SLOT_VA_HOST_SET,
    SLOT_VA_END
};
_Static_assert((int)SLOT_VA_END <= (int)SLOT_CHECK_VA_FIRST, "validator slots fit 176..185");

int db_va_need_validate(struct db_conn *c, int wuid)
{
    static const char sql[] = "UPDATE workunit SET need_validate = 1 WHERE id = ?";
    struct db_val p[] = { DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "mark [wu#%d] for validation", wuid);
    return db_exec(c, SLOT_VA_NEED, sql, p, 1, NULL, what);
}

int db_va_list(struct db_conn *c, int mod_n, int mod_i, int after, int limit, int *ids, int *n)
{
    /* the index (need_validate, id) of schema 014 */
    static const char sql[] =
        "SELECT id FROM workunit WHERE need_validate = 1 AND id > ? AND MOD(id, ?) = ? "
        "ORDER BY id LIMIT ?";
    struct db_val p[] = { DBV_INT(after), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    return db_query_ids(c, SLOT_VA_LIST, sql, p, 4, limit, ids, n, "list workunits to validate");
}

int db_va_wu_read(struct db_conn *c, int wuid, struct db_va_wu *wu)
{
    static const char sql[] =
        "SELECT id, name, need_validate, canonical_resultid, error_mask, min_quorum, "
        "target_nresults, max_out_nbytes, rsc_fpops_est FROM workunit WHERE id = ?";
    struct db_val p[] = { DBV_INT(wuid) };
    struct db_val cols[] = { DBV_INT(wu->id), DBV_BUF(wu->name), DBV_INT(wu->need_validate),
                             DBV_INT(wu->canonical_resultid), DBV_INT(wu->error_mask),
                             DBV_INT(wu->min_quorum), DBV_INT(wu->target_nresults),
                             DBV_DBL(wu->max_out_nbytes), DBV_DBL(wu->rsc_fpops_est) };
    char what[64];
    long nrows = 0;
    int r;
    memset(wu, 0, sizeof *wu);
    snprintf(what, sizeof what, "read [wu#%d] to validate it", wuid);
    r = db_query(c, SLOT_VA_WU_READ, sql, p, 1, cols, 9, NULL, NULL, &nrows, what);
    if (r == DB_OK && nrows == 0)
        return DB_NOTFOUND;
    return r;
}

struct res_ctx {
    struct db_va_result cur, *out;
    int max, *n;
};

static int res_row(void *vctx)
{
    struct res_ctx *x = vctx;
    if (*x->n >= x->max)
        return 1;
    x->out[(*x->n)++] = x->cur;
    return 0;
}

int db_va_results(struct db_conn *c, int wuid, struct db_va_result *out, int max, int *n)
{
    static const char sql[] =
        "SELECT id, name, validate_state, received_time, hostid FROM result "
        "WHERE workunitid = ? AND server_state = 5 AND outcome = 1 ORDER BY id";
    struct res_ctx x;
    struct db_val p[] = { DBV_INT(wuid) };
    struct db_val cols[] = { DBV_INT(x.cur.id), DBV_BUF(x.cur.name),
                             DBV_INT(x.cur.validate_state), DBV_INT(x.cur.received_time),
                             DBV_INT(x.cur.hostid) };
    char what[64];
    memset(&x, 0, sizeof x);
    x.out = out;
    x.max = max;
    x.n = n;
    *n = 0;
    snprintf(what, sizeof what, "read the successes of [wu#%d]", wuid);
    return db_query(c, SLOT_VA_RESULTS, sql, p, 1, cols, 5, res_row, &x, NULL, what);
}

int db_va_result_set(struct db_conn *c, int result_id, int validate_state, int bad_output)
{
    static const char sql[] =
        "UPDATE result SET validate_state = ?, outcome = IF(? = 1, 6, outcome) WHERE id = ?";
    struct db_val p[] = { DBV_INT(validate_state), DBV_INT(bad_output), DBV_INT(result_id) };
    char what[64];
    snprintf(what, sizeof what, "store the validation of [result#%d]", result_id);
    return db_exec(c, SLOT_VA_RESULT_SET, sql, p, 3, NULL, what);
}

int db_va_wu_done(struct db_conn *c, int wuid, int canonical_resultid, double canonical_credit,
                  int target, int now)
{
    static const char sql[] =
        "UPDATE workunit SET need_validate = 0, "
        "canonical_credit = IF(canonical_resultid = 0 AND ? <> 0, ?, canonical_credit), "
        "canonical_resultid = IF(canonical_resultid = 0, ?, canonical_resultid), "
        "target_nresults = GREATEST(target_nresults, ?), transition_time = ?, "
        "assimilate_state = IF(assimilate_state = 0 AND "
        "(canonical_resultid <> 0 OR error_mask <> 0), 1, assimilate_state) WHERE id = ?";
    struct db_val p[] = { DBV_INT(canonical_resultid), DBV_DBL(canonical_credit),
                          DBV_INT(canonical_resultid), DBV_INT(target), DBV_INT(now),
                          DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "store the validation of [wu#%d]", wuid);
    return db_exec(c, SLOT_VA_WU_DONE, sql, p, 6, NULL, what);
}

int db_va_batch_counts(struct db_conn *c, int batch_id, struct db_va_counts *k)
{
    static const char sql[] =
        "SELECT CAST(COALESCE(SUM(validate_state = 0), 0) AS SIGNED), "
        "CAST(COALESCE(SUM(validate_state = 1), 0) AS SIGNED), "
        "CAST(COALESCE(SUM(validate_state = 2), 0) AS SIGNED), "
        "CAST(COALESCE(SUM(validate_state = 4), 0) AS SIGNED) "
        "FROM result WHERE batch = ? AND server_state = 5 AND outcome IN (1, 6)";
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_LL(k->waiting), DBV_LL(k->valid), DBV_LL(k->invalid),
                             DBV_LL(k->inconclusive) };
    char what[64];
    memset(k, 0, sizeof *k);
    snprintf(what, sizeof what, "count validation states of [batch#%d]", batch_id);
    return db_query(c, SLOT_VA_BATCH_COUNTS, sql, p, 1, cols, 4, NULL, NULL, NULL, what);
}

int db_va_host_quota_lock(struct db_conn *c, int hostid, struct db_host_quota *q)
{
    static const char sql[] =
        "SELECT max_results_day, consecutive_valid, error_rate FROM host WHERE id = ? "
        "FOR UPDATE";
    struct db_val p[] = { DBV_INT(hostid) };
    struct db_val cols[] = { DBV_INT(q->max_results_day), DBV_INT(q->consecutive_valid),
                             DBV_DBL(q->error_rate) };
    char what[64];
    long nrows = 0;
    int r;
    memset(q, 0, sizeof *q);
    snprintf(what, sizeof what, "lock the quota of [host#%d]", hostid);
    r = db_query(c, SLOT_VA_HOST_LOCK, sql, p, 1, cols, 3, NULL, NULL, &nrows, what);
    if (r == DB_OK && nrows == 0)
        return DB_NOTFOUND;
    return r;
}

int db_va_host_quota_set(struct db_conn *c, int hostid, const struct db_host_quota *q)
{
    static const char sql[] =
        "UPDATE host SET max_results_day = ?, consecutive_valid = ?, error_rate = ? "
        "WHERE id = ?";
    struct db_host_quota v = *q;
    struct db_val p[] = { DBV_INT(v.max_results_day), DBV_INT(v.consecutive_valid),
                          DBV_DBL(v.error_rate), DBV_INT(hostid) };
    char what[64];
    snprintf(what, sizeof what, "store the quota of [host#%d]", hostid);
    return db_exec(c, SLOT_VA_HOST_SET, sql, p, 4, NULL, what);
}
