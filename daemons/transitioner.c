/*
 * transitioner.c - the transitioner daemon: moves workunits through their
 * lives (see doc/locality.md, "Daemons" and "Result outcomes and credit").
 *
 * A pass:
 *   1. workunits with a result IN_PROGRESS past its report_deadline
 *      (ind_res_deadline), then workunits with transition_time <= now
 *      (ind_wu_transition; the scheduler sets it when a result is
 *      reported): each in its own transaction, the workunit and its
 *      results locked, decided by tl_decide() (transition_logic.h) and the
 *      decision written: timeouts, credit to results, hosts and users,
 *      unsent leftovers cancelled, new results, canonical result or error,
 *      transition_time = never (until the next report or deadline);
 *   2. the cursors of workunits that finished (here, or with a validator
 *      by the validator, which hands them back): first_unfinished_job_num
 *      advances past finished jobs and remaining_credit is recomputed from
 *      the unfinished jobs (one transaction per cursor, after the
 *      workunits' commits, so that concurrent transitioners' finishes are
 *      all seen by the later recomputation);
 *   3. the batches that may be done: a locality batch whose cursors are
 *      all past their last job, a plain batch whose workunits are all
 *      finished, becomes COMPLETE (one transaction per batch, its row
 *      locked).
 * Before step 1, every TR_LOST_INTERVAL seconds: hosts silent far beyond
 * their rhythm are presumed gone and their workunits made due
 * (lost_hosts.h), so that step 1 gives them new results in the same pass.
 * After step 3, every FINISH_LINES_INTERVAL seconds: each active batch's
 * projected end, for the schedulers' finish line (finish_lines.h).
 * Every few minutes (and at the first pass) a sweep finds cursors and
 * batches whose step 2 or 3 was lost, e.g. by a crash between two
 * transactions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credit.h"
#include "db_validate.h"
#include "daemon.h"
#include "daemon_passes.h"
#include "db_admin.h"
#include "db_daemon.h"
#include "log.h"
#include "finish_lines.h"
#include "grant.h"
#include "lost_hosts.h"
#include "transition_logic.h"

#define TR_CHUNK 500              /* workunits listed at a time */
#define TR_MAX_RESULTS 256        /* results of one workunit we handle */
#define TR_SWEEP_INTERVAL 300     /* seconds between safety sweeps */
#define TR_NAME_TRIES 50          /* result names tried when one is taken */
#define TR_LOST_INTERVAL 60       /* seconds between scans for hosts presumed gone */

/* A set of ids (cursors, batches) touched in a chunk. */
struct idset {
    int *v;
    int n, cap;
};

static int idset_add(struct idset *s, int id)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->v[i] == id)
            return 0;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 32;
        int *v = realloc(s->v, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = id;
    return 0;
}

/* One workunit's transaction: input, the rows read, and the decision. */
struct wu_tx {
    struct daemon *d;
    int wuid;
    int found;
    struct db_tr_wu wu;
    struct db_tr_result res[TR_MAX_RESULTS];
    struct tl_result tl[TR_MAX_RESULTS];
    enum tl_action act[TR_MAX_RESULTS];
    const struct db_tr_result *sel[TR_MAX_RESULTS];
    int nres;
    struct tl_decision dec;
    double credit;
    int new_ids[TR_MAX_RESULTS];
    int nnew_made;
};

struct tr_state {
    struct wu_tx tx;
    struct idset cursors, batches;
    int ids[TR_CHUNK];
    time_t last_sweep;
    time_t last_lost_scan;
    time_t last_finish;           /* the last finish-lines step */
    long changes;             /* cursors advanced and batches completed */
};

static int grant_credit(struct db_conn *c, struct wu_tx *t)
{
    int n = 0, i;
    for (i = 0; i < t->nres; i++)
        if (t->act[i] == TL_GRANT)
            t->sel[n++] = &t->res[i];
    return grant_results(c, t->wuid, t->sel, n, t->credit, (double)t->d->now,
                         t->d->cfg.credit_half_life);
}

/* Create the new results "<wu name>__<n>", n counting on from the
 * results the workunit has (results are never deleted). */
