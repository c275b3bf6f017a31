/*
 * validator.c - the validator: compares the successful results of each
 * workunit the transitioner marked (need_validate) and picks the
 * canonical result once min_quorum of them agree (doc/admin-guide.md,
 * "Validation"; the rules are in validate_logic.h).
 *
 * Per workunit (id order, --mod shares):
 *   1. read the workunit and its successes (a short transaction);
 *   2. outside any transaction, check each output RESULT_NAME_0 in the
 *      upload folder (missing, unreadable, not a regular file or over
 *      workunit.max_out_nbytes: the result is bad) and compare outputs:
 *      validator = identical compares bytes; otherwise the command runs
 *      with the two files appended under validate_timeout (exit 0: they
 *      match; any other exit, a signal or the time limit: they do not,
 *      logged);
 *   3. in one transaction, the workunit and its results locked and
 *      checked unchanged since step 1 (else the next pass redoes it):
 *      validate_state of each result (bad ones also outcome
 *      VALIDATE_ERROR), the standing of the hosts of the results judged now
 *      (daily quota, consecutive_valid, error_rate: host_quota.h), credit
 *      to the valid ones, their hosts and users,
 *      the canonical result, target_nresults raised when they disagree,
 *      need_validate cleared and transition_time now, so that the
 *      transitioner sends another replica, cancels unsent ones or marks
 *      the workunit errored.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assimilate_io.h"
#include "assimilate_logic.h"
#include "credit.h"
#include "daemon.h"
#include "db_daemon.h"
#include "db_validate.h"
#include "grant.h"
#include "host_quota.h"
#include "log.h"
#include "transition_logic.h"
#include "validate_logic.h"

#define VA_CHUNK 500           /* workunits listed at a time */
#define VA_PATH_MAX (CONFIG_STR_MAX + AS_NAME_MAX + 16)

struct va_wu_work {
    struct daemon *d;
    int wuid;
    struct db_va_wu wu;
    struct db_va_result res[VA_MAX_RESULTS];
    struct va_result vr[VA_MAX_RESULTS];
    char path[VA_MAX_RESULTS][VA_PATH_MAX];
    int state[VA_MAX_RESULTS];
    int n;
    struct va_decision dec;
    /* step 3 */
    struct db_tr_wu lwu;
    struct db_tr_result lres[VA_MAX_RESULTS * 2];
    const struct db_tr_result *sel[VA_MAX_RESULTS];
    int nl, changed;
};

static int read_body(struct db_conn *c, void *arg)
{
    struct va_wu_work *w = arg;
    int r = db_va_wu_read(c, w->wuid, &w->wu);
    if (r != DB_OK)
        return r;
    return db_va_results(c, w->wuid, w->res, VA_MAX_RESULTS, &w->n);
}

/* 1 when the files at a and b have the same bytes. */
static int same_bytes(const char *a, const char *b, int wuid)
{
    char ba[65536], bb[65536];
    int fa = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int same = fa >= 0 && fb >= 0;
    while (same) {
        ssize_t na = read(fa, ba, sizeof ba), nb, got = 0;
        if (na < 0) {
            same = 0;
            break;
        }
        while (got < na) {       /* read b up to na bytes */
            nb = read(fb, bb + got, (size_t)(na - got));
            if (nb <= 0)
                break;
            got += nb;
        }
        if (got != na || memcmp(ba, bb, (size_t)na) != 0) {
            same = 0;
            break;
        }
        if (na == 0) {
            same = read(fb, bb, 1) == 0;
            break;
        }
    }
    if ((fa < 0 || fb < 0))
        log_error("[wu#%d] cannot open %s: %s", wuid, fa < 0 ? a : b, strerror(errno));
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    return same;
}

static int compare(void *ctx, int i, int j)
{
    struct va_wu_work *w = ctx;
    const char *cmd = w->d->cfg.validator;
    char buf[CONFIG_STR_MAX + 1], err[1200];
    char *argv[AS_ARGV_MAX + 4];
    int n;

    if (strcmp(cmd, "identical") == 0)
        return same_bytes(w->path[i], w->path[j], w->wuid);
    n = as_split_command(cmd, buf, sizeof buf, argv, AS_ARGV_MAX);
    if (n < 0) {
        log_error("validator command has no words or more than %d: outputs do not match",
                  AS_ARGV_MAX - 1);
        return 0;
    }
    argv[n++] = w->path[i];
    argv[n++] = w->path[j];
    argv[n] = NULL;
    if (aio_run(argv, w->d->cfg.validate_timeout, err, sizeof err) == AIO_OK)
        return 1;
    log_info("[wu#%d] [result#%d] [result#%d] outputs do not match: %s", w->wuid,
             w->res[i].id, w->res[j].id, err);
    return 0;
}

static const struct db_tr_result *find_locked(const struct va_wu_work *w, int id)
{
    int i;
    for (i = 0; i < w->nl; i++)
        if (w->lres[i].id == id)
            return &w->lres[i];
    return NULL;
}

