/*
 * finish_lines.c - the batches' finish lines (finish_lines.h).  Reads are
 * plain counts from indexes (no locks), all in one transaction; each
 * batch's row is then written in a transaction of its own.
 */
#include "finish_lines.h"

#include <stdlib.h>
#include <string.h>

#include "db_finish.h"
#include "finish_line.h"
#include "log.h"

#define FL_MAX_BATCHES 256

/* Every host seen lately goes to the finish line's tally of speeds. */
static int add_speed(void *vctx, const struct db_fl_host *h)
{
    return finish_line_add_host(vctx, h->p_fpops, h->p_ncpus, h->on_frac, h->active_frac,
                                h->busy);
}

struct fl_tx {
    struct daemon *d;
    struct db_fl_batch *rows;      /* the active batches ... */
    struct finish_counts *counts;  /* ... and their counts, by the same index */
    int nbatches;
    struct finish_speeds sp;
    struct finish_hosts hosts;
};

/* The counts of one batch (finish_line.h's struct finish_counts). */
static int read_counts(struct db_conn *c, int now, const struct db_fl_batch *b,
                       struct finish_counts *fc)
{
    long long finished = 0, partial = 0;
    int since = now - FINISH_RATE_WINDOW, r;

    memset(fc, 0, sizeof *fc);
    if (since < b->create_time)
        since = b->create_time;
    r = db_fl_result_counts(c, b->id, since, &fc->in_progress, &fc->recent);
    if (r == DB_OK)
        r = db_fl_job_counts(c, b->id, &finished, &partial);
    if (r != DB_OK)
        return r;
    fc->needed = (long long)b->njobs * b->min_quorum;
    /* an unfinished job's successes count: with 2 of 3 back it needs 1 */
    fc->succeeded = finished * b->min_quorum + partial;
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
    if (r == DB_OK)
        finish_line_hosts(&t->sp, &t->hosts);
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
    struct fl_tx t;
    long changed = 0;
    double flops_left;
    int i, r;

    memset(&t, 0, sizeof t);
    t.d = d;
    t.rows = rows;
    t.counts = counts;
    t.sp.cap = FINISH_MAX_HOSTS;
    t.sp.all = malloc(sizeof *t.sp.all * FINISH_MAX_HOSTS);
    t.sp.busy = malloc(sizeof *t.sp.busy * FINISH_MAX_HOSTS);
    if (!t.sp.all || !t.sp.busy) {
        free(t.sp.all);
        free(t.sp.busy);
        log_error("finish lines: out of memory");
        return DB_ERR;
    }
    r = db_transaction(d->db, "read the batches and hosts for the finish lines", read_body, &t);
    free(t.sp.all);
    free(t.sp.busy);
    if (r != DB_OK) {
        log_error("%s", db_error(d->db));
        return r;
    }
    /* the work all these batches still need, for those whose rate is unknown */
    flops_left = finish_line_flops_left(counts, t.nbatches);
    for (i = 0; i < t.nbatches; i++) {
        struct finish_choice fc;
        struct batch_tx bt;

        finish_line_choose(&counts[i], flops_left, &t.hosts, (long)d->now, &fc);
        bt.id = rows[i].id;
        bt.eta = fc.eta;
        bt.fast = fc.fast_flops;
        r = db_transaction(d->db, "store a batch's finish line", batch_body, &bt);
        if (r != DB_OK) {
            log_error("[batch#%d] %s", bt.id, db_error(d->db));
            continue;
        }
        log_debug("[batch#%d] finish line: %s%.0f s from now (%s), a fast host %.3g flops",
                  bt.id, bt.eta ? "" : "none (rate and hosts unknown), ",
                  bt.eta ? (double)bt.eta - (double)d->now : 0.0,
                  fc.from_rate ? "its rate" : "the hosts' speed", bt.fast);
        changed++;
    }
    return changed;
}