static int create_results(struct db_conn *c, struct wu_tx *t)
{
    const struct db_tr_wu *w = &t->wu;
    int idx = t->nres, k, tries, r = DB_ERR;

    for (k = 0; k < t->dec.nnew; k++) {
        for (tries = 0; tries < TR_NAME_TRIES; tries++, idx++) {
            char name[DB_NAME_MAX + 16];
            int id = 0;
            snprintf(name, sizeof name, "%s__%d", w->name, idx);
            r = db_result_create(c, w->id, name, w->appid, w->batch, w->cursor_id, w->job_num,
                                 RS_UNSENT, (int)t->d->now, &id);
            if (r == DB_DUP)
                continue;
            if (r != DB_OK)
                return r;
            t->new_ids[t->nnew_made++] = id;
            idx++;
            break;
        }
        if (tries == TR_NAME_TRIES)
            return r;
    }
    return DB_OK;
}

static int wu_body(struct db_conn *c, void *arg)
{
    struct wu_tx *t = arg;
    struct tl_wu tw;
    double canonical_credit;
    int i, r;

    t->found = 0;
    t->nres = 0;
    t->nnew_made = 0;
    memset(&t->dec, 0, sizeof t->dec);
    r = db_tr_wu_lock(c, t->wuid, &t->wu);
    if (r == DB_NOTFOUND)
        return DB_OK;
    if (r != DB_OK)
        return r;
    t->found = 1;
    r = db_tr_results_lock(c, t->wuid, t->res, TR_MAX_RESULTS, &t->nres);
    if (r != DB_OK)
        return r;
    for (i = 0; i < t->nres; i++) {
        t->tl[i].id = t->res[i].id;
        t->tl[i].server_state = t->res[i].server_state;
        t->tl[i].outcome = t->res[i].outcome;
        t->tl[i].validate_state = t->res[i].validate_state;
        t->tl[i].received_time = t->res[i].received_time;
        t->tl[i].report_deadline = t->res[i].report_deadline;
        t->tl[i].replica_flags = t->res[i].replica_flags;
    }
    tw.min_quorum = t->wu.min_quorum;
    tw.target_nresults = t->wu.target_nresults;
    tw.max_error_results = t->wu.max_error_results;
    tw.max_total_results = t->wu.max_total_results;
    tw.max_success_results = t->wu.max_success_results;
    tw.validating = config_validating(&t->d->cfg);
    tw.canonical_resultid = t->wu.canonical_resultid;
    tw.error_mask = t->wu.error_mask;
    tl_decide(&tw, t->tl, t->nres, (int)t->d->now, t->act, &t->dec);
    t->credit = credit_of_fpops(t->wu.rsc_fpops_est);

    for (i = 0; i < t->nres; i++) {
        if (t->act[i] != TL_TIMEOUT)
            continue;
        r = db_tr_result_timeout(c, t->res[i].id);
        if (r != DB_OK)
            return r;
    }
    if (t->dec.ngrant && (r = grant_credit(c, t)) != DB_OK)
        return r;
    if (t->dec.ndidnt_need) {
        long long n = 0;
        r = db_tr_unsent_didnt_need(c, t->wuid, &n);
        if (r != DB_OK)
            return r;
    }
    if (t->dec.nnew && (r = create_results(c, t)) != DB_OK)
        return r;
    if (t->dec.need_validate && (r = db_va_need_validate(c, t->wuid)) != DB_OK)
        return r;
    canonical_credit = t->wu.canonical_credit;
    if (t->dec.canonical_resultid && !t->wu.canonical_resultid)
        canonical_credit = t->credit;
    return db_tr_wu_decided(c, t->wuid, t->dec.canonical_resultid, canonical_credit,
                            t->dec.error_mask, DB_TRANSITION_NEVER);
}

