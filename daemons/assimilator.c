/*
 * assimilator.c - the assimilator: hands each finished workunit's outputs
 * to the science, once (doc/admin-guide.md, "Outputs").
 *
 * A workunit is finished when it has a canonical result or an error
 * (error_mask).  The transitioner and abort_batch mark it READY
 * (assimilate_state 1); a sweep here (the first pass, then every
 * AS_SWEEP_EVERY seconds) marks READY any finished workunit still INIT.
 * For each READY workunit (id order, --mod shares):
 *   - by default (assimilate_command empty) its canonical result's output
 *     RESULT_0 in the upload folder is copied to
 *     results_dir/BATCH_NAME/WU_NAME_0 through a temporary name and a
 *     rename; an errored workunit, or one whose output is missing,
 *     unreadable or over its cap (workunit.max_out_nbytes), gets the
 *     record results_dir/BATCH_NAME/WU_NAME.error instead;
 *   - else the command runs with WU_NAME BATCH_NAME success FILE or
 *     WU_NAME BATCH_NAME error REASON appended, under assimilate_timeout;
 *   - then, in one transaction (for up to AS_COMMIT workunits), the
 *     workunit becomes DONE (with assimilate_time) and READY for file
 *     deletion, with its results that are over.
 * Exactly once: the copy or record is complete under its final name
 * before the transaction; a crash between the two makes the next pass
 * copy again over the same name, so there is still exactly one copy.  (A
 * command may likewise run twice for a workunit after a crash: it must
 * accept that, as BOINC's assimilators must.)
 * A command that fails (exit status, signal, time limit) is tried again
 * in later passes, up to assimilate_tries times; then the workunit is
 * given up: DONE with the record WU_NAME.error, and its outputs kept in
 * the upload folder (file_delete_state stays INIT) for the administrator.
 * A failure on our side in copy mode (the results folder cannot be
 * written) leaves the workunit READY: the next pass tries again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assimilate_io.h"
#include "assimilate_logic.h"
#include "daemon.h"
#include "db_assim.h"
#include "log.h"

#define AS_CHUNK 500           /* workunits listed at a time */
#define AS_SWEEP_EVERY 600     /* seconds between sweeps for unmarked finished workunits */
#define AS_COMMIT 32           /* workunits marked assimilated per transaction */

struct as_state {
    struct as_tries tries;
    time_t last_sweep;
    /* handed over, not yet marked: their copies are complete on disk */
    int done_ids[AS_COMMIT], done_fd[AS_COMMIT], ndone;
};

struct read_tx {
    int wuid;
    struct db_as_wu wu;
};

static int read_body(struct db_conn *c, void *arg)
{
    struct read_tx *t = arg;
    return db_as_wu_read(c, t->wuid, &t->wu);
}

struct done_tx {
    const struct as_state *st;
    int now;
    long long changed;
};

static int done_body(struct db_conn *c, void *arg)
{
    struct done_tx *t = arg;
    int i, r;
    t->changed = 0;
    for (i = 0; i < t->st->ndone; i++) {
        long long one = 0;
        r = db_as_wu_done(c, t->st->done_ids[i], t->now, t->st->done_fd[i], &one);
        if (r != DB_OK)
            return r;
        t->changed += one;
    }
    return DB_OK;
}

/* Mark the workunits handed over so far assimilated, in one transaction
 * (their copies and records are already complete on disk: a crash before
 * the commit only makes the next pass copy them again over the same
 * names).  Returns how many were marked (not those another instance
 * marked meanwhile), or a negative status. */
static long flush_done(struct daemon *d, struct as_state *st)
{
    struct done_tx t = { st, (int)d->now, 0 };
    int r;
    if (st->ndone == 0)
        return 0;
    r = db_transaction(d->db, "mark workunits assimilated", done_body, &t);
    if (r != DB_OK)
        log_error("[wu#%d] and %d more: %s", st->done_ids[0], st->ndone - 1, db_error(d->db));
    st->ndone = 0;
    return r != DB_OK ? r : (long)t.changed;
}

