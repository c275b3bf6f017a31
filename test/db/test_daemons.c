/*
 * test_daemons.c - the three daemons, run as programs (--one-pass) on the
 * test sandbox's database: the work generator's cushion and names, the
 * transitioner's deadlines, credit, errors, cursor progress and batch
 * completion, the locality daemon's churn and team figures, --mod
 * partitioning of each, and the skeleton's stop file, signals and
 * command line.
 *
 * The daemons read a copy of $LOCSCHED_CONFIG, written in the working
 * folder (daemons-test.conf; its stop file goes there too), with a small
 * cushion, a one-day idle timeout and a log folder of their own.  The test
 * reads and writes rows through the data layer with constant statements
 * (slots 140..159, unused by the programs' own statements).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "credit.h"
#include "db_admin.h"
#include "db_test_util.h"
#include "tap.h"

#define NEVER 2147483647
#define CUSHION 3
#define IDLE_TIMEOUT 86400

static struct sched_ctx ctx;
static char conf_path[4096], conf_dir[4096], log_dir[4096], bindir[4096];

static void bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

/* ---------------------------------------------------------------- set-up */

/* The daemons' config: the sandbox's, with our cushion, idle timeout,
 * log folder and debug logging. */
static void write_config(void)
{
    const char *src = getenv("LOCSCHED_CONFIG"), *top = getenv("top_builddir");
    char line[4096];
    FILE *in, *out;

    if (!src || !src[0])
        bail("LOCSCHED_CONFIG", "not set: run through test/run_suite");
    if (!getcwd(conf_dir, sizeof conf_dir - 64))
        bail("getcwd", strerror(errno));
    snprintf(conf_path, sizeof conf_path, "%s/daemons-test.conf", conf_dir);
    snprintf(log_dir, sizeof log_dir, "%s/daemons-test-log", conf_dir);
    mkdir(log_dir, 0755);
    snprintf(bindir, sizeof bindir, "%s/daemons", top && top[0] ? top : "..");
    in = fopen(src, "r");
    out = fopen(conf_path, "w");
    if (!in || !out)
        bail("config copy", strerror(errno));
    while (fgets(line, sizeof line, in)) {
        const char *k = line + strspn(line, " \t");
        if (strncmp(k, "work_cushion", 12) == 0 || strncmp(k, "host_idle_timeout", 17) == 0 ||
            strncmp(k, "log_dir", 7) == 0 || strncmp(k, "log_level", 9) == 0)
            continue;
        fputs(line, out);
    }
    fprintf(out, "\nwork_cushion = %d\nhost_idle_timeout = %d\nlog_dir = %s\nlog_level = 0\n",
            CUSHION, IDLE_TIMEOUT, log_dir);
    fclose(in);
    if (fclose(out) != 0)
        bail("config copy", strerror(errno));
    chmod(conf_path, 0600);
}

/* Start a daemon with --config and the given arguments (NULL-terminated);
 * returns its pid. */
static pid_t start_daemon(const char *prog, const char *const *args)
{
    char path[4200];
    const char *argv[16];
    int n = 0;

    snprintf(path, sizeof path, "%s/%s", bindir, prog);
    if (access(path, X_OK) != 0)
        bail("daemon not built", path);
    argv[n++] = path;
    argv[n++] = "--config";
    argv[n++] = conf_path;
    while (*args && n < 15)
        argv[n++] = *args++;
    argv[n] = NULL;
    return tu_spawn(path, argv);
}

/* Wait up to secs for pid; returns its exit status, or -1 (killed after
 * the time, or by a signal). */
