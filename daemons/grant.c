/*
 * grant.c - credit to results, hosts and users (grant.h).
 */
#include "grant.h"

#include "credit.h"
#include "log.h"

/* Sort sel by host id (by_user 0) or user id (by_user 1). */
static void sort_sel(const struct db_tr_result **sel, int n, int by_user)
{
    int i, j;
    for (i = 1; i < n; i++) {
        const struct db_tr_result *x = sel[i];
        int kx = by_user ? x->userid : x->hostid;
        for (j = i; j > 0; j--) {
            const struct db_tr_result *y = sel[j - 1];
            if ((by_user ? y->userid : y->hostid) <= kx)
                break;
            sel[j] = y;
        }
        sel[j] = x;
    }
}

static void add_credit(struct db_credit *cr, double credit, double now, double half_life)
{
    cr->total_credit += credit;
    credit_update_average(&cr->expavg_credit, &cr->expavg_time, credit, now, half_life);
}

int grant_results(struct db_conn *c, int wuid, const struct db_tr_result **sel, int n,
                  double credit, double now, double half_life)
{
    int i, r;

    sort_sel(sel, n, 0);
    for (i = 0; i < n; i++) {
        const struct db_tr_result *x = sel[i];
        struct db_credit cr;
        r = db_tr_result_grant(c, x->id, credit);
        if (r != DB_OK)
            return r;
        if (x->hostid <= 0)
            continue;
        r = db_tr_host_credit_lock(c, x->hostid, &cr);
        if (r == DB_NOTFOUND) {
            log_warn("[wu#%d] [result#%d] [host#%d] host is gone: no host credit", wuid, x->id,
                     x->hostid);
            continue;
        }
        if (r != DB_OK)
            return r;
        add_credit(&cr, credit, now, half_life);
        r = db_tr_host_credit_set(c, x->hostid, &cr);
        if (r != DB_OK)
            return r;
    }
    sort_sel(sel, n, 1);
    for (i = 0; i < n; i++) {
        const struct db_tr_result *x = sel[i];
        struct db_credit cr;
        if (x->userid <= 0)
            continue;
        r = db_tr_user_credit_lock(c, x->userid, &cr);
        if (r == DB_NOTFOUND)
            continue;
        if (r != DB_OK)
            return r;
        add_credit(&cr, credit, now, half_life);
        r = db_tr_user_credit_set(c, x->userid, &cr);
        if (r != DB_OK)
            return r;
    }
    return DB_OK;
}