/* Queue a workunit to be marked assimilated with file_delete_state
 * fd_state; the queue is flushed when full.  Returns 1, or a negative
 * status if a flush failed. */
static int mark_done(struct daemon *d, struct as_state *st, int wuid, int fd_state, long *done)
{
    long n;
    st->done_ids[st->ndone] = wuid;
    st->done_fd[st->ndone] = fd_state;
    st->ndone++;
    if (st->ndone < AS_COMMIT)
        return 1;
    n = flush_done(d, st);
    if (n < 0)
        return (int)n;
    *done += n;
    return 1;
}

/* Write the error record of a workunit in its batch's results folder. */
static int write_record(struct daemon *d, const struct db_as_wu *wu, const char *dir,
                        const char *reason)
{
    char name[AS_NAME_MAX + 16], text[2048], err[1200];
    if (as_error_name(name, sizeof name, wu->name) < 0 ||
        as_error_record(text, sizeof text, wu->name, wu->id, wu->batch_name, wu->error_mask,
                        reason, (long)d->now) < 0) {
        log_error("[wu#%d] error record too long", wu->id);
        return AIO_FAIL;
    }
    if (aio_write_file(dir, name, text, err, sizeof err) != AIO_OK) {
        log_error("[wu#%d] [batch#%d] cannot write its error record: %s", wu->id, wu->batch_id,
                  err);
        return AIO_FAIL;
    }
    return AIO_OK;
}

/* Copy mode.  Returns the file_delete_state to set, or -1 to try later. */
static int assimilate_copy(struct daemon *d, const struct db_as_wu *wu, enum as_kind kind,
                           const char *why, const char *src, const char *dir)
{
    char name[AS_NAME_MAX + 16], err[1200], reason[1300];
    int r;

    if (aio_mkdirs(dir, err, sizeof err) != AIO_OK) {
        log_error("[wu#%d] [batch#%d] %s; will try again", wu->id, wu->batch_id, err);
        return -1;
    }
    if (kind == AS_SUCCESS) {
        as_results_name(name, sizeof name, wu->name, 0);
        r = aio_copy(src, wu->max_out_nbytes, dir, name, err, sizeof err);
        if (r == AIO_OK) {
            log_debug("[wu#%d] [batch#%d] output copied to %s/%s", wu->id, wu->batch_id, dir,
                      name);
            return FD_READY;
        }
        if (r == AIO_FAIL) {
            log_error("[wu#%d] [batch#%d] %s; will try again", wu->id, wu->batch_id, err);
            return -1;
        }
        log_error("[wu#%d] [batch#%d] canonical output unusable, recorded as an error: %s",
                  wu->id, wu->batch_id, err);
        snprintf(reason, sizeof reason, "bad_output (%s)", err);
        why = reason;
    } else {
        log_info("[wu#%d] [batch#%d] errored (%s): error record written", wu->id,
                 wu->batch_id, why);
    }
    return write_record(d, wu, dir, why) == AIO_OK ? FD_READY : -1;
}

