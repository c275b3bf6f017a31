/*
 * work_generator.c - the work generator daemon: keeps work_cushion unsent
 * jobs in every cursor of the IN_PROGRESS locality batches (see
 * doc/locality.md, "Daemons").
 *
 * Per cursor, one transaction: read the cursor, count its jobs with an
 * unsent result, and when they are fewer than the cushion, or when the
 * cursor's frontier (next_stretch_job_num, where the next stretch of a
 * member starts) is less than a cushion behind first_ungenerated_job_num,
 * turn the next jobs from first_ungenerated_job_num on into workunits (fields from the
 * batch and batch_job; input files [first_file_num, first_file_num +
 * nfiles) of the batch) with target_nresults UNSENT results each, then
 * advance first_ungenerated_job_num if it has not moved meanwhile (else
 * roll back: two generators on one cursor is a misconfigured --mod).
 * The cursor row is locked only by that last statement, so that
 * schedulers updating its team figures do not wait for a whole
 * generation.  Names: workunit
 * "<batch name>__<job_num>", result "<workunit name>__<n>".  Batch names
 * are unique and job numbers are unique in a batch, so these names are
 * unique among generated workunits; a workunit of another kind could
 * still hold such a name (a plain batch named "x_" with a million jobs),
 * and then the workunit is named "<batch name>__<job_num>__b<batch id>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "daemon_passes.h"
#include "db_admin.h"
#include "db_daemon.h"
#include "log.h"

/* Most jobs generated for one cursor in one transaction: keeps
 * transactions (and the locks they hold) short when the cushion is big. */
#define WG_MAX_CHUNK 500

struct cursor_list {
    struct db_wg_cursor *v;
    int n, cap;
};

static int add_cursor(void *ctx, const struct db_wg_cursor *r)
{
    struct cursor_list *l = ctx;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        struct db_wg_cursor *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *r;
    return 0;
}

struct list_tx {
    struct daemon *d;
    struct cursor_list *l;
};

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *t = arg;
    t->l->n = 0;
    return db_wg_cursors(c, t->d->mod_n, t->d->mod_i, add_cursor, t->l);
}

struct job_list {
    struct db_wg_job *v;
    int n, cap;
};

static int add_job(void *ctx, const struct db_wg_job *j)
{
    struct job_list *l = ctx;
    if (l->n >= l->cap)
        return 1;
    l->v[l->n++] = *j;
    return 0;
}

/* One cursor's generation: input, and what was done (reset at each try). */
struct gen_tx {
    struct daemon *d;
    const struct db_wg_cursor *cur;
    struct job_list jobs;
    int from, to;             /* generated range [from, to) */
    int renamed;              /* workunits that got the long name */
};

/* Create the workunit of one job and its results. */
static int create_job(struct db_conn *c, struct gen_tx *t, const struct db_wg_job *j)
{
    const struct db_wg_cursor *cur = t->cur;
    struct db_workunit_new w;
    char wname[DB_NAME_MAX + 32], rname[DB_NAME_MAX + 48];
    int wuid = 0, k, r;

    /* room for "__<job>__b<batch id>" and "__<n>" within VARCHAR(254) */
    if (strlen(cur->batch_name) > 200) {
        log_error("[cursor#%d] [batch#%d] batch name too long for workunit names", cur->id,
                  cur->batch_id);
        return DB_ABORT;
    }
    snprintf(wname, sizeof wname, "%s__%d", cur->batch_name, j->job_num);
    memset(&w, 0, sizeof w);
    w.appid = cur->appid;
    w.batch = cur->batch_id;
    w.cursor_id = cur->id;
    w.job_num = j->job_num;
    w.first_file_num = j->first_file_num;
    w.nfiles = j->nfiles;
    w.delay_bound = cur->delay_bound;
    w.min_quorum = cur->min_quorum;
    w.target_nresults = cur->target_nresults;
    w.max_error_results = cur->max_error_results;
    w.max_total_results = cur->max_total_results;
    w.name = wname;
    w.command_line = j->command_line;
    w.rsc_fpops_est = j->rsc_fpops_est;
    w.rsc_fpops_bound = j->rsc_fpops_est * 20;   /* as create_batch does */
    w.rsc_memory_bound = cur->rsc_memory_bound;
    w.rsc_disk_bound = cur->rsc_disk_bound;
    w.max_out_nbytes = cur->max_out_nbytes;
    r = db_workunit_create(c, &w, (int)t->d->now, &wuid);
    if (r == DB_DUP) {
        int ob = 0, oc = 0, oj = 0;
        r = db_wg_wu_by_name(c, wname, &ob, &oc, &oj);
        if (r != DB_OK)
            return r == DB_NOTFOUND ? DB_RETRY : r;
        if (ob == cur->batch_id && oj == j->job_num) {
            log_error("[cursor#%d] [batch#%d] job %d already has a workunit (%s) although "
                      "first_ungenerated_job_num is %d: not generating it twice",
                      cur->id, cur->batch_id, j->job_num, wname, t->from);
            return DB_ABORT;
        }
        snprintf(wname, sizeof wname, "%s__%d__b%d", cur->batch_name, j->job_num,
                 cur->batch_id);
        log_warn("[cursor#%d] job %d: a workunit of [batch#%d] holds the usual name; "
                 "naming this one %s", cur->id, j->job_num, ob, wname);
        r = db_workunit_create(c, &w, (int)t->d->now, &wuid);
        t->renamed++;
    }
    if (r != DB_OK)
        return r;
    for (k = 0; k < cur->target_nresults; k++) {
        snprintf(rname, sizeof rname, "%s__%d", wname, k);
        r = db_result_create(c, wuid, rname, cur->appid, cur->batch_id, cur->id, j->job_num,
                             RS_UNSENT, (int)t->d->now, NULL);
        if (r != DB_OK)
            return r;
    }
    log_debug("[cursor#%d] [wu#%d] %s: job %d, files %d..%d, %d results", cur->id, wuid,
              wname, j->job_num, j->first_file_num, j->first_file_num + j->nfiles - 1,
              cur->target_nresults);
    return DB_OK;
}

