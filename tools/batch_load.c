/*
 * batch_load.c - a batch's cursors, job counts and job states from the
 * database into a struct br_batch (batch_load.h).
 */
#include "batch_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bl_init(struct br_batch *x, const struct db_batch_row *r)
{
    memset(x, 0, sizeof *x);
    x->id = r->id;
    snprintf(x->name, sizeof x->name, "%s", r->name);
    x->state = r->state;
    x->locality = r->locality;
    x->njobs = r->njobs;
    x->nfiles = r->nfiles;
    br_runs_init(&x->runs);
}

void bl_free(struct br_batch *b)
{
    free(b->cursors);
    b->cursors = NULL;
    b->ncursors = 0;
    br_runs_free(&b->runs);
}

struct cursor_list {
    struct br_batch *b;
    int cap;
};

static int cursor_row(void *ctx, const struct db_batch_cursor_row *r)
{
    struct cursor_list *l = ctx;
    struct br_batch *b = l->b;
    struct br_cursor *c;
    if (b->ncursors == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        struct br_cursor *v = realloc(b->cursors, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        b->cursors = v;
        l->cap = cap;
    }
    c = &b->cursors[b->ncursors++];
    memset(c, 0, sizeof *c);
    c->id = r->id;
    c->first_job_num = r->first_job_num;
    c->last_job_num = r->last_job_num;
    c->first_unfinished_job_num = r->first_unfinished_job_num;
    c->first_ungenerated_job_num = r->first_ungenerated_job_num;
    c->nhosts = r->nhosts;
    c->expavg_credit = r->expavg_credit;
    c->max_host_credit = r->max_host_credit;
    c->remaining_credit = r->remaining_credit;
    return 0;
}

static int counts_row(void *ctx, const struct db_job_counts *r)
{
    struct br_batch *b = ctx;
    int i;
    for (i = 0; i < b->ncursors; i++) {
        if (b->cursors[i].id == r->cursor_id) {
            b->cursors[i].done += r->done;
            b->cursors[i].in_progress += r->in_progress;
            return 0;
        }
    }
    b->other_done += r->done;
    b->other_in_progress += r->in_progress;
    return 0;
}

static int state_row(void *ctx, int job_num, int state)
{
    struct br_batch *b = ctx;
    int s = state == DB_JOB_DONE ? BR_DONE : state == DB_JOB_IN_PROGRESS ? BR_IN_PROGRESS
                                                                        : BR_UNSENT;
    return br_runs_add(&b->runs, job_num, s) < 0 ? DB_ERR : 0;
}

/* Read the cursors, counts and (with_states) job states of batch b. */
int bl_load(struct db_conn *db, struct br_batch *b, int with_states, const char *prog)
{
    struct cursor_list cl = { b, 0 };
    int r = db_batch_cursors(db, b->id, cursor_row, &cl);
    if (r == DB_OK)
        r = db_batch_job_counts(db, b->id, counts_row, b);
    if (r == DB_OK && with_states) {
        r = db_batch_job_states(db, b->id, state_row, b);
        if (r == DB_OK && br_runs_finish(&b->runs, b->njobs) < 0)
            r = DB_ERR;
    }
    if (r != DB_OK)
        fprintf(stderr, "%s: batch '%s' [batch#%d]: %s\n", prog, b->name, b->id,
                b->runs.oom ? "out of memory" : db_error(db));
    return r;
}