static int wait_daemon(pid_t pid, double secs)
{
    int st, i;
    for (i = 0; i < (int)(secs * 20); i++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/* One pass of a daemon; extra arguments (e.g. "--mod", "2", "1") or NULL. */
static int one_pass(const char *prog, const char *a1, const char *a2, const char *a3)
{
    const char *args[] = { "--one-pass", a1, a2, a3, NULL };
    return wait_daemon(start_daemon(prog, args), 120);
}

static int one_pass_mod(const char *prog, int n, int i)
{
    char sn[16], si[16];
    snprintf(sn, sizeof sn, "%d", n);
    snprintf(si, sizeof si, "%d", i);
    return one_pass(prog, "--mod", sn, si);
}

/* ---------------------------------------------------------------- rows */

static void check_db(int r, const char *what)
{
    if (r != DB_OK)
        bail(what, db_error(ctx.db));
}

struct wu_row {
    int id;
    char name[256];
    int canonical, error_mask, transition_time, first_file_num, nfiles, cursor_id, job_num;
    int batch, appid, target;
    double fpops, canonical_credit;
};

static void get_wu(int id, struct wu_row *w)
{
    struct db_val p[] = { DBV_INT(id) };
    struct db_val cols[] = {
        DBV_INT(w->id), DBV_BUF(w->name), DBV_INT(w->canonical), DBV_INT(w->error_mask),
        DBV_INT(w->transition_time), DBV_INT(w->first_file_num), DBV_INT(w->nfiles),
        DBV_INT(w->cursor_id), DBV_INT(w->job_num), DBV_INT(w->batch), DBV_INT(w->appid),
        DBV_INT(w->target), DBV_DBL(w->fpops), DBV_DBL(w->canonical_credit),
    };
    memset(w, 0, sizeof *w);
    check_db(db_query(ctx.db, 140,
                      "SELECT id, name, canonical_resultid, error_mask, transition_time, "
                      "first_file_num, nfiles, cursor_id, job_num, batch, appid, target_nresults, "
                      "rsc_fpops_est, canonical_credit FROM workunit WHERE id = ?",
                      p, 1, cols, 14, NULL, NULL, NULL, "read workunit"), "read workunit");
    db_commit(ctx.db);
}

/* The workunit of a cursor's job (0 if none). */
static int wu_of(int cursor, int job)
{
    int id = 0;
    struct db_val p[] = { DBV_INT(cursor), DBV_INT(job) };
    struct db_val cols[] = { DBV_INT(id) };
    check_db(db_query(ctx.db, 141,
                      "SELECT id FROM workunit WHERE cursor_id = ? AND job_num = ?", p, 2, cols,
                      1, NULL, NULL, NULL, "find workunit"), "find workunit");
    db_commit(ctx.db);
    return id;
}

struct res_row {
    int id;
    char name[256];
    int state, outcome, validate, cursor_id, job_num, appid, batch, flags;
    double credit;
};

struct res_list {
    struct res_row cur, v[16];
    int n;
};

static int res_add(void *vctx)
{
    struct res_list *l = vctx;
    if (l->n < 16)
        l->v[l->n++] = l->cur;
    return 0;
}

/* The results of a workunit in id order. */
static int results_of(int wuid, struct res_list *l)
{
    struct db_val p[] = { DBV_INT(wuid) };
    struct db_val cols[] = {
        DBV_INT(l->cur.id), DBV_BUF(l->cur.name), DBV_INT(l->cur.state), DBV_INT(l->cur.outcome),
        DBV_INT(l->cur.validate), DBV_INT(l->cur.cursor_id), DBV_INT(l->cur.job_num),
        DBV_INT(l->cur.appid), DBV_INT(l->cur.batch), DBV_DBL(l->cur.credit),
        DBV_INT(l->cur.flags),
    };
    l->n = 0;
    check_db(db_query(ctx.db, 142,
                      "SELECT id, name, server_state, outcome, validate_state, cursor_id, "
                      "job_num, appid, batch, granted_credit, replica_flags FROM result "
                      "WHERE workunitid = ? ORDER BY id", p, 1, cols, 11, res_add, l, NULL, "read results"),
             "read results");
    db_commit(ctx.db);
    return l->n;
}

struct cur_row {
    int fu, fug, nhosts, update_time;
    double remaining, expavg, maxc;
};

static void get_cursor(int id, struct cur_row *c)
{
    struct db_val p[] = { DBV_INT(id) };
    struct db_val cols[] = { DBV_INT(c->fu), DBV_INT(c->fug), DBV_INT(c->nhosts),
                             DBV_INT(c->update_time), DBV_DBL(c->remaining),
                             DBV_DBL(c->expavg), DBV_DBL(c->maxc) };
    memset(c, 0, sizeof *c);
    check_db(db_query(ctx.db, 143,
                      "SELECT first_unfinished_job_num, first_ungenerated_job_num, nhosts, "
                      "update_time, remaining_credit, expavg_credit, max_host_credit "
                      "FROM locality_cursor WHERE id = ?", p, 1, cols, 7, NULL, NULL, NULL,
                      "read cursor"), "read cursor");
    db_commit(ctx.db);
}

struct credit_row {
    double total, expavg, expavg_time;
};

static void get_credit(int is_user, int id, struct credit_row *cr)
{
    struct db_val p[] = { DBV_INT(id) };
    struct db_val cols[] = { DBV_DBL(cr->total), DBV_DBL(cr->expavg), DBV_DBL(cr->expavg_time) };
    memset(cr, 0, sizeof *cr);
    if (is_user)
        check_db(db_query(ctx.db, 145, "SELECT total_credit, expavg_credit, expavg_time "
                          "FROM user WHERE id = ?", p, 1, cols, 3, NULL, NULL, NULL,
                          "read user"), "read user");
    else
        check_db(db_query(ctx.db, 144, "SELECT total_credit, expavg_credit, expavg_time "
                          "FROM host WHERE id = ?", p, 1, cols, 3, NULL, NULL, NULL,
                          "read host"), "read host");
    db_commit(ctx.db);
}

static int batch_state(int id, int *completion_time)
{
    int state = -1, ct = 0;
    struct db_val p[] = { DBV_INT(id) };
    struct db_val cols[] = { DBV_INT(state), DBV_INT(ct) };
    check_db(db_query(ctx.db, 146, "SELECT state, completion_time FROM batch WHERE id = ?", p,
                      1, cols, 2, NULL, NULL, NULL, "read batch"), "read batch");
    db_commit(ctx.db);
    if (completion_time)
        *completion_time = ct;
    return state;
}

/* What the scheduler does to a result: send it, or take its report. */
static void set_result(int id, int state, int outcome, int hostid, int userid, int deadline,
                       int received)
{
    struct db_val p[] = { DBV_INT(state), DBV_INT(outcome), DBV_INT(hostid), DBV_INT(userid),
                          DBV_INT(deadline), DBV_INT(received), DBV_INT(id) };
    check_db(db_exec(ctx.db, 147,
                     "UPDATE result SET server_state = ?, outcome = ?, hostid = ?, "
                     "userid = NULLIF(?, 0), report_deadline = ?, received_time = ? WHERE id = ?",
                     p, 7, NULL, "set result"), "set result");
    check_db(db_commit(ctx.db), "commit");
}

static void set_wu_due(int wuid, int t)
{
    struct db_val p[] = { DBV_INT(t), DBV_INT(wuid) };
    check_db(db_exec(ctx.db, 148, "UPDATE workunit SET transition_time = ? WHERE id = ?", p, 2,
                     NULL, "set transition time"), "set transition time");
    check_db(db_commit(ctx.db), "commit");
}

/* A reported result of a workunit's n-th result (the scheduler's report
 * sets transition_time = now). */
static void report(int wuid, int nth, int outcome, int hostid, int userid, int now)
{
    struct res_list l;
    if (results_of(wuid, &l) <= nth)
        bail("report", "no such result");
    set_result(l.v[nth].id, 5, outcome, hostid, userid, now + 3600, now);
    set_wu_due(wuid, now);
}

static void set_host(int id, int rpc_time, double p_fpops, int ncpus, double expavg,
                     double expavg_time)
{
    struct db_val p[] = { DBV_INT(rpc_time), DBV_DBL(p_fpops), DBV_INT(ncpus), DBV_DBL(expavg),
                          DBV_DBL(expavg_time), DBV_INT(id) };
    check_db(db_exec(ctx.db, 149,
                     "UPDATE host SET rpc_time = ?, p_fpops = ?, p_ncpus = ?, on_frac = 1, "
                     "active_frac = 1, expavg_credit = ?, expavg_time = ? WHERE id = ?",
                     p, 6, NULL, "set host"), "set host");
    check_db(db_commit(ctx.db), "commit");
}

/* GPUs of type NVIDIA, usable half the time. */
static void set_gpus(int id, int count, double peak)
{
    struct db_val p[] = { DBV_INT(count), DBV_DBL(peak), DBV_INT(id) };
    check_db(db_exec(ctx.db, 165,
                     "UPDATE host SET gpu_nvidia_count = ?, gpu_nvidia_peak_flops = ?, "
                     "gpu_active_frac = 0.5 WHERE id = ?",
                     p, 3, NULL, "set GPUs"), "set GPUs");
    check_db(db_commit(ctx.db), "commit");
}

static void add_member(int host, int batch, int cursor, int user, double rate, int now)
{
    struct db_val p[] = { DBV_INT(host), DBV_INT(batch), DBV_INT(cursor), DBV_INT(user),
                          DBV_DBL(rate), DBV_INT(now) };
    check_db(db_exec(ctx.db, 150,
                     "INSERT INTO batch_host (host_id, batch_id, cursor_id, userid, credit_rate, "
                     "assign_time) VALUES (?, ?, ?, ?, ?, ?)", p, 6, NULL, "add member"),
             "add member");
    check_db(db_commit(ctx.db), "commit");
}

static double member_rate(int host, int cursor)
{
    double v = -1;
    struct db_val p[] = { DBV_INT(host), DBV_INT(cursor) };
    struct db_val cols[] = { DBV_DBL(v) };
    check_db(db_query(ctx.db, 152, "SELECT credit_rate FROM batch_host WHERE host_id = ? AND "
                      "cursor_id = ?", p, 2, cols, 1, NULL, NULL, NULL, "read member"),
             "read member");
    db_commit(ctx.db);
    return v;
}

static void set_team(int cursor, int nhosts, double expavg, double maxc)
{
    struct db_val p[] = { DBV_INT(nhosts), DBV_DBL(expavg), DBV_DBL(maxc), DBV_INT(cursor) };
    check_db(db_exec(ctx.db, 153, "UPDATE locality_cursor SET nhosts = ?, expavg_credit = ?, "
                     "max_host_credit = ? WHERE id = ?", p, 4, NULL, "set team"), "set team");
    check_db(db_commit(ctx.db), "commit");
}

static long long count_wus(int cursor)
{
    return tu_scalar(&ctx, 154, "SELECT COUNT(*) FROM workunit WHERE cursor_id = ?", cursor);
}

static long long count_unsent(int cursor)
{
    return tu_scalar(&ctx, 155,
                     "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND server_state = 2",
                     cursor);
}

static long long count_members(int cursor)
{
    return tu_scalar(&ctx, 151, "SELECT COUNT(*) FROM batch_host WHERE cursor_id = ?", cursor);
}

static int host_new(int user)
{
    int id = 0;
    check_db(db_host_insert(ctx.db, user, (int)time(NULL), &id), "create host");
    check_db(db_commit(ctx.db), "commit");
    return id;
}

/* credit of a test job: fpops * (1 + j % 3) */
static double job_credit(double fpops, int j)
{
    return credit_of_fpops(fpops * (1 + j % 3));
}

static int rel_close(double a, double b, double tol)
{
    double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= tol * (s > 0 ? s : 1);
}

/* ---------------------------------------------------------------- tests */

#define FPOPS 1e13

static char bname[64];
static int batch_a, cur_a[2], users[3], hosts[3];

static void test_work_generator(void)
{
    struct cur_row c0, c1;
    struct wu_row w;
    struct res_list l;
    char want[128];
    int i, j, pbatch, clash_wu = 0;

    /* a workunit of another batch holding the name job 4 would get */
    {
        char pname[64];
        snprintf(pname, sizeof pname, "dmC%ld", (long)time(NULL) % 100000000);
        pbatch = tu_batch(&ctx, pname, 0, 1, 1e12, 0, 3600);
    }
    {
        struct db_workunit_new nw;
        char name[128];
        memset(&nw, 0, sizeof nw);
        snprintf(name, sizeof name, "%s__4", bname);
        check_db(db_app_lookup(ctx.db, "tapp", &nw.appid), "app");
        nw.batch = pbatch;
        nw.name = name;
        nw.command_line = "";
        nw.rsc_fpops_est = nw.rsc_fpops_bound = 1e12;
        nw.rsc_memory_bound = nw.rsc_disk_bound = nw.max_out_nbytes = 1e6;
        nw.delay_bound = 3600;
        nw.min_quorum = nw.target_nresults = 1;
        nw.max_error_results = nw.max_total_results = 1;
        check_db(db_workunit_create(ctx.db, &nw, (int)time(NULL), &clash_wu), "clash wu");
        check_db(db_commit(ctx.db), "commit");
        set_wu_due(clash_wu, NEVER);
    }

    TAP_EQ_INT(one_pass("work_generator", NULL, NULL, NULL), 0, "work_generator --one-pass");
    get_cursor(cur_a[0], &c0);
    get_cursor(cur_a[1], &c1);
    TAP_EQ_INT(c0.fug, CUSHION, "cursor 1: first_ungenerated advanced by the cushion");
    TAP_EQ_INT(c1.fug, 6 + CUSHION, "cursor 2: first_ungenerated advanced by the cushion");
    TAP_EQ_INT(count_wus(cur_a[0]), CUSHION, "cursor 1: %d workunits", CUSHION);
    TAP_EQ_INT(count_unsent(cur_a[0]), 2 * CUSHION, "cursor 1: 2 unsent results per job");
    for (j = 0; j < CUSHION; j++) {
        int id = wu_of(cur_a[0], j);
        TAP_CHECK(id > 0, "job %d has a workunit", j);
        get_wu(id, &w);
        snprintf(want, sizeof want, "%s__%d", bname, j);
        TAP_EQ_STR(w.name, want, "job %d: workunit name", j);
        TAP_EQ_INT(w.batch, batch_a, "job %d: batch", j);
        TAP_EQ_INT(w.first_file_num, j, "job %d: first file from batch_job", j);
        TAP_EQ_INT(w.nfiles, 2, "job %d: nfiles from batch_job", j);
        TAP_EQ_DBL(w.fpops, FPOPS * (1 + j % 3), 1, "job %d: rsc_fpops_est from batch_job", j);
        TAP_EQ_INT(w.target, 2, "job %d: target_nresults from the batch", j);
        TAP_EQ_INT(w.transition_time, NEVER, "job %d: no transition needed yet", j);
        TAP_EQ_INT(results_of(id, &l), 2, "job %d: two results", j);
        for (i = 0; i < l.n; i++) {
            snprintf(want, sizeof want, "%s__%d__%d", bname, j, i);
            TAP_EQ_STR(l.v[i].name, want, "job %d: result %d name", j, i);
            TAP_CHECK(l.v[i].state == 2 && l.v[i].cursor_id == cur_a[0] &&
                      l.v[i].job_num == j && l.v[i].batch == batch_a && l.v[i].appid == w.appid,
                      "job %d: result %d UNSENT with cursor, job, batch and app", j, i);
        }
    }

    /* a full cushion: nothing more */
    TAP_EQ_INT(one_pass("work_generator", NULL, NULL, NULL), 0, "second pass");
    get_cursor(cur_a[0], &c0);
    TAP_EQ_INT(c0.fug, CUSHION, "full cushion: nothing generated");
    TAP_EQ_INT(count_wus(cur_a[0]), CUSHION, "full cushion: still %d workunits", CUSHION);

    /* two jobs of each cursor sent: each needs two more; --mod splits */
    for (i = 0; i < 2; i++) {
        int k;
        for (k = 0; k < 2; k++) {
            int wu = wu_of(cur_a[i], i * 6 + k);
            results_of(wu, &l);
            set_result(l.v[0].id, 4, 0, hosts[0], users[0], (int)time(NULL) + 3600, 0);
            set_result(l.v[1].id, 4, 0, hosts[1], users[1], (int)time(NULL) + 3600, 0);
        }
    }
    TAP_CHECK(cur_a[0] % 2 != cur_a[1] % 2, "the two cursors' ids differ in parity");
    TAP_EQ_INT(one_pass_mod("work_generator", 2, cur_a[0] % 2), 0, "--mod 2 %d", cur_a[0] % 2);
    get_cursor(cur_a[0], &c0);
    get_cursor(cur_a[1], &c1);
    TAP_EQ_INT(c0.fug, CUSHION + 2, "--mod: cursor 1 refilled");
    TAP_EQ_INT(c1.fug, 6 + CUSHION, "--mod: cursor 2 left to the other instance");
    TAP_EQ_INT(one_pass_mod("work_generator", 2, cur_a[1] % 2), 0, "--mod 2 %d", cur_a[1] % 2);
    get_cursor(cur_a[1], &c1);
    TAP_EQ_INT(c1.fug, 6 + CUSHION + 2, "--mod: the other instance refilled cursor 2");
    TAP_EQ_INT(count_unsent(cur_a[0]), 2 * CUSHION, "cursor 1: cushion restored");

    /* job 4's usual name was taken */
    get_wu(wu_of(cur_a[0], 4), &w);
    snprintf(want, sizeof want, "%s__4__b%d", bname, batch_a);
    TAP_EQ_STR(w.name, want, "a taken name gets the long form");
    results_of(w.id, &l);
    snprintf(want, sizeof want, "%s__4__b%d__0", bname, batch_a);
    TAP_EQ_STR(l.v[0].name, want, "its results follow it");
    get_wu(wu_of(cur_a[0], 3), &w);
    snprintf(want, sizeof want, "%s__3", bname);
    TAP_EQ_STR(w.name, want, "the other names stay short");
}

static void test_transitioner(void)
{
    int now = (int)time(NULL), w0, w1, w2;
    struct res_list l0, l1;
    struct wu_row w;
    struct cur_row c;
    struct credit_row h0, h1, u0, u1;
    double remaining, avg = 0, avg_time = 0, half_life = ctx.cfg.credit_half_life;
    char want[128];

    /* job 0: one replica past its deadline, one still running */
    w0 = wu_of(cur_a[0], 0);
    results_of(w0, &l0);
    set_result(l0.v[0].id, 4, 0, hosts[0], users[0], now - 100, 0);
    set_result(l0.v[1].id, 4, 0, hosts[1], users[1], now + 3600, 0);
    /* job 1: one success reported, one still running */
    w1 = wu_of(cur_a[0], 1);
    report(w1, 0, RO_SUCCESS, hosts[0], users[0], now);
    /* job 2: two client errors (max_error_results 1) */
    w2 = wu_of(cur_a[0], 2);
    report(w2, 0, RO_CLIENT_ERROR, hosts[0], users[0], now);
    report(w2, 1, RO_CLIENT_ERROR, hosts[1], users[1], now);

    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "transitioner --one-pass");

    results_of(w0, &l0);
    TAP_CHECK(l0.v[0].state == 5 && l0.v[0].outcome == 4, "past its deadline: OVER, NO_REPLY");
    TAP_EQ_INT(l0.v[1].state, 4, "the replica within its deadline still runs");
    TAP_EQ_INT(l0.n, 3, "a replacement result was made");
    snprintf(want, sizeof want, "%s__0__2", bname);
    TAP_EQ_STR(l0.v[2].name, want, "replacement name");
    TAP_CHECK(l0.v[2].state == 2 && l0.v[2].cursor_id == cur_a[0] && l0.v[2].job_num == 0 &&
              l0.v[2].batch == batch_a, "replacement is UNSENT, in the cursor, job 0");
    get_wu(w0, &w);
    TAP_EQ_INT(w.canonical, 0, "job 0 is not finished");

    results_of(w1, &l1);
    get_wu(w1, &w);
    TAP_EQ_INT(w.canonical, l1.v[0].id, "job 1: the success is the canonical result");
    TAP_EQ_DBL(w.canonical_credit, job_credit(FPOPS, 1), 1e-9, "job 1: canonical credit");
    TAP_EQ_DBL(l1.v[0].credit, job_credit(FPOPS, 1), 1e-9, "job 1: credit granted to the result");
    TAP_EQ_INT(l1.v[0].validate, 1, "job 1: validate_state VALID");
    TAP_EQ_INT(l1.v[1].state, 4, "job 1: the running replica is left alone");
    TAP_EQ_INT(w.transition_time, NEVER, "job 1: no transition pending");
    get_credit(0, hosts[0], &h0);
    get_credit(1, users[0], &u0);
    TAP_EQ_DBL(h0.total, job_credit(FPOPS, 1), 1e-9, "host total_credit");
    TAP_EQ_DBL(u0.total, job_credit(FPOPS, 1), 1e-9, "user total_credit");
    TAP_CHECK(h0.expavg_time >= now && h0.expavg_time <= now + 120, "host expavg_time is now");
    credit_update_average(&avg, &avg_time, job_credit(FPOPS, 1), h0.expavg_time, half_life);
    TAP_EQ_DBL(h0.expavg, avg, 1e-9, "host expavg_credit by credit_update_average");
    TAP_EQ_DBL(u0.expavg, avg, 1e-6, "user expavg_credit by credit_update_average");

    get_wu(w2, &w);
    TAP_EQ_INT(w.error_mask, 2, "job 2: two errors over max_error_results 1: TOO_MANY_ERRORS");
    TAP_EQ_INT(w.canonical, 0, "job 2: no canonical result");

    get_cursor(cur_a[0], &c);
    TAP_EQ_INT(c.fu, 0, "cursor: job 0 unfinished, first_unfinished stays 0");
    remaining = job_credit(FPOPS, 0) + job_credit(FPOPS, 3) + job_credit(FPOPS, 4) +
                job_credit(FPOPS, 5);
    TAP_CHECK(rel_close(c.remaining, remaining, 1e-9),
              "cursor: remaining_credit is the unfinished jobs' (%g, want %g)", c.remaining,
              remaining);
    TAP_EQ_INT(batch_state(batch_a, NULL), BS_IN_PROGRESS, "batch still in progress");

    /* job 0 finishes, and job 1's second replica reports late */
    report(w0, 1, RO_SUCCESS, hosts[1], users[1], now);
    report(w1, 1, RO_SUCCESS, hosts[1], users[1], now);
    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "second pass");
    results_of(w0, &l0);
    get_wu(w0, &w);
    TAP_EQ_INT(w.canonical, l0.v[1].id, "job 0: canonical result");
    TAP_CHECK(l0.v[2].state == 5 && l0.v[2].outcome == 5, "job 0: the replacement: DIDNT_NEED");
    TAP_CHECK(l0.v[0].state == 5 && l0.v[0].outcome == 4, "job 0: the timed-out one stays");
    results_of(w1, &l1);
    get_wu(w1, &w);
    TAP_EQ_INT(w.canonical, l1.v[0].id, "job 1: canonical result unchanged");
    TAP_EQ_DBL(l1.v[1].credit, job_credit(FPOPS, 1), 1e-9, "job 1: a late success is credited");
    get_credit(0, hosts[1], &h1);
    get_credit(1, users[1], &u1);
    TAP_EQ_DBL(h1.total, job_credit(FPOPS, 0) + job_credit(FPOPS, 1), 1e-9,
               "second host: credit of both jobs");
    TAP_EQ_DBL(u1.total, job_credit(FPOPS, 0) + job_credit(FPOPS, 1), 1e-9,
               "second user: credit of both jobs");
    get_cursor(cur_a[0], &c);
    TAP_EQ_INT(c.fu, 3, "cursor: first_unfinished past jobs 0..2, stops at job 3");
    remaining = job_credit(FPOPS, 3) + job_credit(FPOPS, 4) + job_credit(FPOPS, 5);
    TAP_CHECK(rel_close(c.remaining, remaining, 1e-9), "cursor: remaining_credit %g, want %g",
              c.remaining, remaining);
}