/* Log what a committed decision did. */
static void log_decision(const struct wu_tx *t)
{
    const struct db_tr_wu *w = &t->wu;
    const struct tl_decision *dec = &t->dec;
    int i;

    for (i = 0; i < t->nres; i++) {
        const struct db_tr_result *x = &t->res[i];
        if (t->act[i] == TL_TIMEOUT)
            log_info("[wu#%d] [result#%d] [host#%d] no reply by the deadline: NO_REPLY",
                     w->id, x->id, x->hostid);
        else if (t->act[i] == TL_GRANT)
            log_debug("[wu#%d] [result#%d] [host#%d] [user#%d] granted %.4g credits", w->id,
                      x->id, x->hostid, x->userid, t->credit);
    }
    if (dec->newly_finished && dec->canonical_resultid)
        log_debug("[wu#%d] canonical result [result#%d] (%d successes)", w->id,
                  dec->canonical_resultid, dec->nsuccess);
    else if (dec->newly_finished)
        log_info("[wu#%d] error 0x%x: %d errors (max %d), %d results (max %d)", w->id,
                 dec->error_mask, dec->nerror, w->max_error_results, dec->ntotal,
                 w->max_total_results);
    for (i = 0; i < t->nnew_made; i++)
        log_info("[wu#%d] new result [result#%d] (%d unsent, %d in progress, %d successes, "
                 "%d errors)", w->id, t->new_ids[i], dec->nunsent, dec->ninprogress,
                 dec->nsuccess, dec->nerror);
    if (dec->need_validate)
        log_debug("[wu#%d] ready for validation (%d successes)", w->id, dec->nsuccess);
    if (dec->ndidnt_need)
        log_debug("[wu#%d] %d unsent results no longer needed", w->id, dec->ndidnt_need);
}

/* Decide one workunit.  Returns 1 when handled, 0 when gone, < 0 on error. */
static int transition_wu(struct daemon *d, struct tr_state *s, int wuid)
{
    struct wu_tx *t = &s->tx;
    char what[64];
    int r;

    t->d = d;
    t->wuid = wuid;
    snprintf(what, sizeof what, "transition [wu#%d]", wuid);
    r = db_transaction(d->db, what, wu_body, t);
    if (r != DB_OK) {
        log_error("[wu#%d] %s", wuid, db_error(d->db));
        return r;
    }
    if (!t->found)
        return 0;
    log_decision(t);
    if (t->dec.progressed) {
        if (t->wu.cursor_id > 0)
            r = idset_add(&s->cursors, t->wu.cursor_id);
        else
            r = idset_add(&s->batches, t->wu.batch);
        if (r < 0) {
            log_error("out of memory");
            return DB_ERR;
        }
    }
    return 1;
}

/* ---- cursors ---- */

struct cursor_tx {
    int cursor_id;
    struct db_tr_cursor cur;
    int found, changed, new_fu;
    double remaining;
};

static int cursor_body(struct db_conn *c, void *arg)
{
    struct cursor_tx *t = arg;
    int fu, job = 0, r;
    double fpops = 0;

    t->found = t->changed = 0;
    r = db_tr_cursor_lock(c, t->cursor_id, &t->cur);
    if (r == DB_NOTFOUND)
        return DB_OK;
    if (r != DB_OK)
        return r;
    t->found = 1;
    fu = t->cur.first_unfinished_job_num;
    if (fu <= t->cur.last_job_num) {
        r = db_tr_first_unfinished(c, t->cursor_id, fu, &job);
        if (r == DB_NOTFOUND)
            job = t->cur.first_ungenerated_job_num;   /* jobs not generated are unfinished */
        else if (r != DB_OK)
            return r;
        if (job > t->cur.first_ungenerated_job_num)
            job = t->cur.first_ungenerated_job_num;
        if (job > fu)
            fu = job;
    }
    if (fu > t->cur.last_job_num) {
        t->remaining = 0;
    } else {
        r = db_tr_unfinished_fpops(c, t->cursor_id, t->cur.batch_id, fu, t->cur.last_job_num,
                                   &fpops);
        if (r != DB_OK)
            return r;
        t->remaining = credit_of_fpops(fpops);
    }
    t->new_fu = fu;
    if (fu == t->cur.first_unfinished_job_num && t->remaining == t->cur.remaining_credit)
        return DB_OK;
    t->changed = 1;
    return db_tr_cursor_progress(c, t->cursor_id, fu, t->remaining);
}

/* Recompute one cursor's progress; returns 1 if it changed, 0 if not,
 * < 0 on error.  A cursor past its last job puts its batch in s->batches. */