static int gen_body(struct db_conn *c, void *arg)
{
    struct gen_tx *t = arg;
    const struct db_wg_cursor *cur = t->cur;
    long long unsent = 0;
    int fug = 0, last = 0, frontier = 0, k, ahead, i, r;

    t->from = t->to = 0;
    t->renamed = 0;
    t->jobs.n = 0;
    r = db_wg_cursor_read(c, cur->id, &fug, &last, &frontier);
    if (r == DB_NOTFOUND)
        return DB_OK;             /* gone since the listing: nothing to do */
    if (r != DB_OK)
        return r;
    if (fug > last)
        return DB_OK;
    r = db_wg_unsent_jobs(c, cur->id, &unsent);
    if (r != DB_OK)
        return r;
    /* the members' stretches reach up to the frontier: keep the jobs up
     * to a cushion past it generated, so that a new stretch has work */
    ahead = frontier > fug - t->d->cfg.work_cushion ? frontier + t->d->cfg.work_cushion - fug : 0;
    if (unsent >= t->d->cfg.work_cushion && ahead <= 0)
        return DB_OK;
    k = t->d->cfg.work_cushion - (int)unsent;
    if (k < ahead)
        k = ahead;
    if (k > last - fug + 1)
        k = last - fug + 1;
    if (k > WG_MAX_CHUNK)
        k = WG_MAX_CHUNK;
    t->jobs.cap = k;
    r = db_wg_jobs(c, cur->batch_id, fug, fug + k, add_job, &t->jobs);
    if (r != DB_OK)
        return r;
    if (t->jobs.n != k) {
        log_error("[cursor#%d] [batch#%d] jobs %d..%d: only %d of %d batch_job rows exist",
                  cur->id, cur->batch_id, fug, fug + k - 1, t->jobs.n, k);
        return DB_ABORT;
    }
    t->from = fug;
    for (i = 0; i < k; i++) {
        if (t->jobs.v[i].job_num != fug + i) {
            log_error("[cursor#%d] [batch#%d] job %d has no batch_job row", cur->id,
                      cur->batch_id, fug + i);
            return DB_ABORT;
        }
        r = create_job(c, t, &t->jobs.v[i]);
        if (r != DB_OK)
            return r;
    }
    t->to = fug + k;
    r = db_wg_generated(c, cur->id, fug, fug + k);
    if (r != DB_OK && r != DB_ABORT)
        t->to = t->from;
    return r;
}

/* Generate for one cursor.  Returns jobs generated, or a negative status. */
static long generate(struct daemon *d, const struct db_wg_cursor *cur, struct db_wg_job *buf)
{
    struct gen_tx t;
    char what[64];
    int r;

    memset(&t, 0, sizeof t);
    t.d = d;
    t.cur = cur;
    t.jobs.v = buf;
    snprintf(what, sizeof what, "generate jobs of [cursor#%d]", cur->id);
    r = db_transaction(d->db, what, gen_body, &t);
    if (r == DB_ABORT && t.to > t.from) {
        log_warn("[cursor#%d] [batch#%d] %s: rolled back (is another work_generator "
                 "running with the same --mod?)", cur->id, cur->batch_id, db_error(d->db));
        return DB_ABORT;
    }
    if (r == DB_ABORT)
        return DB_ABORT;          /* logged by the body */
    if (r != DB_OK) {
        log_error("[cursor#%d] [batch#%d] %s", cur->id, cur->batch_id, db_error(d->db));
        return r;
    }
    if (t.to > t.from)
        log_info("[cursor#%d] [batch#%d] generated jobs %d..%d (%d results each)%s", cur->id,
                 cur->batch_id, t.from, t.to - 1, cur->target_nresults,
                 t.renamed ? " (some with the long name)" : "");
    return t.to - t.from;
}

long work_generator_pass(struct daemon *d)
{
    struct cursor_list l = { NULL, 0, 0 };
    struct list_tx lt = { d, &l };
    struct db_wg_job *buf;
    long total = 0;
    int i, r, failed = 0;

    buf = malloc(sizeof *buf * WG_MAX_CHUNK);
    if (!buf) {
        log_error("out of memory");
        return DB_ERR;
    }
    r = db_transaction(d->db, "list cursors", list_body, &lt);
    if (r != DB_OK) {
        log_error("%s", db_error(d->db));
        free(buf);
        free(l.v);
        return r;
    }
    for (i = 0; i < l.n && !daemon_should_stop(d); i++) {
        long n = generate(d, &l.v[i], buf);
        if (n < 0)
            failed++;
        else
            total += n;
    }
    free(buf);
    free(l.v);
    /* a cursor that fails keeps failing: report it, but let the others go on */
    if (failed && total == 0)
        return DB_ERR;
    return total;
}

#ifndef DAEMON_NO_MAIN
int main(int argc, char **argv)
{
    return daemon_main(argc, argv, "work_generator",
                       "The locsched work generator: keeps work_cushion unsent jobs in each\n"
                       "cursor of the locality batches in progress, creating workunits and\n"
                       "their results from the batch's job description.",
                       work_generator_pass, NULL);
}
#endif