/* A locality batch completes when every cursor is past its last job. */
static void test_locality_completion(void)
{
    char name[64];
    int cur[2], batch, now = (int)time(NULL), ct = 0;
    struct cur_row c;

    snprintf(name, sizeof name, "dmB%ld", (long)time(NULL) % 100000000);
    batch = tu_locality_batch(&ctx, name, 2, 2, 1, FPOPS, 3, cur);
    TAP_EQ_INT(one_pass("work_generator", NULL, NULL, NULL), 0, "generate batch B");
    TAP_CHECK(wu_of(cur[0], 0) > 0 && wu_of(cur[1], 1) > 0, "batch B: both jobs generated");
    report(wu_of(cur[0], 0), 0, RO_SUCCESS, hosts[0], users[0], now);
    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "transitioner, first cursor done");
    get_cursor(cur[0], &c);
    TAP_EQ_INT(c.fu, 1, "first cursor past its last job");
    TAP_EQ_DBL(c.remaining, 0, 0, "first cursor: remaining_credit 0");
    TAP_EQ_INT(batch_state(batch, NULL), BS_IN_PROGRESS, "batch B in progress: one cursor left");
    report(wu_of(cur[1], 1), 0, RO_SUCCESS, hosts[1], users[1], now);
    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "transitioner, second cursor done");
    TAP_EQ_INT(batch_state(batch, &ct), BS_COMPLETE, "batch B complete");
    TAP_CHECK(ct >= now && ct <= now + 120, "batch B: completion_time set");
}