/* Command mode.  Returns the file_delete_state to set, or -1 to try later. */
static int assimilate_command(struct daemon *d, struct as_state *st, const struct db_as_wu *wu,
                              enum as_kind kind, const char *why, const char *src,
                              const char *dir)
{
    char buf[CONFIG_STR_MAX + 1], err[1200], reason[1300];
    char *argv[AS_ARGV_MAX + 8];
    int n, tries;

    n = as_split_command(d->cfg.assimilate_command, buf, sizeof buf, argv, AS_ARGV_MAX);
    if (n < 0) {
        log_error("assimilate_command has no words or more than %d", AS_ARGV_MAX - 1);
        return -1;
    }
    if (kind == AS_SUCCESS && aio_check_output(src, wu->max_out_nbytes, err, sizeof err) != AIO_OK) {
        log_error("[wu#%d] [batch#%d] canonical output unusable, the command is told of an "
                  "error: %s", wu->id, wu->batch_id, err);
        kind = AS_ERROR;
        why = "bad_output";
    }
    argv[n++] = (char *)wu->name;
    argv[n++] = (char *)wu->batch_name;
    argv[n++] = kind == AS_SUCCESS ? "success" : "error";
    argv[n++] = (char *)(kind == AS_SUCCESS ? src : why);
    argv[n] = NULL;
    if (aio_run(argv, d->cfg.assimilate_timeout, err, sizeof err) == AIO_OK) {
        log_debug("[wu#%d] [batch#%d] assimilate_command done (%s)", wu->id, wu->batch_id,
                  argv[n - 2]);
        as_tries_forget(&st->tries, wu->id);
        return FD_READY;
    }
    tries = as_tries_note(&st->tries, wu->id);
    if (tries >= 0 && tries < d->cfg.assimilate_tries) {
        log_error("[wu#%d] [batch#%d] assimilate_command failed (try %d of %d): %s", wu->id,
                  wu->batch_id, tries, d->cfg.assimilate_tries, err);
        return -1;
    }
    log_error("[wu#%d] [batch#%d] assimilate_command failed %d times, giving up: %s; "
              "outputs kept in the upload folder, error record in %s", wu->id, wu->batch_id,
              tries, err, dir);
    as_tries_forget(&st->tries, wu->id);
    snprintf(reason, sizeof reason, "assimilate_command_failed (%s)", err);
    if (aio_mkdirs(dir, err, sizeof err) != AIO_OK || write_record(d, wu, dir, reason) != AIO_OK)
        log_error("[wu#%d] no error record written", wu->id);
    return FD_INIT;
}

/* out = dir/name; -1 if it does not fit. */
static int join(char *out, size_t outlen, const char *dir, const char *name)
{
    int n = snprintf(out, outlen, "%s/%s", dir, name);
    return n > 0 && (size_t)n < outlen ? 0 : -1;
}

/* Assimilate one workunit; *done counts those marked assimilated.
 * Returns 1 if handed over, 0 if skipped, -1 if it failed (to be tried in
 * a later pass), or a negative db status. */
static int assimilate_one(struct daemon *d, struct as_state *st, int wuid, long *done)
{
    struct read_tx t;
    char why[64], src[CONFIG_STR_MAX + AS_NAME_MAX + 8], dir[CONFIG_STR_MAX + AS_NAME_MAX + 8];
    char uname[AS_NAME_MAX + 16];
    enum as_kind kind;
    int fd_state, r;

    memset(&t, 0, sizeof t);
    t.wuid = wuid;
    r = db_transaction(d->db, "read a workunit to assimilate", read_body, &t);
    if (r == DB_NOTFOUND || (r == DB_OK && t.wu.assimilate_state != AS_READY))
        return 0;
    if (r != DB_OK) {
        log_error("[wu#%d] %s", wuid, db_error(d->db));
        return r;
    }
    kind = as_decide(t.wu.canonical_resultid, t.wu.error_mask, t.wu.result_name, why,
                     sizeof why);
    if (!as_safe_name(t.wu.name) || !as_safe_name(t.wu.batch_name) ||
        (kind == AS_SUCCESS && !as_safe_name(t.wu.result_name))) {
        log_error("[wu#%d] [batch#%d] a workunit, batch or result name is not a plain file "
                  "name: marked assimilated, outputs kept", wuid, t.wu.batch_id);
        return mark_done(d, st, wuid, FD_INIT, done) < 0 ? -1 : 1;
    }
    src[0] = '\0';
    if (join(dir, sizeof dir, d->cfg.results_dir, t.wu.batch_name) < 0 ||
        (kind == AS_SUCCESS && (as_upload_name(uname, sizeof uname, t.wu.result_name, 0) < 0 ||
                                join(src, sizeof src, d->cfg.upload_dir, uname) < 0))) {
        log_error("[wu#%d] [batch#%d] path too long; will try again", wuid, t.wu.batch_id);
        return -1;
    }
    if (d->cfg.assimilate_command[0])
        fd_state = assimilate_command(d, st, &t.wu, kind, why, src, dir);
    else
        fd_state = assimilate_copy(d, &t.wu, kind, why, src, dir);
    if (fd_state < 0)
        return -1;
    log_debug("[wu#%d] [batch#%d] handed over (%s)", wuid, t.wu.batch_id, why);
    return mark_done(d, st, wuid, fd_state, done);
}

