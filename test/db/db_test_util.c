/*
 * db_test_util.c - shared set-up for the DB tests (db_test_util.h).
 */
#include "db_test_util.h"

#include <errno.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "db_admin.h"
#include "db_sched.h"

void tu_bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

char *tu_read_file(const char *path, size_t *len)
{
    char *p = buf_read_file(path, len);
    if (!p)
        tu_bail("cannot read", path);
    return p;
}

const char *tu_src_path(const char *rel)
{
    static char path[4096];
    const char *srcdir = getenv("srcdir");
    snprintf(path, sizeof path, "%s/%s", srcdir && srcdir[0] ? srcdir : "test", rel);
    if (access(path, R_OK) != 0)
        snprintf(path, sizeof path, "test/%s", rel);
    return path;
}

void tu_ctx_open(struct sched_ctx *ctx)
{
    char err[1024];
    const char *cfg = getenv("LOCSCHED_CONFIG");
    if (!cfg || !cfg[0])
        tu_bail("LOCSCHED_CONFIG", "not set: run through test/run_suite");
    if (sched_ctx_init(ctx, cfg, err, sizeof err) < 0)
        tu_bail("sched_ctx_init", err);
    if (!ctx->db)
        tu_bail("database", "not reachable");
    ctx->cfg.record_requests = 0;
    /* the tests make a batch and ask for its jobs at once: a young batch
     * would go one job per idle CPU (test_finish_line tests that rule) */
    ctx->cfg.finish_line_young = 0;
}

int tu_user(struct sched_ctx *ctx, const char *tag, char auth[65])
{
    unsigned char raw[16], hash[32];
    char email[128];
    int i, id = 0;
    if (RAND_bytes(raw, sizeof raw) != 1)
        tu_bail("RAND_bytes", "failed");
    for (i = 0; i < 16; i++)
        snprintf(auth + 2 * i, 3, "%02x", raw[i]);
    SHA256((const unsigned char *)auth, 32, hash);
    snprintf(email, sizeof email, "%s-%s@test", tag, auth);
    if (db_user_create(ctx->db, tag, email, auth, hash, (int)time(NULL), &id) != DB_OK ||
        db_commit(ctx->db) != DB_OK)
        tu_bail("create user", db_error(ctx->db));
    return id;
}

const char *tu_app_name = "tapp";
const char *tu_platform_name = "x86_64-pc-linux-gnu";

void tu_app(struct sched_ctx *ctx, const char *coproc_type)
{
    struct db_app_version_new v;
    char file[64], url[96];
    int appid, platid, avid, r;
    snprintf(file, sizeof file, "%s_1.00", tu_app_name);
    snprintf(url, sizeof url, "http://x/%s", file);
    r = db_app_get_or_create(ctx->db, tu_app_name, "Test app", (int)time(NULL), &appid);
    if (r == DB_OK)
        r = db_platform_get_or_create(ctx->db, tu_platform_name, (int)time(NULL), &platid);
    if (r != DB_OK)
        tu_bail("app", db_error(ctx->db));
    memset(&v, 0, sizeof v);
    v.appid = appid;
    v.platformid = platid;
    v.version_num = 100;
    v.avg_ncpus = 1;
    v.flops_scale = 1;
    v.plan_class = "";
    v.coproc_type = "";
    r = db_app_version_create(ctx->db, &v, (int)time(NULL), &avid);
    if (r == DB_OK)
        r = db_app_version_file_add(ctx->db, avid, 0, file, "", url, 10,
                                    "0123456789abcdef0123456789abcdef", "00\n.\n", 1, 0);
    if (r != DB_OK && r != DB_DUP)
        tu_bail("app version", db_error(ctx->db));
    if (coproc_type) {
        v.plan_class = "gpu";
        v.coproc_type = coproc_type;
        v.coproc_count = 1;
        v.avg_ncpus = 0.1;
        r = db_app_version_create(ctx->db, &v, (int)time(NULL), &avid);
        if (r == DB_OK)
            r = db_app_version_file_add(ctx->db, avid, 0, file, "", url, 10,
                                        "0123456789abcdef0123456789abcdef", "00\n.\n", 1, 0);
        if (r != DB_OK && r != DB_DUP)
            tu_bail("gpu app version", db_error(ctx->db));
    }
    if (db_commit(ctx->db) != DB_OK)
        tu_bail("commit", db_error(ctx->db));
    ctx->apps.loaded_at = 0;   /* reload */
}