/* A plain batch completes when every workunit is finished; --mod splits
 * the workunits between two transitioners. */
static void test_plain_completion_and_mod(void)
{
    char name[64];
    int batch, now = (int)time(NULL), wu[2], i;
    struct wu_row w;

    snprintf(name, sizeof name, "dmP%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 2, 1, FPOPS, 0, 3600);   /* IN_PROGRESS */
    for (i = 0; i < 2; i++) {
        wu[i] = (int)tu_scalar(&ctx, 156,
                               "SELECT MIN(id) FROM workunit WHERE batch = ? AND job_num = 0",
                               batch) + i;
        get_wu(wu[i], &w);
        TAP_CHECK(w.batch == batch && w.job_num == i, "plain workunit %d found", i);
        report(wu[i], 0, RO_SUCCESS, hosts[2], users[2], now);
    }
    TAP_CHECK(wu[0] % 2 != wu[1] % 2, "the two workunits' ids differ in parity");
    TAP_EQ_INT(one_pass_mod("transitioner", 2, wu[0] % 2), 0, "transitioner --mod 2 %d",
               wu[0] % 2);
    get_wu(wu[0], &w);
    TAP_CHECK(w.canonical > 0, "--mod: its workunit decided");
    get_wu(wu[1], &w);
    TAP_EQ_INT(w.canonical, 0, "--mod: the other instance's workunit untouched");
    TAP_EQ_INT(batch_state(batch, NULL), BS_IN_PROGRESS, "plain batch: one job left");
    TAP_EQ_INT(one_pass_mod("transitioner", 2, wu[1] % 2), 0, "transitioner --mod 2 %d",
               wu[1] % 2);
    get_wu(wu[1], &w);
    TAP_CHECK(w.canonical > 0, "--mod: the other workunit decided by the other instance");
    TAP_EQ_INT(batch_state(batch, NULL), BS_COMPLETE, "plain batch complete");
}

/* A host's rhythm, lost_time and its results' replica_flags. */
static void set_rhythm(int id, int rpc_time, double gap_avg, double gap_dev)
{
    struct db_val p[] = { DBV_INT(rpc_time), DBV_DBL(gap_avg), DBV_DBL(gap_dev), DBV_INT(id) };
    check_db(db_exec(ctx.db, 157,
                     "UPDATE host SET rpc_time = ?, rpc_gap_avg = ?, rpc_gap_dev = ?, "
                     "rpc_gap_n = IF(rpc_gap_avg > 0, 10, 0), lost_time = 0 WHERE id = ?", p, 4, NULL, "set rhythm"), "set rhythm");
    check_db(db_commit(ctx.db), "commit");
}

static long long lost_time_of(int host)
{
    return tu_scalar(&ctx, 158, "SELECT lost_time FROM host WHERE id = ?", host);
}

/* Hosts silent far beyond their rhythm are presumed gone: their results
 * in progress get a new replica well before the deadline; the original
 * still counts when it comes back; a host back in touch is no longer
 * presumed gone. */
static void test_lost_hosts(void)
{
    char name[64], auth[65];
    int now = (int)time(NULL), batch, wu[3], h[3], u[3], i, first;
    struct res_list l;
    struct wu_row w;
    struct db_host_update hu;

    snprintf(name, sizeof name, "dmL%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 3, 1, FPOPS, 0, 4 * 86400);
    first = (int)tu_scalar(&ctx, 156,
                           "SELECT MIN(id) FROM workunit WHERE batch = ? AND job_num = 0", batch);
    for (i = 0; i < 3; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "dmlost%d", i);
        u[i] = tu_user(&ctx, tag, auth);
        h[i] = host_new(u[i]);
        wu[i] = first + i;
        results_of(wu[i], &l);
        set_result(l.v[0].id, 4, 0, h[i], u[i], now + 3 * 86400, 0);
    }
    /* 0: hourly contacts, silent for 20 hours: gone (limit: the 4-hour floor)
     * 1: contacts every 2 hours, give or take 1, silent 5 hours: limit 9 hours
     * 2: one contact only, 20 hours ago: limit lost_host_new_silence, a day */
    set_rhythm(h[0], now - 72000, 3600, 600);
    set_rhythm(h[1], now - 18000, 7200, 3600);
    set_rhythm(h[2], now - 72000, 0, 0);

    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "transitioner: lost hosts");
    TAP_CHECK(lost_time_of(h[0]) >= now && lost_time_of(h[0]) <= now + 120,
              "silent 20 h with an hourly rhythm: presumed gone");
    TAP_EQ_INT(lost_time_of(h[1]), 0, "silent 5 h, every 2 h give or take 1: not gone");
    TAP_EQ_INT(lost_time_of(h[2]), 0, "no rhythm yet, silent 20 h: not gone");
    results_of(wu[0], &l);
    TAP_EQ_INT(l.n, 2, "the lost host's job got a new result");
    TAP_EQ_INT(l.v[0].flags, 2, "the original is flagged RF_HOST_LOST");
    TAP_CHECK(l.v[0].state == 4, "the original stays in progress (it may come back)");
    TAP_CHECK(l.n == 2 && l.v[1].state == 2 && l.v[1].flags == 0,
              "the new result is UNSENT and plain");
    TAP_EQ_INT(results_of(wu[1], &l), 1, "the other jobs get nothing");
    TAP_EQ_INT(results_of(wu[2], &l), 1, "... nor the new host's");

    /* another pass: nothing more (the host is marked, the job has its replica) */
    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "second pass");
    TAP_EQ_INT(results_of(wu[0], &l), 2, "no second replacement");

    /* the original comes back first: it is the canonical result, the
     * replacement is no longer needed */
    report(wu[0], 0, RO_SUCCESS, h[0], u[0], now);
    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "third pass");
    results_of(wu[0], &l);
    get_wu(wu[0], &w);
    TAP_EQ_INT(w.canonical, l.v[0].id, "the returning original is canonical");
    TAP_CHECK(l.v[1].state == 5 && l.v[1].outcome == RO_DIDNT_NEED,
              "its replacement, unsent, is not needed");
    TAP_CHECK(l.v[0].credit > 0, "the original is credited");

    /* the host is back: its request clears lost_time */
    memset(&hu, 0, sizeof hu);
    hu.id = h[0];
    hu.rpc_time = now;
    hu.rpc_gap_avg = 3600;
    check_db(db_host_update(ctx.db, &hu), "host update");
    check_db(db_commit(ctx.db), "commit");
    TAP_EQ_INT(lost_time_of(h[0]), 0, "a request clears lost_time");

    /* a day of silence without a rhythm: gone too */
    set_rhythm(h[2], now - 90000, 0, 0);
    TAP_EQ_INT(one_pass("transitioner", NULL, NULL, NULL), 0, "fourth pass");
    TAP_CHECK(lost_time_of(h[2]) > 0, "no rhythm, silent 25 h: presumed gone");
    TAP_EQ_INT(results_of(wu[2], &l), 2, "its job got a new result");

    /* leave nothing of this batch to send to the tests that follow (slot
     * 130: a daemon's, which this program never prepares itself) */
    {
        struct db_val p[] = { DBV_INT(batch) };
        check_db(db_exec(ctx.db, 130, "UPDATE result SET server_state = 5, outcome = 5 "
                         "WHERE batch = ? AND server_state IN (2, 4)", p, 1, NULL,
                         "close the lost-host batch"), "close the lost-host batch");
        check_db(db_commit(ctx.db), "commit");
    }
}

