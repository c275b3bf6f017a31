/*
 * db_lost.c - statements for hosts presumed gone (db_lost.h).
 */
#include "db_lost.h"

#include <stdio.h>
#include <string.h>

#include "db_internal.h"
#include "db_slots.h"

struct lost_ids_ctx {
    int cur, limit, *ids, *n;
};

static int lost_id_row(void *vctx)
{
    struct lost_ids_ctx *x = vctx;
    if (*x->n >= x->limit)
        return 1;
    x->ids[(*x->n)++] = x->cur;
    return 0;
}

int db_lost_hosts_list(struct db_conn *c, const struct db_lost_limits *l, int mod_n, int mod_i,
                       int limit, int *ids, int *n)
{
    /* ind_host_lost (lost_time, rpc_time), then ind_res_host_state; the
     * limit of silence is host_rhythm.h's rhythm_silence_limit() */
    static const char sql[] =
        "SELECT h.id FROM host h FORCE INDEX (ind_host_lost) "
        "WHERE h.lost_time = 0 AND h.rpc_time >= ? AND h.rpc_time < ? "
        "AND ? - h.rpc_time > IF(h.rpc_gap_avg > 0 AND h.rpc_gap_n > 0, "
        "    GREATEST(?, ? * (h.rpc_gap_avg + 4 * GREATEST(h.rpc_gap_dev, 0))), GREATEST(?, ?)) "
        "AND MOD(h.id, ?) = ? "
        "AND EXISTS (SELECT 1 FROM result r FORCE INDEX (ind_res_host_state) "
        "            WHERE r.hostid = h.id AND r.server_state = 4 AND r.report_deadline >= ?) "
        "ORDER BY h.rpc_time, h.id LIMIT ?";
    struct lost_ids_ctx x;
    struct db_lost_limits v = *l;
    int newest = v.now - v.min_silence;
    struct db_val p[] = { DBV_INT(v.lookback_from), DBV_INT(newest), DBV_INT(v.now),
                          DBV_INT(v.min_silence), DBV_DBL(v.gap_factor),
                          DBV_INT(v.min_silence), DBV_INT(v.new_silence),
                          DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(v.now), DBV_INT(limit) };
    struct db_val col[] = { DBV_INT(x.cur) };

    x.cur = 0;
    x.limit = limit;
    x.ids = ids;
    x.n = n;
    *n = 0;
    return db_query(c, SLOT_LOST_HOSTS_LIST, sql, p, 11, col, 1, lost_id_row, &x, NULL,
                    "list hosts silent beyond their rhythm");
}

int db_lost_host_lock(struct db_conn *c, int hostid, struct db_lost_host *h)
{
    static const char sql[] =
        "SELECT id, rpc_time, lost_time, rpc_gap_avg, rpc_gap_dev, rpc_gap_n FROM host WHERE id = ? "
        "FOR UPDATE";
    struct db_val p[] = { DBV_INT(hostid) };
    struct db_val cols[] = { DBV_INT(h->id), DBV_INT(h->rpc_time), DBV_INT(h->lost_time),
                             DBV_DBL(h->rpc_gap_avg), DBV_DBL(h->rpc_gap_dev),
                             DBV_INT(h->rpc_gap_n) };
    char what[64];
    long nrows = 0;
    int r;

    memset(h, 0, sizeof *h);
    snprintf(what, sizeof what, "lock [host#%d]", hostid);
    r = db_query(c, SLOT_LOST_HOST_LOCK, sql, p, 1, cols, 6, NULL, NULL, &nrows, what);
    if (r == DB_OK && nrows == 0)
        return DB_NOTFOUND;
    return r;
}

int db_lost_host_mark(struct db_conn *c, int hostid, int now, long long *nchanged)
{
    /* the host by its key, its results by ind_res_host_state; rows of the
     * LEFT JOINs that do not exist are not written */
    static const char sql[] =
        "UPDATE host h "
        "LEFT JOIN result r ON r.hostid = h.id AND r.server_state = 4 "
        "    AND r.report_deadline >= ? "
        "LEFT JOIN workunit w ON w.id = r.workunitid "
        "    AND w.canonical_resultid = 0 AND w.error_mask = 0 "
        "SET h.lost_time = ?, "
        "    r.replica_flags = IF(w.id IS NULL, r.replica_flags, r.replica_flags | 2), "
        "    w.transition_time = LEAST(w.transition_time, ?) "
        "WHERE h.id = ?";
    struct db_val p[] = { DBV_INT(now), DBV_INT(now), DBV_INT(now), DBV_INT(hostid) };
    char what[64];
    long long affected = 0;
    int r;

    snprintf(what, sizeof what, "presume [host#%d] gone", hostid);
    r = db_exec(c, SLOT_LOST_HOST_MARK, sql, p, 4, &affected, what);
    /* affected counts the host, the results and the workunits changed */
    if (nchanged)
        *nchanged = affected > 1 ? affected - 1 : 0;
    return r;
}
