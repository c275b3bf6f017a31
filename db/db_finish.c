/*
 * db_finish.c - statements for the batches' finish lines (db_finish.h).
 */
#include "db_finish.h"

#include <string.h>

#include "db_internal.h"
#include "db_slots.h"

_Static_assert(SLOT_FL_SET < DB_MAX_STMTS, "finish-line statement slots fit the cache");

struct fl_batches_ctx {
    struct db_fl_batch cur, *out;
    double total_fpops;
    int target_nresults, limit, *n;
};

static int fl_batch_row(void *vctx)
{
    struct fl_batches_ctx *x = vctx;
    double results = (double)x->cur.njobs * (double)x->target_nresults;
    if (*x->n >= x->limit)
        return 1;
    x->cur.fpops_per_result = results > 0 ? x->total_fpops / results : 0;
    x->out[(*x->n)++] = x->cur;
    return 0;
}

int db_fl_batches(struct db_conn *c, int mod_n, int mod_i, int limit, struct db_fl_batch *out,
                  int *n)
{
    static const char sql[] =
        "SELECT id, create_time, njobs, min_quorum, target_nresults, total_fpops FROM batch "
        "WHERE state = 1 AND MOD(id, ?) = ? ORDER BY id LIMIT ?";
    struct fl_batches_ctx x;
    struct db_val p[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    struct db_val cols[] = { DBV_INT(x.cur.id), DBV_INT(x.cur.create_time),
                             DBV_INT(x.cur.njobs), DBV_INT(x.cur.min_quorum),
                             DBV_INT(x.target_nresults), DBV_DBL(x.total_fpops) };
    memset(&x, 0, sizeof x);
    x.out = out;
    x.limit = limit;
    x.n = n;
    *n = 0;
    return db_query(c, SLOT_FL_BATCHES, sql, p, 3, cols, 6, fl_batch_row, &x, NULL,
                    "list active batches for their finish lines");
}

int db_fl_result_counts(struct db_conn *c, int batch_id, int since, long long *in_progress,
                        long long *recent)
{
    static const char sql[] =
        "SELECT COALESCE(SUM(server_state = 4 AND (replica_flags & 2) = 0), 0), "
        "COALESCE(SUM(server_state = 5 AND outcome = 1 AND received_time >= ?), 0) "
        "FROM result WHERE batch = ? AND server_state IN (4, 5)";
    struct db_val p[] = { DBV_INT(since), DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_LL(*in_progress), DBV_LL(*recent) };
    *in_progress = *recent = 0;
    return db_query(c, SLOT_FL_RESULTS, sql, p, 2, cols, 2, NULL, NULL, NULL,
                    "count a batch's results in progress and recent successes");
}

int db_fl_job_counts(struct db_conn *c, int batch_id, long long *finished, long long *partial)
{
    static const char sql[] =
        "SELECT (SELECT COUNT(*) FROM workunit WHERE batch = ? "
        "        AND (canonical_resultid <> 0 OR error_mask <> 0)), "
        "(SELECT COUNT(*) FROM result r JOIN workunit w ON w.id = r.workunitid "
        "  WHERE r.batch = ? AND r.server_state = 5 AND r.outcome = 1 AND r.validate_state <> 2 "
        "  AND w.canonical_resultid = 0 AND w.error_mask = 0)";
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_LL(*finished), DBV_LL(*partial) };
    *finished = *partial = 0;
    return db_query(c, SLOT_FL_FINISHED, sql, p, 2, cols, 2, NULL, NULL, NULL,
                    "count a batch's finished workunits and the successes of the others");
}

struct speeds_ctx {
    double p_fpops, on_frac, active_frac;
    int p_ncpus, busy;
    int (*row)(void *ctx, const struct db_fl_host *h);
    void *ctx;
};

static int speed_row(void *vctx)
{
    struct speeds_ctx *x = vctx;
    struct db_fl_host h = { x->p_fpops, x->p_ncpus, x->on_frac, x->active_frac, x->busy != 0 };
    return x->row(x->ctx, &h);
}

int db_fl_host_speeds(struct db_conn *c, int since, int limit,
                      int (*row)(void *ctx, const struct db_fl_host *h), void *ctx)
{
    static const char sql[] =
        "SELECT p_fpops, p_ncpus, on_frac, active_frac, "
        "EXISTS (SELECT 1 FROM result r WHERE r.hostid = h.id AND r.server_state = 4) "
        "FROM host h WHERE rpc_time >= ? ORDER BY rpc_time DESC, id DESC LIMIT ?";
    struct speeds_ctx x;
    struct db_val p[] = { DBV_INT(since), DBV_INT(limit) };
    struct db_val cols[] = { DBV_DBL(x.p_fpops), DBV_INT(x.p_ncpus), DBV_DBL(x.on_frac),
                             DBV_DBL(x.active_frac), DBV_INT(x.busy) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    return db_query(c, SLOT_FL_SPEEDS, sql, p, 2, cols, 5, speed_row, &x, NULL,
                    "read the active hosts' speeds");
}

int db_fl_set(struct db_conn *c, int batch_id, int finish_eta, double fast_flops)
{
    static const char sql[] =
        "UPDATE batch SET finish_eta = ?, finish_fast_flops = ? WHERE id = ? AND state = 1";
    struct db_val p[] = { DBV_INT(finish_eta), DBV_DBL(fast_flops), DBV_INT(batch_id) };
    return db_exec(c, SLOT_FL_SET, sql, p, 3, NULL, "store a batch's finish line");
}
