/*
 * finish_lines.c - the batches' finish lines (finish_lines.h).  Reads are
 * plain counts from indexes (no locks), all in one transaction; each
 * batch's row is then written in a transaction of its own.
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
    double *v;           /* speed per instance of every host seen */
    double *busy;        /* ... of those that hold a result in progress */
    int n, nbusy, cap;
    double capacity;     /* flops per second of the hosts that hold work */
};

/* Every host seen lately counts for the fast host of a line from the
 * batch's rate; only those that hold a result in progress count for the
 * capacity, and for the fast host of a line from it: hosts attached but
 * not working for the project (gone, no new tasks, other projects) would
 * make that line too early and too strict. */
static int add_speed(void *vctx, const struct db_fl_host *h)
{
    struct speeds *s = vctx;
    double per_instance;
    if (s->n == s->cap)
        return 1;
    per_instance = h->p_fpops * est_cpu_avail(h->on_frac, h->active_frac);
    s->v[s->n++] = per_instance;
    if (h->busy && h->p_ncpus > 0 && per_instance > 0 && isfinite(per_instance)) {
        s->capacity += per_instance * (h->p_ncpus > 1024 ? 1024 : h->p_ncpus);
        s->busy[s->nbusy++] = per_instance;
    }
    return 0;
}

struct fl_tx {
    struct daemon *d;
    struct db_fl_batch *rows;      /* the active batches ... */
    struct finish_counts *counts;  /* ... and their counts, by the same index */
    int nbatches;
    struct speeds sp;
    double fast, fast_busy;
};

/* The counts of one batch (finish_line.h's struct finish_counts). */
static int read_counts(struct db_conn *c, int now, const struct db_fl_batch *b,
                       struct finish_counts *fc)
{
    long long finished = 0;
    int since = now - FINISH_RATE_WINDOW, r;

    memset(fc, 0, sizeof *fc);
    if (since < b->create_time)
        since = b->create_time;
    r = db_fl_result_counts(c, b->id, since, &fc->in_progress, &fc->recent);
    if (r == DB_OK)
        r = db_fl_finished_jobs(c, b->id, &finished);
    if (r != DB_OK)
        return r;
    fc->needed = (long long)b->njobs * b->min_quorum;
    fc->succeeded = finished * b->min_quorum;  /* unfinished jobs count as not begun */
    fc->window = now - since;
    fc->fpops_per_result = b->fpops_per_result;
    return DB_OK;
}

static int read_body(struct db_conn *c, void *arg)
{
    struct fl_tx *t = arg;
    int r, i;
    t->sp.n = t->sp.nbusy = 0;
    t->sp.capacity = 0;
    r = db_fl_batches(c, t->d->mod_n, t->d->mod_i, FL_MAX_BATCHES, t->rows, &t->nbatches);
    if (r != DB_OK || t->nbatches == 0)
        return r;
    for (i = 0; i < t->nbatches; i++) {
        r = read_counts(c, (int)t->d->now, &t->rows[i], &t->counts[i]);
        if (r != DB_OK)
            return r;
    }
    r = db_fl_host_speeds(c, (int)t->d->now - FINISH_ACTIVE_HOSTS_SECS, FINISH_MAX_HOSTS,
                          add_speed, &t->sp);
    if (r == DB_OK) {
        t->fast = finish_line_fast_flops(t->sp.v, t->sp.n);
        t->fast_busy = finish_line_fast_flops(t->sp.busy, t->sp.nbusy);
    }
    return r;
}

struct batch_tx {
    int id;
    int eta;
    double fast;
};

static int batch_body(struct db_conn *c, void *arg)
{
    struct batch_tx *t = arg;
    return db_fl_set(c, t->id, t->eta, t->fast);
}

long finish_lines_step(struct daemon *d)
{
    struct db_fl_batch rows[FL_MAX_BATCHES];
    struct finish_counts counts[FL_MAX_BATCHES];
    double left_results[FL_MAX_BATCHES];
    struct fl_tx t;
    long changed = 0;
    double flops_left = 0, capacity_eta;
    int i, r;

    memset(&t, 0, sizeof t);
    t.d = d;
    t.rows = rows;
    t.counts = counts;
    t.sp.cap = FINISH_MAX_HOSTS;
    t.sp.v = malloc(sizeof *t.sp.v * FINISH_MAX_HOSTS);
    t.sp.busy = malloc(sizeof *t.sp.busy * FINISH_MAX_HOSTS);
    if (!t.sp.v || !t.sp.busy) {
        free(t.sp.v);
        free(t.sp.busy);
        log_error("finish lines: out of memory");
        return DB_ERR;
    }
    r = db_transaction(d->db, "read the batches and hosts for the finish lines", read_body, &t);
    free(t.sp.v);
    free(t.sp.busy);
    if (r != DB_OK) {
        log_error("%s", db_error(d->db));
        return r;
    }
    /* the work all these batches still need, for those whose rate is unknown */
    for (i = 0; i < t.nbatches; i++) {
        left_results[i] = finish_line_left(&counts[i]);
        if (counts[i].fpops_per_result > 0 && isfinite(counts[i].fpops_per_result))
            flops_left += left_results[i] * counts[i].fpops_per_result;
    }
    capacity_eta = finish_line_eta_capacity(flops_left, t.sp.capacity);
    for (i = 0; i < t.nbatches; i++) {
        double left = finish_line_eta(&counts[i]);
        int from_rate = left > 0;
        struct batch_tx bt = { rows[i].id, 0, t.fast };
        /* while the rate's window reaches back to the batch's start it
         * trails (no result comes back in a job's first run), and the
         * hosts' speed is the better guess when it is the earlier one */
        if ((!from_rate || counts[i].window < FINISH_RATE_WINDOW) && capacity_eta > 0 &&
            (!from_rate || capacity_eta < left) && left_results[i] > 0) {
            left = capacity_eta;
            from_rate = 0;
            bt.fast = t.fast_busy;
        }
        bt.eta = left > 0 && left < 3650.0 * 86400 ? (int)d->now + (int)ceil(left) : 0;
        r = db_transaction(d->db, "store a batch's finish line", batch_body, &bt);
        if (r != DB_OK) {
            log_error("[batch#%d] %s", bt.id, db_error(d->db));
            continue;
        }
        log_debug("[batch#%d] finish line: %s%.0f s from now (%s), a fast host %.3g flops",
                  bt.id, bt.eta ? "" : "none (rate and hosts unknown), ",
                  bt.eta ? (double)bt.eta - (double)d->now : 0.0,
                  from_rate ? "its rate" : "the hosts' speed", bt.fast);
        changed++;
    }
    return changed;
}
