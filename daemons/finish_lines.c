/*
 * finish_lines.c - the batches' finish lines (finish_lines.h).  Reads are
 * plain counts from indexes (no locks); each batch's row is written in a
 * transaction of its own, and only when its figures changed.
 */
#include "finish_lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db_finish.h"
#include "estimate.h"
#include "finish_line.h"
#include "log.h"

#define FL_MAX_BATCHES 256

struct speeds {
    double *v;
    int n, cap;
};

static int add_speed(void *vctx, double p_fpops, double on_frac, double active_frac)
{
    struct speeds *s = vctx;
    if (s->n == s->cap)
        return 1;
    s->v[s->n++] = p_fpops * est_cpu_avail(on_frac, active_frac);
    return 0;
}

struct fl_tx {
    struct daemon *d;
    struct db_fl_batch *batches;
    int nbatches;
    struct speeds sp;
    double fast;
};

static int read_body(struct db_conn *c, void *arg)
{
    struct fl_tx *t = arg;
    int r;
    t->sp.n = 0;
    r = db_fl_batches(c, t->d->mod_n, t->d->mod_i, FL_MAX_BATCHES, t->batches, &t->nbatches);
    if (r != DB_OK || t->nbatches == 0)
        return r;
    r = db_fl_host_speeds(c, (int)t->d->now - FINISH_ACTIVE_HOSTS_SECS, FINISH_MAX_HOSTS,
                          add_speed, &t->sp);
    if (r == DB_OK)
        t->fast = finish_line_fast_flops(t->sp.v, t->sp.n);
    return r;
}

struct batch_tx {
    struct daemon *d;
    const struct db_fl_batch *b;
    double fast;
    int eta;
};

static int batch_body(struct db_conn *c, void *arg)
{
    struct batch_tx *t = arg;
    struct finish_counts fc;
    long long finished = 0;
    int now = (int)t->d->now, since = now - FINISH_RATE_WINDOW, r;
    double left;

    memset(&fc, 0, sizeof fc);
    if (since < t->b->create_time)
        since = t->b->create_time;
    r = db_fl_result_counts(c, t->b->id, since, &fc.in_progress, &fc.recent);
    if (r == DB_OK)
        r = db_fl_finished_jobs(c, t->b->id, &finished);
    if (r != DB_OK)
        return r;
    fc.needed = (long long)t->b->njobs * t->b->min_quorum;
    fc.succeeded = finished * t->b->min_quorum;  /* unfinished jobs count as not begun */
    fc.window = now - since;
    fc.fpops_per_result = t->b->fpops_per_result;
    left = finish_line_eta(&fc);
    t->eta = left > 0 && left < 3650.0 * 86400 ? now + (int)ceil(left) : 0;
    return db_fl_set(c, t->b->id, t->eta, t->fast);
}

long finish_lines_step(struct daemon *d)
{
    struct db_fl_batch batches[FL_MAX_BATCHES];
    struct fl_tx t;
    long changed = 0;
    int i, r;

    memset(&t, 0, sizeof t);
    t.d = d;
    t.batches = batches;
    t.sp.cap = FINISH_MAX_HOSTS;
    t.sp.v = malloc(sizeof *t.sp.v * FINISH_MAX_HOSTS);
    if (!t.sp.v) {
        log_error("finish lines: out of memory");
        return DB_ERR;
    }
    r = db_transaction(d->db, "read the batches and hosts for the finish lines", read_body, &t);
    free(t.sp.v);
    if (r != DB_OK) {
        log_error("%s", db_error(d->db));
        return r;
    }
    for (i = 0; i < t.nbatches; i++) {
        struct batch_tx bt = { d, &batches[i], t.fast, 0 };
        r = db_transaction(d->db, "store a batch's finish line", batch_body, &bt);
        if (r != DB_OK) {
            log_error("[batch#%d] %s", batches[i].id, db_error(d->db));
            continue;
        }
        log_debug("[batch#%d] finish line: %s%.0f s from now, a fast host %.3g flops",
                  batches[i].id, bt.eta ? "" : "none (rate unknown), ",
                  bt.eta ? (double)bt.eta - (double)d->now : 0.0, t.fast);
        changed++;
    }
    return changed;
}
