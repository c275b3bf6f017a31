/*
 * lost_hosts.c - hosts presumed gone (lost_hosts.h).
 */
#include "lost_hosts.h"

#include <stdio.h>

#include "db_lost.h"
#include "host_rhythm.h"
#include "log.h"

#define LOST_CHUNK 200            /* hosts listed at a time */

struct list_tx {
    struct daemon *d;
    int ids[LOST_CHUNK];
    int n;
};

static void limits_of(const struct daemon *d, struct db_lost_limits *l, struct lost_params *p)
{
    p->gap_factor = d->cfg.lost_host_gap_factor;
    p->min_silence = d->cfg.lost_host_min_silence;
    p->new_silence = d->cfg.lost_host_new_silence;
    l->now = (int)d->now;
    l->lookback_from = (int)d->now - LOST_LOOKBACK;
    l->gap_factor = p->gap_factor;
    l->min_silence = d->cfg.lost_host_min_silence;
    l->new_silence = d->cfg.lost_host_new_silence;
}

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *t = arg;
    struct db_lost_limits l;
    struct lost_params p;
    limits_of(t->d, &l, &p);
    return db_lost_hosts_list(c, &l, t->d->mod_n, t->d->mod_i, LOST_CHUNK, t->ids, &t->n);
}

struct mark_tx {
    struct daemon *d;
    int hostid;
    int marked;
    double silent, limit;
    long long changed;
};

static int mark_body(struct db_conn *c, void *arg)
{
    struct mark_tx *t = arg;
    struct db_lost_host h;
    struct db_lost_limits l;
    struct lost_params p;
    struct host_rhythm rh = { 0, 0, 0, 0, 0 };
    int r;

    t->marked = 0;
    r = db_lost_host_lock(c, t->hostid, &h);
    if (r == DB_NOTFOUND)
        return DB_OK;
    if (r != DB_OK)
        return r;
    /* decide again on the locked row: the host may have come back */
    limits_of(t->d, &l, &p);
    rh.gap_avg = h.rpc_gap_avg;
    rh.gap_dev = h.rpc_gap_dev;
    rh.gap_n = h.rpc_gap_n;
    t->silent = (double)t->d->now - h.rpc_time;
    t->limit = rhythm_silence_limit(&rh, &p);
    if (h.lost_time != 0 || !rhythm_presumed_lost(&rh, &p, t->silent))
        return DB_OK;
    r = db_lost_host_mark(c, t->hostid, (int)t->d->now, &t->changed);
    if (r == DB_OK)
        t->marked = 1;
    return r;
}

long lost_hosts_step(struct daemon *d)
{
    struct list_tx lt;
    long marked = 0;
    int i, r;

    lt.d = d;
    lt.n = 0;
    r = db_transaction(d->db, "list hosts silent beyond their rhythm", list_body, &lt);
    if (r != DB_OK) {
        log_error("%s", db_error(d->db));
        return r;
    }
    for (i = 0; i < lt.n && !daemon_should_stop(d); i++) {
        struct mark_tx t = { d, lt.ids[i], 0, 0, 0, 0 };
        char what[64];
        snprintf(what, sizeof what, "presume [host#%d] gone", lt.ids[i]);
        r = db_transaction(d->db, what, mark_body, &t);
        if (r != DB_OK) {
            log_error("[host#%d] %s", lt.ids[i], db_error(d->db));
            continue;
        }
        if (t.marked) {
            log_info("[host#%d] silent for %.0f s (its limit %.0f s): presumed gone, its "
                     "results in progress get new replicas (%lld rows changed)",
                     lt.ids[i], t.silent, t.limit, t.changed);
            marked++;
        }
    }
    return marked;
}