int tu_batch(struct sched_ctx *ctx, const char *name, int njobs, int repl, double fpops,
             int nfiles, int delay_bound)
{
    struct db_batch_new b;
    int appid, batch, i, k, r, now = (int)time(NULL);
    if (db_app_lookup(ctx->db, tu_app_name, &appid) != DB_OK)
        tu_bail("batch", "no app tapp");
    memset(&b, 0, sizeof b);
    b.name = name;
    b.appid = appid;
    b.njobs = njobs;
    b.nfiles = nfiles;
    b.delay_bound = delay_bound;
    b.target_nresults = repl;
    b.min_quorum = repl;
    b.max_error_results = 3;
    b.max_total_results = repl + 3;
    b.rsc_memory_bound = 1e8;
    b.rsc_disk_bound = 1e9;
    b.max_out_nbytes = 1e6;
    b.total_fpops = (double)njobs * repl * fpops;
    r = db_batch_create(ctx->db, &b, now, &batch);
    for (i = 0; r == DB_OK && i < nfiles; i++) {
        char fname[128];
        snprintf(fname, sizeof fname, "%s_f%d", name, i);
        r = db_file_add(ctx->db, batch, i, fname, 1000, "0123456789abcdef0123456789abcdef", "",
                        1, NULL);
    }
    for (i = 0; r == DB_OK && i < njobs; i++) {
        struct db_workunit_new w;
        char wname[128];
        int wu;
        memset(&w, 0, sizeof w);
        snprintf(wname, sizeof wname, "%s_%d", name, i);
        w.appid = appid;
        w.batch = batch;
        w.job_num = i;
        w.first_file_num = nfiles ? i % nfiles : 0;
        w.nfiles = nfiles ? 1 : 0;
        w.delay_bound = delay_bound;
        w.min_quorum = repl;
        w.target_nresults = repl;
        w.max_error_results = 3;
        w.max_total_results = repl + 3;
        w.name = wname;
        w.command_line = "";
        w.rsc_fpops_est = fpops;
        w.rsc_fpops_bound = fpops * 10;
        w.rsc_memory_bound = 1e8;
        w.rsc_disk_bound = 1e9;
        w.max_out_nbytes = 1e6;
        r = db_workunit_create(ctx->db, &w, now, &wu);
        for (k = 0; r == DB_OK && k < repl; k++) {
            char rname[160];
            snprintf(rname, sizeof rname, "%s_%d", wname, k);
            r = db_result_create(ctx->db, wu, rname, appid, batch, 0, i, RS_UNSENT, now, NULL);
        }
    }
    if (r == DB_OK)
        r = db_batch_set_state(ctx->db, batch, BS_IN_PROGRESS);   /* as create_batch does */
    if (r == DB_OK)
        r = db_commit(ctx->db);
    if (r != DB_OK)
        tu_bail("create batch", db_error(ctx->db));
    app_cache_invalidate(&ctx->apps);
    return batch;
}

void tu_recorded_request(struct buf *b, const char *file, const char *auth, int hostid,
                         int seqno)
{
    char rel[256], num[32], *t;
    snprintf(rel, sizeof rel, "recorded/%s", file);
    t = tu_read_file(tu_src_path(rel), NULL);
    buf_puts(b, t);
    free(t);
    tu_set_elem(b, "authenticator", auth);
    snprintf(num, sizeof num, "%d", hostid);
    tu_set_elem(b, "hostid", num);
    snprintf(num, sizeof num, "%d", seqno);
    tu_set_elem(b, "rpc_seqno", num);
}

void tu_set_elem(struct buf *b, const char *tag, const char *value)
{
    char open[64], close[64];
    char *s, *e;
    struct buf nb;
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    s = strstr(b->p, open);
    if (!s)
        tu_bail("template has no element", tag);
    s += strlen(open);
    e = strstr(s, close);
    if (!e)
        tu_bail("template element not closed", tag);
    buf_init(&nb);
    buf_put(&nb, b->p, (size_t)(s - b->p));
    buf_puts(&nb, value);
    buf_puts(&nb, e);
    buf_free(b);
    *b = nb;
}

int tu_count(const char *hay, const char *needle)
{
    int n = 0;
    size_t l = strlen(needle);
    while ((hay = strstr(hay, needle))) {
        n++;
        hay += l;
    }
    return n;
}

long long tu_elem_ll(const char *text, const char *tag)
{
    char open[64];
    const char *s;
    snprintf(open, sizeof open, "<%s>", tag);
    s = strstr(text, open);
    return s ? atoll(s + strlen(open)) : -1;
}

long long tu_scalar(struct sched_ctx *ctx, int slot, const char *sql, int param)
{
    long long v = -1;
    struct db_val p[] = { DBV_INT(param) };
    struct db_val col[] = { DBV_LL(v) };
    if (db_query(ctx->db, slot, sql, p, strchr(sql, '?') ? 1 : 0, col, 1, NULL, NULL, NULL,
                 "test query") != DB_OK)
        tu_bail("test query", db_error(ctx->db));
    db_commit(ctx->db);
    return v;
}