static int update_cursor(struct daemon *d, struct tr_state *s, int cursor_id)
{
    struct cursor_tx t;
    char what[64];
    int r;

    memset(&t, 0, sizeof t);
    t.cursor_id = cursor_id;
    snprintf(what, sizeof what, "update progress of [cursor#%d]", cursor_id);
    r = db_transaction(d->db, what, cursor_body, &t);
    if (r != DB_OK) {
        log_error("[cursor#%d] %s", cursor_id, db_error(d->db));
        return r;
    }
    if (!t.found || !t.changed)
        return 0;
    if (t.new_fu != t.cur.first_unfinished_job_num)
        log_info("[cursor#%d] [batch#%d] first unfinished job %d -> %d (last %d), "
                 "remaining credit %.6g", cursor_id, t.cur.batch_id,
                 t.cur.first_unfinished_job_num, t.new_fu, t.cur.last_job_num, t.remaining);
    else
        log_debug("[cursor#%d] remaining credit %.6g -> %.6g", cursor_id,
                  t.cur.remaining_credit, t.remaining);
    if (t.new_fu > t.cur.last_job_num && idset_add(&s->batches, t.cur.batch_id) < 0) {
        log_error("out of memory");
        return DB_ERR;
    }
    return 1;
}

/* ---- batches ---- */

struct batch_tx {
    struct daemon *d;
    int batch_id;
    int locality, completed;
};

static int batch_body(struct db_conn *c, void *arg)
{
    struct batch_tx *t = arg;
    long long unfinished = 1;
    int state = 0, r;

    t->completed = 0;
    r = db_tr_batch_lock(c, t->batch_id, &state, &t->locality);
    if (r == DB_NOTFOUND || (r == DB_OK && state != BS_IN_PROGRESS))
        return DB_OK;
    if (r != DB_OK)
        return r;
    r = db_tr_batch_unfinished(c, t->batch_id, t->locality, &unfinished);
    if (r != DB_OK || unfinished > 0)
        return r;
    return db_tr_batch_complete(c, t->batch_id, (int)t->d->now, &t->completed);
}

static int check_batch(struct daemon *d, int batch_id)
{
    struct batch_tx t;
    char what[64];
    int r;

    memset(&t, 0, sizeof t);
    t.d = d;
    t.batch_id = batch_id;
    snprintf(what, sizeof what, "check completion of [batch#%d]", batch_id);
    r = db_transaction(d->db, what, batch_body, &t);
    if (r != DB_OK) {
        log_error("[batch#%d] %s", batch_id, db_error(d->db));
        return r;
    }
    if (t.completed)
        log_info("[batch#%d] complete (%s batch)", batch_id, t.locality ? "locality" : "plain");
    return t.completed;
}

/* Steps 2 and 3 for what the workunits of a chunk touched; counts the
 * changes in s->changes (failures are logged and found again by the
 * sweep). */
static void flush_touched(struct daemon *d, struct tr_state *s)
{
    int i, r;
    for (i = 0; i < s->cursors.n; i++) {
        r = update_cursor(d, s, s->cursors.v[i]);
        if (r > 0)
            s->changes += r;
    }
    s->cursors.n = 0;
    for (i = 0; i < s->batches.n; i++) {
        r = check_batch(d, s->batches.v[i]);
        if (r > 0)
            s->changes += r;
    }
    s->batches.n = 0;
}

/* ---- the pass ---- */

struct list_tx {
    struct daemon *d;
    int which;                /* 0 deadlines, 1 due, 2 stale cursors, 3 stale batches */
    int *ids, n;
};

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *t = arg;
    struct daemon *d = t->d;
    int now = (int)d->now;
    t->n = 0;
    switch (t->which) {
    case 0: return db_tr_deadline_wus(c, now, d->mod_n, d->mod_i, TR_CHUNK, t->ids, &t->n);
    case 1: return db_tr_due_wus(c, now, d->mod_n, d->mod_i, TR_CHUNK, t->ids, &t->n);
    case 2: return db_tr_stale_cursors(c, d->mod_n, d->mod_i, TR_CHUNK, t->ids, &t->n);
    default: return db_tr_stale_batches(c, d->mod_n, d->mod_i, TR_CHUNK, t->ids, &t->n);
    }
}