static void test_locality_daemon(void)
{
    int now = (int)time(NULL), i;
    struct cur_row c0, c1;
    struct host_speed hs;
    double rate0, rate2, half_life = ctx.cfg.credit_half_life;
    struct credit_row h0;

    /* host 0: benchmark-rated, fresh; host 1: not seen for 10 days;
     * host 2: a large recent average */
    get_credit(0, hosts[0], &h0);
    set_host(hosts[0], now, 2e9, 4, h0.expavg, h0.expavg_time);
    set_host(hosts[1], now - 10 * 86400, 1e9, 1, 0, 0);
    set_host(hosts[2], now, 1e9, 1, 5000, now);
    for (i = 0; i < 3; i++)
        add_member(hosts[i], batch_a, cur_a[1], users[i], 1, now);
    set_team(cur_a[1], 7, 123, 9);
    set_team(cur_a[0], 5, 50, 50);     /* an empty team with wrong figures */

    memset(&hs, 0, sizeof hs);
    hs.p_fpops = 2e9;
    hs.p_ncpus = 4;
    hs.on_frac = hs.active_frac = 1;
    hs.expavg_credit = h0.expavg;
    hs.expavg_time = h0.expavg_time;
    rate0 = host_credit_rate(&hs, now, half_life);
    hs.p_fpops = 1e9;
    hs.p_ncpus = 1;
    hs.expavg_credit = 5000;
    hs.expavg_time = now;
    rate2 = host_credit_rate(&hs, now, half_life);

    TAP_EQ_INT(one_pass_mod("locality_daemon", 2, cur_a[1] % 2), 0, "locality_daemon --mod 2 %d",
               cur_a[1] % 2);
    TAP_EQ_INT(count_members(cur_a[1]), 2, "the idle host left the team");
    TAP_EQ_DBL(member_rate(hosts[1], cur_a[1]), -1, 0, "its batch_host row is gone");
    get_cursor(cur_a[1], &c1);
    TAP_EQ_INT(c1.nhosts, 2, "cursor: nhosts recomputed");
    TAP_CHECK(rel_close(member_rate(hosts[0], cur_a[1]), rate0, 1e-5),
              "member rate from the benchmark (%g, want %g)", member_rate(hosts[0], cur_a[1]),
              rate0);
    TAP_CHECK(rel_close(member_rate(hosts[2], cur_a[1]), rate2, 1e-5),
              "member rate from the average (%g, want %g)", member_rate(hosts[2], cur_a[1]),
              rate2);
    TAP_CHECK(rel_close(c1.expavg, rate0 + rate2, 1e-5), "cursor: expavg_credit %g, want %g",
              c1.expavg, rate0 + rate2);
    TAP_CHECK(rel_close(c1.maxc, rate2 > rate0 ? rate2 : rate0, 1e-5),
              "cursor: max_host_credit %g", c1.maxc);
    TAP_CHECK(c1.update_time >= now && c1.update_time <= now + 120, "cursor: update_time set");
    get_cursor(cur_a[0], &c0);
    TAP_EQ_INT(c0.nhosts, 5, "--mod: the other cursor left to the other instance");

    /* a GPU counts only when the project has a version for its type */
    {
        struct db_app_version_new v;
        int appid = 0, platid = 0, avid = 0;
        double gpu = 5e9 * ctx.cfg.gpu_flops_scale / 1e9 * 200;
        set_gpus(hosts[0], 2, 5e9);
        TAP_EQ_INT(one_pass_mod("locality_daemon", 2, cur_a[1] % 2), 0, "locality_daemon again");
        TAP_CHECK(rel_close(member_rate(hosts[0], cur_a[1]), rate0, 1e-5),
                  "GPUs of a type no app version uses: not counted (%g, want %g)",
                  member_rate(hosts[0], cur_a[1]), rate0);
        memset(&v, 0, sizeof v);
        check_db(db_app_get_or_create(ctx.db, "tgpu", "GPU test app", now, &appid), "app");
        check_db(db_platform_get_or_create(ctx.db, "x86_64-pc-linux-gnu", now, &platid),
                 "platform");
        v.appid = appid;
        v.platformid = platid;
        v.version_num = 100;
        v.plan_class = "cuda";
        v.coproc_type = "NVIDIA";
        v.api_version = v.cmdline = "";
        v.avg_ncpus = 0.1;
        v.coproc_count = 1;
        v.flops_scale = 1;
        check_db(db_app_version_create(ctx.db, &v, now, &avid), "GPU app version");
        check_db(db_commit(ctx.db), "commit the GPU version");
        TAP_EQ_INT(one_pass_mod("locality_daemon", 2, cur_a[1] % 2), 0,
                   "locality_daemon with an NVIDIA version");
        TAP_CHECK(rel_close(member_rate(hosts[0], cur_a[1]), rate0 + 2 * 0.5 * gpu, 1e-5),
                  "two GPUs, usable half the time, counted (%g, want %g)",
                  member_rate(hosts[0], cur_a[1]), rate0 + 2 * 0.5 * gpu);
        {
            /* leave no GPU version to the tests that follow */
            struct db_val q[] = { DBV_INT(avid) };
            check_db(db_exec(ctx.db, 166, "UPDATE app_version SET deprecated = 1 WHERE id = ?", q,
                             1, NULL, "deprecate the GPU version"),
                     "deprecate the GPU version");
            check_db(db_commit(ctx.db), "commit");
        }
        set_gpus(hosts[0], 0, 0);
    }

    TAP_EQ_INT(one_pass("locality_daemon", NULL, NULL, NULL), 0, "locality_daemon, all cursors");
    get_cursor(cur_a[0], &c0);
    TAP_CHECK(c0.nhosts == 0 && c0.expavg == 0 && c0.maxc == 0,
              "an empty team: its figures are zero, its cursor stays");
    get_cursor(cur_a[1], &c1);
    TAP_EQ_INT(c1.nhosts, 2, "a second pass keeps the team");
}

