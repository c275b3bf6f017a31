/*
 * file_deleter.c - the file deleter: deletes the files nothing needs any
 * more (doc/admin-guide.md, "Outputs").
 *
 * Outputs: for each workunit READY for file deletion (file_delete_state
 * 1, set by the assimilator once its outputs were handed over), the
 * output file RESULT_0 of each of its results that is over is deleted
 * from the upload folder and the result marked DONE (2); a file already
 * gone is logged and marked DONE as well, one that cannot be deleted is
 * logged and marked ERROR (3).  When every result of the workunit is DONE
 * or ERROR the workunit is DONE; results still in progress (a late
 * replica) keep it READY, and a later pass deletes their files once they
 * are over.
 *
 * Inputs: a batch's input files in the download folder (its rows of the
 * file table, without an external url) are deleted once the batch is
 * RETIRED and no job needs them (no unfinished workunit, no result unsent
 * or in progress); then batch.file_delete_state becomes DONE.  The
 * deletion is by name and may be repeated after a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assimilate_io.h"
#include "assimilate_logic.h"
#include "daemon.h"
#include "db_assim.h"
#include "log.h"

#define FD_CHUNK 500           /* workunits listed at a time */
#define FD_FILE_CHUNK 1000     /* input files listed at a time */
#define FD_BATCHES 16          /* retired batches per pass */
#define FD_MAX_RESULTS 64      /* results of one workunit handled per pass */

struct res_list {
    struct db_fd_result v[FD_MAX_RESULTS];
    int n;
};

static int add_result(void *ctx, const struct db_fd_result *r)
{
    struct res_list *l = ctx;
    if (l->n >= FD_MAX_RESULTS)
        return 1;
    l->v[l->n++] = *r;
    return 0;
}

struct wu_tx {
    int wuid;
    struct res_list res;
    int state[FD_MAX_RESULTS];    /* new file_delete_state, or -1 */
    long long wu_done;
};

static int read_body(struct db_conn *c, void *arg)
{
    struct wu_tx *t = arg;
    t->res.n = 0;
    return db_fd_results(c, t->wuid, add_result, &t->res);
}

static int mark_body(struct db_conn *c, void *arg)
{
    struct wu_tx *t = arg;
    int i, r;
    t->wu_done = 0;
    for (i = 0; i < t->res.n; i++) {
        if (t->state[i] < 0)
            continue;
        if ((r = db_fd_result_set(c, t->res.v[i].id, t->state[i])) != DB_OK)
            return r;
    }
    return db_fd_wu_done(c, t->wuid, &t->wu_done);
}

/* Delete the outputs of one workunit's results that are over.  Returns
 * the files deleted plus 1 if the workunit is now DONE, or a negative
 * status. */
static long delete_outputs(struct daemon *d, struct wu_tx *t, int wuid)
{
    long deleted = 0;
    int i, r;

    t->wuid = wuid;
    r = db_transaction(d->db, "read a workunit's results", read_body, t);
    if (r != DB_OK) {
        log_error("[wu#%d] %s", wuid, db_error(d->db));
        return r;
    }
    for (i = 0; i < t->res.n; i++) {
        const struct db_fd_result *res = &t->res.v[i];
        char name[AS_NAME_MAX + 16], err[1200];
        t->state[i] = -1;
        if (res->server_state != 5 || res->file_delete_state == FD_DONE ||
            res->file_delete_state == FD_ERROR)
            continue;
        if (!as_safe_name(res->name) || as_upload_name(name, sizeof name, res->name, 0) < 0) {
            log_error("[wu#%d] [result#%d] name is not a plain file name: files not deleted",
                      wuid, res->id);
            t->state[i] = FD_ERROR;
            continue;
        }
        r = aio_unlink(d->cfg.upload_dir, name, err, sizeof err);
        if (r == AIO_OK) {
            log_debug("[wu#%d] [result#%d] deleted %s", wuid, res->id, name);
            deleted++;
            t->state[i] = FD_DONE;
        } else if (r == AIO_MISSING) {
            if (res->outcome == 1)
                log_info("[wu#%d] [result#%d] output %s was already gone: marked deleted",
                         wuid, res->id, name);
            t->state[i] = FD_DONE;
        } else {
            log_error("[wu#%d] [result#%d] %s: marked as a deletion error", wuid, res->id, err);
            t->state[i] = FD_ERROR;
        }
    }
    r = db_transaction(d->db, "mark a workunit's files deleted", mark_body, t);
    if (r != DB_OK) {
        log_error("[wu#%d] %s", wuid, db_error(d->db));
        return r;
    }
    if (t->wu_done)
        log_debug("[wu#%d] files deleted", wuid);
    return deleted + (t->wu_done ? 1 : 0);
}

struct list_tx {
    struct daemon *d;
    int after, n;
    int ids[FD_CHUNK];
};

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *l = arg;
    return db_fd_wus(c, l->d->mod_n, l->d->mod_i, l->after, FD_CHUNK, l->ids, &l->n);
}