/*
 * The hosts of the results judged in this pass (from INIT or INCONCLUSIVE
 * to VALID or INVALID): each one's daily quota falls on an invalid result
 * and climbs back on a valid one (host_quota.h).  Hosts are locked in id
 * order, before grant_results locks those of the valid ones again (in the
 * same order), so that concurrent validators do not deadlock.
 */
static int judge_hosts(struct db_conn *c, struct va_wu_work *w)
{
    int order[VA_MAX_RESULTS], bad[VA_MAX_RESULTS];
    int i, j, n = 0, r, project = w->d->cfg.daily_result_quota;

    for (i = 0; i < w->n; i++) {
        int before = w->res[i].validate_state, after = w->state[i];
        if (before != TL_VALIDATE_INIT && before != TL_VALIDATE_INCONCLUSIVE)
            continue;
        if ((after != TL_VALIDATE_VALID && after != TL_VALIDATE_INVALID) ||
            w->res[i].hostid <= 0)
            continue;
        for (j = n; j > 0 && w->res[order[j - 1]].hostid > w->res[i].hostid; j--)
            order[j] = order[j - 1];
        order[j] = i;
        n++;
    }
    for (j = 0; j < n; j++)
        bad[j] = w->state[order[j]] == TL_VALIDATE_INVALID;
    for (j = 0; j < n; j++) {
        const struct db_va_result *x = &w->res[order[j]];
        struct db_host_quota q;
        int old;
        r = db_va_host_quota_lock(c, x->hostid, &q);
        if (r == DB_NOTFOUND)
            continue;
        if (r != DB_OK)
            return r;
        old = hq_per_cpu(q.max_results_day, project);
        q.max_results_day = bad[j] ? hq_after_bad(q.max_results_day, project)
                                   : hq_after_valid(q.max_results_day, project);
        q.consecutive_valid = bad[j] ? 0 : q.consecutive_valid + 1;
        q.error_rate = hq_error_rate(q.error_rate, bad[j]);
        r = db_va_host_quota_set(c, x->hostid, &q);
        if (r != DB_OK)
            return r;
        if (bad[j])
            log_info("[wu#%d] [result#%d] [host#%d] invalid: daily quota %d -> %d per CPU, "
                     "error rate %.3f", w->wuid, x->id, x->hostid, old,
                     hq_per_cpu(q.max_results_day, project), q.error_rate);
    }
    return DB_OK;
}

static int write_body(struct db_conn *c, void *arg)
{
    struct va_wu_work *w = arg;
    struct db_va_wu now_wu;
    double credit = credit_of_fpops(w->wu.rsc_fpops_est);
    int i, nsel = 0, canon = 0, r;

    w->changed = 0;
    r = db_tr_wu_lock(c, w->wuid, &w->lwu);
    if (r == DB_NOTFOUND)
        return DB_OK;
    if (r != DB_OK)
        return r;
    r = db_tr_results_lock(c, w->wuid, w->lres, VA_MAX_RESULTS * 2, &w->nl);
    if (r != DB_OK)
        return r;
    r = db_va_wu_read(c, w->wuid, &now_wu);
    if (r != DB_OK)
        return r;
    if (!now_wu.need_validate || now_wu.canonical_resultid != w->wu.canonical_resultid)
        return DB_OK;
    for (i = 0; i < w->n; i++) {
        const struct db_tr_result *x = find_locked(w, w->res[i].id);
        if (!x || x->server_state != RS_OVER || x->outcome != RO_SUCCESS ||
            x->validate_state != w->res[i].validate_state)
            return DB_OK;       /* changed meanwhile: the next pass redoes it */
    }
    for (i = 0; i < w->n; i++) {
        if (w->state[i] == w->res[i].validate_state && !w->vr[i].bad)
            continue;
        if (w->state[i] == TL_VALIDATE_VALID) {
            w->sel[nsel++] = find_locked(w, w->res[i].id);
            continue;
        }
        r = db_va_result_set(c, w->res[i].id, w->state[i], w->vr[i].bad);
        if (r != DB_OK)
            return r;
    }
    if ((r = judge_hosts(c, w)) != DB_OK)
        return r;
    if (nsel && (r = grant_results(c, w->wuid, w->sel, nsel, credit, (double)w->d->now,
                                   w->d->cfg.credit_half_life)) != DB_OK)
        return r;
    if (!w->wu.canonical_resultid && w->dec.canonical >= 0)
        canon = w->res[w->dec.canonical].id;
    w->changed = 1;
    return db_va_wu_done(c, w->wuid, canon, credit, w->dec.target_nresults, (int)w->d->now);
}