static int file_has(const char *path, const char *needle)
{
    size_t len = 0;
    char *t;
    int r;
    if (access(path, R_OK) != 0)
        return 0;
    t = tu_read_file(path, &len);
    r = strstr(t, needle) != NULL;
    free(t);
    return r;
}

static void test_skeleton(void)
{
    char stop[4200], logf[4200];
    const char *loop_args[] = { "--sleep", "1", "--log", NULL };
    const char *bad_mod[] = { "--one-pass", "--mod", "2", "2", NULL };
    const char *bad_sleep[] = { "--one-pass", "--sleep", "-1", NULL };
    const char *bad_arg[] = { "--one-pass", "--frobnicate", NULL };
    pid_t pid;
    int st;

    snprintf(stop, sizeof stop, "%s/stop_daemons", conf_dir);
    snprintf(logf, sizeof logf, "%s/transitioner.log", log_dir);
    unlink(stop);
    unlink(logf);

    /* the stop file stops a running daemon */
    pid = start_daemon("transitioner", loop_args);
    usleep(1500000);
    TAP_CHECK(waitpid(pid, &st, WNOHANG) == 0, "the daemon keeps running (--sleep 1)");
    {
        FILE *f = fopen(stop, "w");
        if (f)
            fclose(f);
    }
    TAP_EQ_INT(wait_daemon(pid, 10), 0, "the stop file stops it, exit status 0");
    TAP_CHECK(file_has(logf, "stop file"), "--log writes LOG_DIR/transitioner.log");
    TAP_CHECK(file_has(logf, "[transitioner:"), "log lines name the program");
    /* with the stop file present, a daemon does not start its work */
    TAP_EQ_INT(one_pass("work_generator", NULL, NULL, NULL), 0, "stop file: exits at once, 0");
    unlink(stop);

    /* SIGTERM: the handler sets a flag, the loop ends cleanly */
    pid = start_daemon("locality_daemon", loop_args);
    usleep(1200000);
    kill(pid, SIGTERM);
    TAP_EQ_INT(wait_daemon(pid, 10), 0, "SIGTERM stops it, exit status 0");
    pid = start_daemon("work_generator", loop_args);
    usleep(1200000);
    kill(pid, SIGINT);
    TAP_EQ_INT(wait_daemon(pid, 10), 0, "SIGINT stops it, exit status 0");

    TAP_EQ_INT(wait_daemon(start_daemon("transitioner", bad_mod), 10), 2, "--mod 2 2 refused");
    TAP_EQ_INT(wait_daemon(start_daemon("transitioner", bad_sleep), 10), 2, "--sleep -1 refused");
    TAP_EQ_INT(wait_daemon(start_daemon("transitioner", bad_arg), 10), 2,
               "an unknown argument refused");
}

int main(void)
{
    char auth[65];
    int i;

    tu_ctx_open(&ctx);
    write_config();
    tu_app(&ctx, NULL);
    for (i = 0; i < 3; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "dmuser%d", i);
        users[i] = tu_user(&ctx, tag, auth);
        hosts[i] = host_new(users[i]);
    }
    snprintf(bname, sizeof bname, "dmA%ld", (long)time(NULL) % 100000000);
    batch_a = tu_locality_batch(&ctx, bname, 12, 2, 2, FPOPS, 1, cur_a);

    test_work_generator();
    test_transitioner();
    test_locality_completion();
    test_plain_completion_and_mod();
    test_lost_hosts();
    test_locality_daemon();
    test_skeleton();
    /* leave no active batch behind: the scheduler tests that run next
     * would put their hosts in these teams */
    tu_retire_batches_from(&ctx, batch_a);
    return tap_done();
}