struct list_tx {
    struct daemon *d;
    int ready, after, n;
    int ids[AS_CHUNK];
};

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *l = arg;
    return db_as_list(c, l->ready, l->d->mod_n, l->d->mod_i, l->after, AS_CHUNK, l->ids, &l->n);
}

static int promote_body(struct db_conn *c, void *arg)
{
    struct list_tx *l = arg;
    int i, r;
    for (i = 0; i < l->n; i++) {
        long long changed = 0;
        if ((r = db_as_promote(c, l->ids[i], &changed)) != DB_OK)
            return r;
    }
    return DB_OK;
}

/* Mark READY every finished workunit still INIT.  Returns how many, or a
 * negative status. */
static long sweep(struct daemon *d, struct list_tx *l)
{
    long total = 0;
    int r;
    l->ready = 0;
    l->after = 0;
    do {
        r = db_transaction(d->db, "list finished workunits not marked ready", list_body, l);
        if (r == DB_OK && l->n > 0)
            r = db_transaction(d->db, "mark finished workunits ready", promote_body, l);
        if (r != DB_OK) {
            log_error("%s", db_error(d->db));
            return r;
        }
        total += l->n;
        if (l->n > 0)
            l->after = l->ids[l->n - 1];
    } while (l->n == AS_CHUNK && !daemon_should_stop(d));
    if (total)
        log_info("%ld finished workunits were not marked ready to assimilate: marked now", total);
    return total;
}

static long assimilator_pass(struct daemon *d)
{
    struct as_state *st = d->state;
    struct list_tx *l = malloc(sizeof *l);
    long done = 0, failed = 0;
    int i, r = DB_OK;

    if (!l) {
        log_error("out of memory");
        return DB_ERR;
    }
    l->d = d;
    if (d->passes == 1 || d->now - st->last_sweep >= AS_SWEEP_EVERY) {
        st->last_sweep = d->now;
        if (sweep(d, l) < 0) {
            free(l);
            return DB_ERR;
        }
    }
    l->ready = 1;
    l->after = 0;
    do {
        r = db_transaction(d->db, "list workunits ready to assimilate", list_body, l);
        if (r != DB_OK) {
            log_error("%s", db_error(d->db));
            break;
        }
        for (i = 0; i < l->n && !daemon_should_stop(d); i++)
            if (assimilate_one(d, st, l->ids[i], &done) < 0)
                failed++;
        if (l->n > 0)
            l->after = l->ids[l->n - 1];
    } while (l->n == AS_CHUNK && !daemon_should_stop(d));
    free(l);
    {
        long n = flush_done(d, st);
        if (n < 0)
            r = (int)n;
        else
            done += n;
    }
    if (done || failed)
        log_info("pass: %ld workunits assimilated, %ld to try again", done, failed);
    if (r != DB_OK)
        return r;
    if (failed && d->one_pass && done == 0)
        return DB_ERR;
    return done;
}

int main(int argc, char **argv)
{
    struct as_state st;
    int rc;
    memset(&st, 0, sizeof st);
    rc = daemon_main(argc, argv, "assimilator",
                     "The locsched assimilator: for each finished workunit, copies its canonical\n"
                     "output into results_dir/BATCH_NAME/ (or runs assimilate_command), writes\n"
                     "an error record for an errored one, then marks it assimilated and its\n"
                     "files ready for the file deleter; once per workunit, even across crashes.",
                     assimilator_pass, &st);
    as_tries_free(&st.tries);
    return rc;
}