/* Validate one workunit.  Returns 1 if done, 0 if skipped, < 0 on error. */
static int validate_one(struct daemon *d, struct va_wu_work *w, int wuid)
{
    char what[64], uname[AS_NAME_MAX + 16], err[1200];
    int i, r;

    memset(&w->dec, 0, sizeof w->dec);
    w->d = d;
    w->wuid = wuid;
    w->n = 0;
    r = db_transaction(d->db, "read a workunit to validate", read_body, w);
    if (r == DB_NOTFOUND || (r == DB_OK && !w->wu.need_validate))
        return 0;
    if (r != DB_OK) {
        log_error("[wu#%d] %s", wuid, db_error(d->db));
        return r;
    }
    for (i = 0; i < w->n; i++) {
        struct va_result *v = &w->vr[i];
        v->id = w->res[i].id;
        v->validate_state = w->res[i].validate_state;
        v->received_time = w->res[i].received_time;
        v->bad = 0;
        if (v->validate_state != TL_VALIDATE_INIT &&
            v->validate_state != TL_VALIDATE_INCONCLUSIVE &&
            v->id != w->wu.canonical_resultid)
            continue;         /* decided before: its file may be gone */
        if (!as_safe_name(w->res[i].name) ||
            as_upload_name(uname, sizeof uname, w->res[i].name, 0) < 0 ||
            snprintf(w->path[i], VA_PATH_MAX, "%s/%s", d->cfg.upload_dir, uname) >= VA_PATH_MAX) {
            log_error("[wu#%d] [result#%d] result name not a plain file name or path too "
                      "long: invalid", wuid, v->id);
            v->bad = 1;
            continue;
        }
        if (aio_check_output(w->path[i], w->wu.max_out_nbytes, err, sizeof err) != AIO_OK) {
            log_error("[wu#%d] [result#%d] [host#%d] output unusable, result invalid "
                      "(VALIDATE_ERROR): %s", wuid, v->id, w->res[i].hostid, err);
            v->bad = 1;
        }
    }
    va_decide(w->wu.min_quorum, w->wu.canonical_resultid, w->vr, w->n, compare, w, w->state,
              &w->dec);
    snprintf(what, sizeof what, "store the validation of [wu#%d]", wuid);
    r = db_transaction(d->db, what, write_body, w);
    if (r != DB_OK) {
        log_error("[wu#%d] %s", wuid, db_error(d->db));
        return r;
    }
    if (!w->changed)
        return 0;
    if (w->dec.canonical >= 0 && !w->wu.canonical_resultid)
        log_debug("[wu#%d] canonical result [result#%d]: %d valid, %d invalid (%d bad outputs)",
                  wuid, w->res[w->dec.canonical].id, w->dec.nvalid, w->dec.ninvalid,
                  w->dec.nbad);
    else if (w->dec.canonical < 0)
        log_info("[wu#%d] no consensus among %d successes (quorum %d, %d bad outputs): "
                 "target_nresults %d", wuid, w->n, w->wu.min_quorum, w->dec.nbad,
                 w->dec.target_nresults);
    else
        log_debug("[wu#%d] late results: %d valid, %d invalid", wuid, w->dec.nvalid,
                  w->dec.ninvalid);
    return 1;
}

struct list_tx {
    struct daemon *d;
    int after, n;
    int ids[VA_CHUNK];
};

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *l = arg;
    return db_va_list(c, l->d->mod_n, l->d->mod_i, l->after, VA_CHUNK, l->ids, &l->n);
}

static long validator_pass(struct daemon *d)
{
    struct va_wu_work *w = d->state;
    struct list_tx *l;
    long done = 0, failed = 0;
    int i, r = DB_OK;

    if (!config_validating(&d->cfg)) {
        if (d->passes == 1)
            log_warn("validator = none in the config: successes count as valid, nothing to "
                     "do (set validator = identical or a command to validate)");
        return 0;
    }
    l = malloc(sizeof *l);
    if (!l) {
        log_error("out of memory");
        return DB_ERR;
    }
    l->d = d;
    l->after = 0;
    do {
        r = db_transaction(d->db, "list workunits to validate", list_body, l);
        if (r != DB_OK) {
            log_error("%s", db_error(d->db));
            break;
        }
        for (i = 0; i < l->n && !daemon_should_stop(d); i++) {
            int x = validate_one(d, w, l->ids[i]);
            if (x > 0)
                done++;
            else if (x < 0)
                failed++;
        }
        if (l->n > 0)
            l->after = l->ids[l->n - 1];
    } while (l->n == VA_CHUNK && !daemon_should_stop(d));
    free(l);
    if (done || failed)
        log_info("pass: %ld workunits validated, %ld failed (tried again next pass)", done,
                 failed);
    if (r != DB_OK)
        return r;
    if (failed && done == 0)
        return DB_ERR;
    return done;
}

int main(int argc, char **argv)
{
    struct va_wu_work *w = calloc(1, sizeof *w);
    int rc;
    if (!w) {
        fprintf(stderr, "validator: out of memory\n");
        return 1;
    }
    rc = daemon_main(argc, argv, "validator",
                     "The locsched validator: compares the successful results of each workunit\n"
                     "the transitioner marked (byte-identical outputs, or the config's validator\n"
                     "command), picks the canonical result once min_quorum agree, marks the\n"
                     "others valid or invalid, grants credit to the valid ones and hands the\n"
                     "workunit back to the transitioner.",
                     validator_pass, w);
    free(w);
    return rc;
}