long long tu_scalar2(struct sched_ctx *ctx, int slot, const char *sql, int a, int b)
{
    long long v = -1;
    struct db_val p[] = { DBV_INT(a), DBV_INT(b) };
    struct db_val col[] = { DBV_LL(v) };
    if (db_query(ctx->db, slot, sql, p, 2, col, 1, NULL, NULL, NULL, "test query") != DB_OK)
        tu_bail("test query", db_error(ctx->db));
    db_commit(ctx->db);
    return v;
}

void tu_exec(struct sched_ctx *ctx, int slot, const char *sql, struct db_val *p, int n,
             const char *what)
{
    if (db_exec(ctx->db, slot, sql, p, n, NULL, what) != DB_OK || db_commit(ctx->db) != DB_OK)
        tu_bail(what, db_error(ctx->db));
}

/* ---- locality batches for the daemon tests ---- */

#include "credit.h"

int tu_locality_batch(struct sched_ctx *ctx, const char *name, int njobs, int ncursors, int repl,
                      double fpops, int max_errors, int *cursors)
{
    struct db_batch_new b;
    int appid, batch = 0, i, k, r, now = (int)time(NULL);

    if (db_app_lookup(ctx->db, tu_app_name, &appid) != DB_OK)
        tu_bail("locality batch", "no app tapp");
    if (ncursors < 1 || ncursors > njobs)
        tu_bail("locality batch", "need 1 <= ncursors <= njobs");
    memset(&b, 0, sizeof b);
    b.name = name;
    b.appid = appid;
    b.locality = 1;
    b.njobs = njobs;
    b.nfiles = njobs + 1;
    b.delay_bound = 3600;
    b.target_nresults = repl;
    b.min_quorum = 1;
    b.max_error_results = max_errors;
    b.max_total_results = repl + 4;
    b.rsc_memory_bound = 1e8;
    b.rsc_disk_bound = 1e9;
    b.max_out_nbytes = 1e6;
    for (i = 0; i < njobs; i++)
        b.total_fpops += fpops * (1 + i % 3) * repl;   /* the jobs' sizes, as below */
    r = db_batch_create(ctx->db, &b, now, &batch);
    if (r == DB_OK)
        r = db_batch_set_state(ctx->db, batch, BS_IN_PROGRESS);
    for (i = 0; r == DB_OK && i <= njobs; i++) {
        char fname[160];
        snprintf(fname, sizeof fname, "%s_f%d", name, i);
        r = db_file_add(ctx->db, batch, i, fname, 1000, "0123456789abcdef0123456789abcdef", "",
                        1, NULL);
    }
    for (i = 0; r == DB_OK && i < njobs; i++)
        r = db_batch_job_add(ctx->db, batch, i, i, 2, fpops * (1 + i % 3), "");
    for (k = 0; r == DB_OK && k < ncursors; k++) {
        int first = k * njobs / ncursors, last = (k + 1) * njobs / ncursors - 1;
        double sum = 0;
        for (i = first; i <= last; i++)
            sum += fpops * (1 + i % 3);
        r = db_cursor_create(ctx->db, batch, first, last, last + 1, credit_of_fpops(sum), now,
                             &cursors[k]);
    }
    if (r == DB_OK)
        r = db_commit(ctx->db);
    if (r != DB_OK)
        tu_bail("create locality batch", db_error(ctx->db));
    return batch;
}

int tu_first_contact(struct sched_ctx *ctx, const char *auth, struct buf *reply)
{
    struct sched_stats st;
    struct buf b;

    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, 0, 0);
    tu_set_elem(&b, "work_req_seconds", "0");
    tu_set_elem(&b, "cpu_req_secs", "0");
    tu_set_elem(&b, "cpu_req_instances", "0");
    sched_handle(ctx, b.p, b.len, reply, &st);
    buf_free(&b);
    if (st.status != 0)
        tu_bail("first contact", st.outcome);
    return (int)tu_elem_ll(reply->p, "hostid");
}

int tu_bare_host(struct sched_ctx *ctx, int insert_slot, int select_slot, int userid)
{
    struct db_val h[] = { DBV_INT(userid) };
    tu_exec(ctx, insert_slot, "INSERT INTO host (userid) VALUES (?)", h, 1, "make a bare host");
    return (int)tu_scalar(ctx, select_slot, "SELECT MAX(id) FROM host WHERE userid = ?", userid);
}