static long outputs_pass(struct daemon *d)
{
    struct list_tx *l = malloc(sizeof *l);
    struct wu_tx *t = malloc(sizeof *t);
    long total = 0;
    int i, r = DB_OK;

    if (!l || !t) {
        free(l);
        free(t);
        log_error("out of memory");
        return DB_ERR;
    }
    l->d = d;
    l->after = 0;
    do {
        r = db_transaction(d->db, "list workunits ready for file deletion", list_body, l);
        if (r != DB_OK) {
            log_error("%s", db_error(d->db));
            break;
        }
        for (i = 0; i < l->n && !daemon_should_stop(d); i++) {
            long n = delete_outputs(d, t, l->ids[i]);
            if (n > 0)
                total += n;
        }
        if (l->n > 0)
            l->after = l->ids[l->n - 1];
    } while (l->n == FD_CHUNK && !daemon_should_stop(d));
    free(l);
    free(t);
    return r != DB_OK ? r : total;
}

/* ---- input files of retired batches ---- */

struct files_ctx {
    struct daemon *d;
    int batch_id, last_id, n;
    long deleted, missing, failed;
};

static int file_row(void *vctx, int id, const char *name, const char *url)
{
    struct files_ctx *x = vctx;
    char err[1200];
    int r;
    x->last_id = id;
    x->n++;
    if (url[0])                    /* served from elsewhere: not ours */
        return 0;
    if (!as_safe_name(name)) {
        log_error("[batch#%d] [file#%d] name is not a plain file name: not deleted",
                  x->batch_id, id);
        x->failed++;
        return 0;
    }
    r = aio_unlink(x->d->cfg.download_dir, name, err, sizeof err);
    if (r == AIO_OK)
        x->deleted++;
    else if (r == AIO_MISSING)
        x->missing++;
    else {
        log_error("[batch#%d] [file#%d] %s", x->batch_id, id, err);
        x->failed++;
    }
    return 0;
}

static int files_body(struct db_conn *c, void *arg)
{
    struct files_ctx *x = arg;
    int after = x->last_id;
    x->n = 0;
    return db_fd_files(c, x->batch_id, after, FD_FILE_CHUNK, file_row, x);
}

static int batch_done_body(struct db_conn *c, void *arg)
{
    return db_fd_batch_done(c, *(int *)arg);
}

static int batches_body(struct db_conn *c, void *arg)
{
    struct list_tx *l = arg;
    struct db_fd_batch *b = (struct db_fd_batch *)(l + 1);
    return db_fd_batches(c, l->d->mod_n, l->d->mod_i, FD_BATCHES, b, &l->n);
}

static long inputs_pass(struct daemon *d)
{
    struct {
        struct list_tx l;
        struct db_fd_batch b[FD_BATCHES];
    } *s = malloc(sizeof *s);
    long total = 0;
    int i, r;

    if (!s) {
        log_error("out of memory");
        return DB_ERR;
    }
    s->l.d = d;
    r = db_transaction(d->db, "list retired batches", batches_body, &s->l);
    if (r != DB_OK) {
        log_error("%s", db_error(d->db));
        free(s);
        return r;
    }
    for (i = 0; i < s->l.n && !daemon_should_stop(d); i++) {
        struct files_ctx x;
        memset(&x, 0, sizeof x);
        x.d = d;
        x.batch_id = s->b[i].id;
        do {
            r = db_transaction(d->db, "list a batch's input files", files_body, &x);
        } while (r == DB_OK && x.n == FD_FILE_CHUNK && !daemon_should_stop(d));
        if (r == DB_OK && !daemon_should_stop(d) && x.failed == 0)
            r = db_transaction(d->db, "mark a batch's input files deleted", batch_done_body,
                               &x.batch_id);
        if (r != DB_OK) {
            log_error("[batch#%d] %s", x.batch_id, db_error(d->db));
            continue;
        }
        if (x.failed)
            log_error("[batch#%d] '%s': %ld input files could not be deleted; will try again",
                      x.batch_id, s->b[i].name, x.failed);
        else if (!daemon_should_stop(d))
            log_info("[batch#%d] '%s' retired: %ld input files deleted (%ld already gone)",
                     x.batch_id, s->b[i].name, x.deleted, x.missing);
        total += x.deleted + (x.failed ? 0 : 1);
    }
    free(s);
    return total;
}

static long file_deleter_pass(struct daemon *d)
{
    long a = outputs_pass(d), b;
    if (daemon_should_stop(d))
        return a;
    b = inputs_pass(d);
    if (a < 0)
        return a;
    if (b < 0)
        return b;
    if (a + b > 0)
        log_info("pass: %ld files and rows handled", a + b);
    return a + b;
}

int main(int argc, char **argv)
{
    return daemon_main(argc, argv, "file_deleter",
                       "The locsched file deleter: deletes the output files of assimilated\n"
                       "workunits from the upload folder, and a retired batch's input files\n"
                       "from the download folder once no job needs them; a file already gone\n"
                       "is logged and counted as deleted.",
                       file_deleter_pass, NULL);
}
