/*
 * emu_server.c - scheduler and daemons in-process on the emulator's
 * clock, and the database around them (emu_server.h).
 */
#include "emu_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "array_grow.h"
#include "buf.h"
#include "daemon_passes.h"
#include "db_admin.h"
#include "db_batch.h"
#include "db_sched.h"
#include "log.h"

static time_t sim_now;

void emu_clock_set(time_t now)
{
    sim_now = now;
}

time_t emu_clock_now(void)
{
    return sim_now;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static double wall_secs(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The config: the sandbox's, plus the emulator's settings. */
static int write_config(struct emu_server *s, const char *extra, char *err, size_t errlen)
{
    const char *base = getenv("LOCSCHED_CONFIG"), *slash;
    size_t len = 0;
    char *text;
    FILE *f;

    if (!base || !base[0])
        return fail(err, errlen, "LOCSCHED_CONFIG is not set: start a sandbox and eval "
                                 "\"$(tools/sandbox env)\"");
    text = buf_read_file(base, &len);
    if (!text)
        return fail(err, errlen, "%s: cannot read: %s", base, strerror(errno));
    slash = strrchr(base, '/');
    snprintf(s->config_path, sizeof s->config_path, "%.*s/emu-%d.conf",
             slash ? (int)(slash - base) : 1, slash ? base : ".", (int)getpid());
    f = fopen(s->config_path, "w");
    if (!f) {
        free(text);
        return fail(err, errlen, "%s: cannot write: %s", s->config_path, strerror(errno));
    }
    {
        /* the project's lines, less its validator: emulated hosts upload
         * no outputs, so a success counts as valid (validator = none) */
        const char *line = text, *nl;
        for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
            const char *k = line;
            nl = strchr(line, '\n');
            while (*k == ' ' || *k == '\t')
                k++;
            if (strncmp(k, "validator", 9) == 0 && strchr(" \t=", k[9]) && k[9])
                continue;
            fwrite(line, 1, nl ? (size_t)(nl - line + 1) : strlen(line), f);
        }
    }
    fprintf(f, "\n# the emulator's settings\nvalidator = none\n%s\n", extra ? extra : "");
    free(text);
    if (fclose(f) != 0)
        return fail(err, errlen, "%s: cannot write", s->config_path);
    return 0;
}

static int make_app(struct emu_server *s, char *err, size_t errlen)
{
    struct db_app_version_new v;
    struct db_conn *c = s->ctx.db;
    int now = (int)time(NULL), appid = 0, platid = 0, avid = 0, r, gpu;

    r = db_app_get_or_create(c, EMU_APP, "Emulated app", now, &appid);
    if (r == DB_OK)
        r = db_platform_get_or_create(c, EMU_PLATFORM, now, &platid);
    for (gpu = 0; gpu < 2 && r == DB_OK; gpu++) {
        memset(&v, 0, sizeof v);
        v.appid = appid;
        v.platformid = platid;
        v.version_num = EMU_VERSION;
        v.avg_ncpus = gpu ? 0.1 : 1;
        v.flops_scale = 1;
        v.plan_class = gpu ? EMU_GPU_PLAN : "";
        v.coproc_type = gpu ? EMU_GPU_TYPE : "";
        v.coproc_count = gpu ? 1 : 0;
        r = db_app_version_create(c, &v, now, &avid);
        if (r == DB_OK)
            r = db_app_version_file_add(c, avid, 0, "emuapp_1.00", "", "http://emu.invalid/emuapp",
                                        10, "0123456789abcdef0123456789abcdef", "00\n.\n", 1, 0);
        if (r == DB_DUP)
            r = DB_OK;             /* made by an earlier run */
    }
    if (r != DB_OK || db_commit(c) != DB_OK)
        return fail(err, errlen, "app %s: %s", EMU_APP, db_error(c));
    app_cache_invalidate(&s->ctx.apps);
    return 0;
}

int emu_server_open(struct emu_server *s, const char *extra_config, int verbose, char *err,
                    size_t errlen)
{
    const char *bd;
    int i;

    memset(s, 0, sizeof *s);
    log_init("emu", verbose > 1 ? LOG_DEBUG : verbose ? LOG_INFO : LOG_ERROR, stderr);
    bd = getenv("top_builddir");
    if (!bd || !bd[0])
        bd = getenv("LOCSCHED_BUILD_DIR");
    snprintf(s->builddir, sizeof s->builddir, "%s", bd && bd[0] ? bd : ".");
    if (write_config(s, extra_config, err, errlen) < 0)
        return -1;
    if (sched_ctx_init(&s->ctx, s->config_path, err, errlen) < 0)
        return -1;
    if (!s->ctx.db)
        return fail(err, errlen, "the database is not reachable (is the sandbox running?)");
    s->ctx.cfg.record_requests = 0;
    s->ctx.clock = emu_clock_now;
    daemon_now = emu_clock_now;
    if (make_app(s, err, errlen) < 0)
        return -1;
    for (i = 0; i < EMU_NDAEMONS; i++) {
        struct daemon *d = &s->d[i];
        d->cfg = s->ctx.cfg;
        d->db = s->ctx.db;        /* one connection: statement slots do not overlap */
        d->mod_n = 1;
        d->mod_i = 0;
        d->one_pass = 1;
    }
    s->d[EMU_WG].name = "work_generator";
    s->d[EMU_TR].name = "transitioner";
    s->d[EMU_TR].state = transitioner_state_new();
    s->d[EMU_LD].name = "locality_daemon";
    s->d[EMU_LD].state = locality_daemon_state_new();
    if (!s->d[EMU_TR].state || !s->d[EMU_LD].state)
        return fail(err, errlen, "out of memory");
    return 0;
}

void emu_server_close(struct emu_server *s)
{
    transitioner_state_free(s->d[EMU_TR].state);
    locality_daemon_state_free(s->d[EMU_LD].state);
    s->d[EMU_TR].state = s->d[EMU_LD].state = NULL;
    if (s->config_path[0])
        unlink(s->config_path);
    free(s->auths);
    free(s->userids);
    s->auths = NULL;
    s->userids = NULL;
    if (s->ctx.db || s->ctx.apps.navs)
        sched_ctx_free(&s->ctx);
}

/* ---- batches ---- */

struct open_batches {
    int ids[4096];
    int n;
};

static int collect_open(void *vctx, const struct db_batch_row *b)
{
    struct open_batches *o = vctx;
    if ((b->state == BS_INIT || b->state == BS_IN_PROGRESS) && o->n < 4096)
        o->ids[o->n++] = b->id;
    return 0;
}

/*
 * An emulated batch ends for good: its results in progress are closed
 * (their hosts are gone with the run) and its workunits need no more
 * transitions, so that the next run's transitioner does not work through
 * them one by one.  Throwaway rows of the emulator's own database only.
 */
static int close_out(struct db_conn *c, int batch_id)
{
    int never = 2147483647;
    struct db_val p1[] = { DBV_INT(batch_id) };
    struct db_val p2[] = { DBV_INT(never), DBV_INT(batch_id) };
    int r = db_exec(c, 145, "UPDATE result r JOIN workunit w ON w.id = r.workunitid "
                            "SET r.server_state = 5, r.outcome = 5 "
                            "WHERE w.batch = ? AND r.server_state = 4",
                    p1, 1, NULL, "close the emulated batch's results in progress");
    if (r == DB_OK)
        r = db_exec(c, 146, "UPDATE workunit SET transition_time = ? WHERE batch = ?", p2, 2,
                    NULL, "no more transitions for the emulated batch");
    return r;
}

/*
 * Earlier runs leave no trace that the next run's server would act on:
 * results still in progress (a complete batch may keep replicas out) are
 * closed, no workunit waits for a transition, and the earlier hosts are
 * never seen again (rpc_time 0).  Each run starts its clock at the same
 * EMU_EPOCH, so without this an earlier run's hosts would look active (seen
 * "lately", even in the future) and, busy with the results left over,
 * count in the finish line's speeds: a seed's figures then depended on
 * the runs made before it in the same database.
 */
static int forget_earlier_runs(struct db_conn *c)
{
    int never = 2147483647;
    struct db_val p[] = { DBV_INT(never), DBV_INT(never) };
    int r = db_exec(c, 147, "UPDATE result SET server_state = 5, outcome = 5 "
                            "WHERE server_state = 4",
                    NULL, 0, NULL, "close earlier runs' results in progress");
    if (r == DB_OK)
        r = db_exec(c, 148, "UPDATE workunit SET transition_time = ? WHERE transition_time < ?",
                    p, 2, NULL, "no more transitions for earlier runs' workunits");
    if (r == DB_OK)
        r = db_exec(c, 149, "UPDATE host SET rpc_time = 0 WHERE rpc_time <> 0", NULL, 0, NULL,
                    "earlier runs' hosts are gone");
    return r;
}

int emu_server_retire_all(struct emu_server *s, char *err, size_t errlen)
{
    struct db_conn *c = s->ctx.db;
    struct open_batches *o = calloc(1, sizeof *o);
    int i, r;

    if (!o)
        return fail(err, errlen, "out of memory");
    r = db_batch_list(c, 0, collect_open, o);
    if (r == DB_OK)
        r = db_commit(c);
    for (i = 0; r == DB_OK && i < o->n; i++) {
        struct db_abort_counts ac;
        struct db_retire_counts rc;
        r = db_batch_abort_jobs(c, o->ids[i], (int)emu_clock_now(), &ac);
        if (r == DB_OK)
            r = close_out(c, o->ids[i]);
        if (r == DB_OK)
            r = db_batch_retire_teams(c, o->ids[i], &rc);
        if (r == DB_OK)
            r = db_batch_set_state(c, o->ids[i], BS_RETIRED);
        if (r == DB_OK)
            r = db_commit(c);
    }
    free(o);
    if (r == DB_OK)
        r = forget_earlier_runs(c);
    if (r == DB_OK)
        r = db_commit(c);
    if (r != DB_OK) {
        db_rollback(c);
        return fail(err, errlen, "retiring earlier batches: %s", db_error(c));
    }
    app_cache_invalidate(&s->ctx.apps);
    return 0;
}

int emu_server_users(struct emu_server *s, int n, char *err, size_t errlen)
{
    int i, k;
    s->auths = calloc((size_t)n, sizeof *s->auths);
    s->userids = calloc((size_t)n, sizeof *s->userids);
    if (!s->auths || !s->userids)
        return fail(err, errlen, "out of memory");
    for (i = 0; i < n; i++) {
        unsigned char raw[16], hash[32];
        char name[64], email[128];
        if (RAND_bytes(raw, sizeof raw) != 1)
            return fail(err, errlen, "RAND_bytes failed");
        for (k = 0; k < 16; k++)
            snprintf(s->auths[i] + 2 * k, 3, "%02x", raw[k]);
        SHA256((const unsigned char *)s->auths[i], 32, hash);
        snprintf(name, sizeof name, "emu user %d", i);
        snprintf(email, sizeof email, "emu%d-%s@emu.invalid", i, s->auths[i]);
        if (db_user_create(s->ctx.db, name, email, s->auths[i], hash, (int)emu_clock_now(),
                           &s->userids[i]) != DB_OK ||
            db_commit(s->ctx.db) != DB_OK)
            return fail(err, errlen, "creating user %d: %s", i, db_error(s->ctx.db));
    }
    s->nusers = n;
    return 0;
}

/* Run a program; 0 when it exited with status 0. */
static int run_quiet(char *const argv[], const char *log_path)
{
    pid_t pid;
    int status;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *f = freopen(log_path, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * tools/create_batch stamps the batch, its results and its cursors with
 * the wall clock; the run's clock is the emulator's (EMU_EPOCH onwards).
 * A batch created "in the future" would look young for the whole run and
 * give the finish line no window of successes to project from.
 */
static int batch_on_emu_clock(struct db_conn *c, int batch_id)
{
    int now = (int)emu_clock_now();
    struct db_val p[] = { DBV_INT(now), DBV_INT(batch_id) };
    int r = db_exec(c, 150, "UPDATE batch SET create_time = ? WHERE id = ?", p, 2, NULL,
                    "the batch's creation on the emulator's clock");
    if (r == DB_OK)
        r = db_exec(c, 151, "UPDATE result SET create_time = ? WHERE batch = ?", p, 2, NULL,
                    "its results' creation on the emulator's clock");
    if (r == DB_OK)
        r = db_exec(c, 152, "UPDATE workunit SET create_time = ? WHERE batch = ?", p, 2, NULL,
                    "its workunits' creation on the emulator's clock");
    if (r == DB_OK)
        r = db_exec(c, 153, "UPDATE locality_cursor SET update_time = ? WHERE batch_id = ?", p, 2,
                    NULL, "its cursors' times on the emulator's clock");
    if (r == DB_OK)
        r = db_commit(c);
    else
        db_rollback(c);
    return r;
}

int emu_server_create_batch(struct emu_server *s, const struct emu_batch_spec *b, int *batch_id,
                            char *err, size_t errlen)
{
    char files[1300], jobs[1300], log[1300], tool[1100], cursors[32], delay[32], repl[32],
        quorum[32], fpops[64];
    char *argv[32];
    struct db_batch_row row;
    FILE *f;
    int i, n = 0, r;

    snprintf(files, sizeof files, "%s.files", s->config_path);
    snprintf(jobs, sizeof jobs, "%s.jobs", s->config_path);
    snprintf(log, sizeof log, "%s.log", s->config_path);
    snprintf(tool, sizeof tool, "%s/tools/create_batch", s->builddir);
    f = fopen(files, "w");
    if (!f)
        return fail(err, errlen, "%s: %s", files, strerror(errno));
    for (i = 0; i < b->nfiles; i++)
        fprintf(f, "%s_f%06d %s/%s_f%06d %.0f\n", b->name, i, s->ctx.cfg.download_url, b->name, i,
                b->file_bytes);
    if (fclose(f) != 0)
        return fail(err, errlen, "%s: cannot write", files);
    f = fopen(jobs, "w");
    if (!f)
        return fail(err, errlen, "%s: %s", jobs, strerror(errno));
    for (i = 0; i < b->njobs; i++)
        fprintf(f, "%d %d %.6g\n", b->first_file[i], b->nfiles_job[i], b->fpops_est);
    if (fclose(f) != 0)
        return fail(err, errlen, "%s: cannot write", jobs);

    snprintf(delay, sizeof delay, "%d", b->delay_bound);
    snprintf(repl, sizeof repl, "%d", b->replication);
    snprintf(quorum, sizeof quorum, "%d", b->min_quorum);
    snprintf(fpops, sizeof fpops, "%.6g", b->fpops_est);
    argv[n++] = tool;
    argv[n++] = "--config";
    argv[n++] = s->config_path;
    argv[n++] = "--name";
    argv[n++] = (char *)b->name;
    argv[n++] = "--app";
    argv[n++] = EMU_APP;
    argv[n++] = "--files";
    argv[n++] = files;
    argv[n++] = "--jobs";
    argv[n++] = jobs;
    argv[n++] = "--fpops";
    argv[n++] = fpops;
    argv[n++] = "--delay-bound";
    argv[n++] = delay;
    argv[n++] = "--replication";
    argv[n++] = repl;
    argv[n++] = "--min-quorum";
    argv[n++] = quorum;
    if (b->locality) {
        argv[n++] = "--locality";
        if (b->ncursors > 0) {
            snprintf(cursors, sizeof cursors, "%d", b->ncursors);
            argv[n++] = "--cursors";
            argv[n++] = cursors;
        }
    }
    argv[n] = NULL;
    r = run_quiet(argv, log);
    unlink(files);
    unlink(jobs);
    if (r < 0) {
        size_t len = 0;
        char *text = buf_read_file(log, &len);
        fail(err, errlen, "%s failed: %.600s", tool, text ? text : "(no output)");
        free(text);
        unlink(log);
        return -1;
    }
    unlink(log);
    r = db_batch_lookup(s->ctx.db, b->name, 0, 0, &row);
    db_commit(s->ctx.db);
    if (r != DB_OK)
        return fail(err, errlen, "batch %s not found after create_batch: %s", b->name,
                    db_error(s->ctx.db));
    *batch_id = row.id;
    if (batch_on_emu_clock(s->ctx.db, row.id) != DB_OK)
        return fail(err, errlen, "batch %s: setting its times to the emulator's clock: %s",
                    b->name, db_error(s->ctx.db));
    app_cache_invalidate(&s->ctx.apps);
    return 0;
}

/* ---- scheduler and daemons ---- */

void emu_server_rpc(struct emu_server *s, const char *body, size_t len, struct buf *reply,
                    struct sched_stats *st)
{
    double t0 = wall_secs();
    sched_handle(&s->ctx, body, len, reply, st);
    s->handler_secs += wall_secs() - t0;
    s->rpcs++;
    s->statements += st->statements;
    if (strcmp(st->outcome, "ok") != 0)
        s->rpcs_failed++;
}

long emu_server_daemon(struct emu_server *s, enum emu_daemon which)
{
    static const daemon_pass_fn passes[EMU_NDAEMONS] = { work_generator_pass, transitioner_pass,
                                                          locality_daemon_pass };
    double t0 = wall_secs();
    long n;
    s->d[which].db = s->ctx.db;    /* the handler may have reconnected */
    n = daemon_run_pass(&s->d[which], passes[which]);
    s->daemon_secs[which] += wall_secs() - t0;
    if (n > 0)
        s->daemon_items[which] += n;
    return n;
}

/* ---- read-outs (slots 140..144, 154, 155) ---- */

static int query_ll(struct emu_server *s, int slot, const char *sql, int batch_id,
                    long long *cols, int ncols)
{
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val c[8];
    int i;
    for (i = 0; i < ncols; i++) {
        struct db_val v = DBV_LL(cols[i]);
        c[i] = v;
    }
    return db_query(s->ctx.db, slot, sql, p, 1, c, ncols, NULL, NULL, NULL, "emulator read-out");
}

int emu_server_batch_db(struct emu_server *s, int batch_id, struct emu_batch_db *o, char *err,
                        size_t errlen)
{
    long long w[4] = { 0 }, r[8] = { 0 }, d[1] = { 0 }, k[2] = { 0 };
    int rc;

    memset(o, 0, sizeof *o);
    rc = query_ll(s, 140,
                  "SELECT COUNT(*), COALESCE(SUM(canonical_resultid <> 0 OR error_mask <> 0), 0), "
                  "COALESCE(SUM(canonical_resultid <> 0), 0), COALESCE(SUM(error_mask <> 0), 0) "
                  "FROM workunit WHERE batch = ?",
                  batch_id, w, 4);
    if (rc == DB_OK)
        rc = query_ll(s, 141,
                      "SELECT COUNT(*), COALESCE(SUM(r.server_state = 2), 0), "
                      "COALESCE(SUM(r.server_state = 4), 0), "
                      "COALESCE(SUM(r.server_state = 5 AND r.outcome = 1), 0), "
                      "COALESCE(SUM(r.server_state = 5 AND r.outcome = 4), 0), "
                      "COALESCE(SUM(r.server_state = 5 AND r.outcome NOT IN (1, 4)), 0), "
                      "COALESCE(SUM((r.replica_flags & 1) <> 0), 0), "
                      "COALESCE(SUM((r.replica_flags & 2) <> 0), 0) "
                      "FROM workunit w JOIN result r ON r.workunitid = w.id WHERE w.batch = ?",
                      batch_id, r, 8);
    if (rc == DB_OK)
        rc = query_ll(s, 142,
                      "SELECT COUNT(*) FROM (SELECT r.workunitid FROM workunit w JOIN result r "
                      "ON r.workunitid = w.id WHERE w.batch = ? AND r.userid IS NOT NULL "
                      "GROUP BY r.workunitid, r.userid HAVING COUNT(*) > 1) x",
                      batch_id, d, 1);
    if (rc == DB_OK)
        rc = query_ll(s, 143,
                      "SELECT b.state, (SELECT COUNT(*) FROM locality_cursor c "
                      "WHERE c.batch_id = b.id) FROM batch b WHERE b.id = ?",
                      batch_id, k, 2);
    db_commit(s->ctx.db);
    if (rc != DB_OK)
        return fail(err, errlen, "[batch#%d] read-out: %s", batch_id, db_error(s->ctx.db));
    o->workunits = w[0];
    o->wu_finished = w[1];
    o->wu_canonical = w[2];
    o->wu_error = w[3];
    o->results = r[0];
    o->unsent = r[1];
    o->in_progress = r[2];
    o->success = r[3];
    o->no_reply = r[4];
    o->other_over = r[5];
    o->backups = r[6];
    o->host_lost = r[7];
    o->user_dups = d[0];
    o->state = (int)k[0];
    o->ncursors = (int)k[1];
    return 0;
}

struct work_row {
    struct emu_batch_work *w;
    int first, nfiles, count;
    int cap_first, cap_nfiles, cap_hosts;
    int oom;
};

static int job_row(void *ctx)
{
    struct work_row *r = ctx;
    struct emu_batch_work *w = r->w;
    if (array_grow((void **)&w->first_file, &r->cap_first, w->njobs + 1, 1024,
                   sizeof *w->first_file) < 0 ||
        array_grow((void **)&w->nfiles, &r->cap_nfiles, w->njobs + 1, 1024,
                   sizeof *w->nfiles) < 0) {
        r->oom = 1;
        return DB_ERR;
    }
    w->first_file[w->njobs] = r->first;
    w->nfiles[w->njobs++] = r->nfiles;
    return 0;
}

static int host_row(void *ctx)
{
    struct work_row *r = ctx;
    struct emu_batch_work *w = r->w;
    if (array_grow((void **)&w->host_jobs, &r->cap_hosts, w->nhosts + 1, 256,
                   sizeof *w->host_jobs) < 0) {
        r->oom = 1;
        return DB_ERR;
    }
    w->host_jobs[w->nhosts++] = r->count;
    return 0;
}

int emu_server_batch_work(struct emu_server *s, int batch_id, struct emu_batch_work *w,
                          char *err, size_t errlen)
{
    struct work_row r;
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val jc[] = { DBV_INT(r.first), DBV_INT(r.nfiles) };
    struct db_val hc[] = { DBV_INT(r.count) };
    int rc;

    memset(w, 0, sizeof *w);
    memset(&r, 0, sizeof r);
    r.w = w;
    rc = db_query(s->ctx.db, 154,
                  "SELECT first_file_num, nfiles FROM workunit WHERE batch = ? "
                  "ORDER BY job_num, id",
                  p, 1, jc, 2, job_row, &r, NULL, "emulator read-out: the batch's jobs");
    if (rc == DB_OK)
        rc = db_query(s->ctx.db, 155,
                      "SELECT COUNT(DISTINCT r.workunitid) FROM workunit w JOIN result r "
                      "ON r.workunitid = w.id WHERE w.batch = ? AND r.hostid > 0 "
                      "GROUP BY r.hostid ORDER BY r.hostid",
                      p, 1, hc, 1, host_row, &r, NULL, "emulator read-out: jobs per host");
    db_commit(s->ctx.db);
    if (rc != DB_OK) {
        emu_batch_work_free(w);
        return fail(err, errlen, "[batch#%d] jobs per host: %s", batch_id,
                    r.oom ? "out of memory" : db_error(s->ctx.db));
    }
    return 0;
}

void emu_batch_work_free(struct emu_batch_work *w)
{
    free(w->first_file);
    free(w->nfiles);
    free(w->host_jobs);
    memset(w, 0, sizeof *w);
}

int emu_server_batch_state(struct emu_server *s, int batch_id)
{
    long long v[1] = { -1 };
    int rc = query_ll(s, 144, "SELECT state FROM batch WHERE id = ?", batch_id, v, 1);
    db_commit(s->ctx.db);
    return rc == DB_OK ? (int)v[0] : -1;
}