void tu_member(struct sched_ctx *ctx, int slot, int host, int batch, int cursor, int userid,
               int first, int last, int now)
{
    struct db_val m[] = { DBV_INT(host), DBV_INT(batch), DBV_INT(cursor), DBV_INT(userid),
                          DBV_INT(first), DBV_INT(last), DBV_INT(now) };
    tu_exec(ctx, slot,
            "INSERT INTO batch_host (host_id, batch_id, cursor_id, userid, stretch_first, "
            "stretch_last, assign_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            m, 7, "make a team member");
}

struct listing {
    char name[256];
    struct buf xml;
};

static int list_row(void *vctx)
{
    struct listing *l = vctx;
    buf_printf(&l->xml, "\n    <other_result>\n        <name>%s</name>\n"
                        "        <app_version>-1</app_version>\n    </other_result>\n",
               l->name);
    return 0;
}

void tu_list_in_progress(struct sched_ctx *ctx, int slot, struct buf *b, int host)
{
    struct listing l;
    struct db_val p[] = { DBV_INT(host) };
    struct db_val col[] = { DBV_BUF(l.name) };
    buf_init(&l.xml);
    if (db_query(ctx->db, slot, "SELECT name FROM result WHERE hostid = ? AND server_state = 4 "
                                "ORDER BY id", p, 1, col, 1, list_row, &l, NULL,
                 "the host's jobs") != DB_OK)
        tu_bail("the host's jobs", db_error(ctx->db));
    db_commit(ctx->db);
    tu_set_elem(b, "other_results", l.xml.p ? l.xml.p : "");
    buf_free(&l.xml);
}

void tu_retire_batches_from(struct sched_ctx *ctx, int first_id)
{
    struct db_val p[] = { DBV_INT(first_id) };
    if (db_exec(ctx->db, 159, "UPDATE batch SET state = 4 WHERE id >= ? AND state IN (0, 1)", p,
                1, NULL, "retire test batches") != DB_OK ||
        db_commit(ctx->db) != DB_OK)
        tu_bail("retire test batches", db_error(ctx->db));
    app_cache_invalidate(&ctx->apps);
}

/* ---- child processes ---- */

void tu_daemon_config(const char *dir, const char *up, const char *tag, const char *keys,
                      const char *settings)
{
    const char *src = getenv("LOCSCHED_CONFIG");
    char cmd[8192];
    if (!src || !src[0])
        tu_bail("LOCSCHED_CONFIG", "not set: run through test/run_suite");
    if ((size_t)snprintf(cmd, sizeof cmd,
                         "grep -v -E '^[[:space:]]*(log_dir|log_level|upload_dir|%s)"
                         "[[:space:]]*=' '%s' >'%s/%s.conf' && "
                         "printf 'log_dir = %%s/log\nlog_level = 0\nupload_dir = %%s\n%%s\n' "
                         "'%s' '%s' '%s' >>'%s/%s.conf'", keys, src, dir, tag, dir, up, settings,
                         dir, tag) >= sizeof cmd)
        tu_bail("daemon config", "too long");
    if (system(cmd) != 0)
        tu_bail("daemon config", cmd);
}

void tu_daemon_dirs(const char *sub, char *dir, size_t dirlen, char *up, size_t uplen,
                    char *bindir, size_t bindirlen)
{
    const char *top = getenv("top_builddir");
    char cmd[4096];
    if (!getcwd(dir, dirlen) || strlen(dir) + strlen(sub) + 2 > dirlen)
        tu_bail("getcwd", "fails or too long");
    strcat(dir, "/");
    strcat(dir, sub);
    if ((size_t)snprintf(up, uplen, "%s/upload", dir) >= uplen ||
        (size_t)snprintf(bindir, bindirlen, "%s/daemons", top && top[0] ? top : "..") >=
            bindirlen ||
        (size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/log' '%s'", dir, dir,
                         up) >= sizeof cmd)
        tu_bail("daemon folders", "path too long");
    if (system(cmd) != 0)
        tu_bail("daemon folders", cmd);
}

pid_t tu_spawn(const char *path, const char *const *argv)
{
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        tu_bail("fork", strerror(errno));
    if (pid == 0) {
        execv(path, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

int tu_generated_locality_batch(struct sched_ctx *ctx, const char *prefix, int njobs, int repl,
                                char *name, size_t namelen, int *cursor)
{
    int batch;
    tu_retire_batches_from(ctx, 1);
    snprintf(name, namelen, "%s%ld", prefix, (long)time(NULL) % 100000000);
    batch = tu_locality_batch(ctx, name, njobs, 1, repl, 1e12, 2, cursor);
    tu_work_generator_pass();
    return batch;
}

void tu_work_generator_pass(void)
{
    const char *top = getenv("top_builddir"), *conf = getenv("LOCSCHED_CONFIG");
    char path[4200];
    const char *argv[] = { path, "--config", conf, "--one-pass", NULL };
    int status;
    pid_t pid;

    if (!conf || !conf[0])
        tu_bail("LOCSCHED_CONFIG", "not set: run through test/run_suite");
    snprintf(path, sizeof path, "%s/daemons/work_generator", top && top[0] ? top : "..");
    if (access(path, X_OK) != 0)
        tu_bail("work generator not built", path);
    pid = tu_spawn(path, argv);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        tu_bail("work_generator --one-pass", "failed");
}