static int list_ids(struct daemon *d, struct tr_state *s, int which, int *n)
{
    static const char *const names[] = { "list workunits past a deadline",
                                         "list workunits due", "list stale cursors",
                                         "list finished batches" };
    struct list_tx t = { d, which, s->ids, 0 };
    int r = db_transaction(d->db, names[which], list_body, &t);
    *n = t.n;
    if (r != DB_OK)
        log_error("%s", db_error(d->db));
    return r;
}

/* Work off one list of workunits in chunks.  Adds to *done and *failed;
 * returns a negative status if a listing failed. */
static int workunits(struct daemon *d, struct tr_state *s, int which, long *done, long *failed)
{
    for (;;) {
        int n = 0, i, handled = 0, r;
        r = list_ids(d, s, which, &n);
        if (r != DB_OK)
            return r;
        for (i = 0; i < n && !daemon_should_stop(d); i++) {
            r = transition_wu(d, s, s->ids[i]);
            if (r < 0)
                (*failed)++;
            else
                handled++;
        }
        flush_touched(d, s);
        *done += handled;
        /* all failed (they would come back first), a short list, or a stop */
        if (handled == 0 || n < TR_CHUNK || daemon_should_stop(d))
            return DB_OK;
    }
}

static void sweep(struct daemon *d, struct tr_state *s)
{
    int n = 0, i;
    s->last_sweep = d->now;
    if (list_ids(d, s, 2, &n) == DB_OK)
        for (i = 0; i < n; i++)
            if (idset_add(&s->cursors, s->ids[i]) < 0)
                break;
    flush_touched(d, s);
    if (list_ids(d, s, 3, &n) == DB_OK)
        for (i = 0; i < n; i++)
            if (idset_add(&s->batches, s->ids[i]) < 0)
                break;
    flush_touched(d, s);
}

long transitioner_pass(struct daemon *d)
{
    struct tr_state *s = d->state;
    long done = 0, failed = 0;
    int r;

    s->changes = 0;
    if (s->last_lost_scan == 0 || d->now - s->last_lost_scan >= TR_LOST_INTERVAL) {
        long lost = lost_hosts_step(d);
        s->last_lost_scan = d->now;
        if (lost > 0)
            s->changes += lost;
    }
    r = workunits(d, s, 0, &done, &failed);
    if (r == DB_OK && !daemon_should_stop(d))
        r = workunits(d, s, 1, &done, &failed);
    if (r == DB_OK && !daemon_should_stop(d) &&
        (s->last_sweep == 0 || d->now - s->last_sweep >= TR_SWEEP_INTERVAL))
        sweep(d, s);
    if (r == DB_OK && !daemon_should_stop(d) && d->cfg.finish_line_slack > 0 &&
        (s->last_finish == 0 || d->now - s->last_finish >= FINISH_LINES_INTERVAL)) {
        finish_lines_step(d);       /* failures are logged; the next step redoes it */
        s->last_finish = d->now;
    }
    if (failed)
        log_warn("%ld workunits could not be handled in this pass (see above)", failed);
    if (r != DB_OK || (failed && done == 0))
        return r != DB_OK ? r : DB_ERR;
    return done + s->changes;
}

void *transitioner_state_new(void)
{
    return calloc(1, sizeof(struct tr_state));
}

void transitioner_state_free(void *state)
{
    struct tr_state *s = state;
    if (!s)
        return;
    free(s->cursors.v);
    free(s->batches.v);
    free(s);
}

#ifndef DAEMON_NO_MAIN
int main(int argc, char **argv)
{
    void *s = transitioner_state_new();
    int rc;
    if (!s) {
        fprintf(stderr, "transitioner: out of memory\n");
        return 1;
    }
    rc = daemon_main(argc, argv, "transitioner",
                     "The locsched transitioner: times out results past their deadline,\n"
                     "decides workunits (canonical result and credit, errors, new results),\n"
                     "advances cursors and completes batches.",
                     transitioner_pass, s);
    transitioner_state_free(s);
    return rc;
}
#endif
