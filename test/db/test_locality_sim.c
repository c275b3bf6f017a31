/*
 * test_locality_sim.c - a whole locality batch worked by 50 simulated
 * hosts of 3 users and different speeds, through the real scheduler
 * handler, the real database and the real daemons (work_generator,
 * transitioner, locality_daemon run as programs between rounds).
 *
 * Asserts: every job completes and each result is sent once; no two
 * replicas go to one user; teams keep their size and, where the users
 * allow it, distinct users; every move between cursors follows the 0.5
 * rule (or leaves a finished cursor); every cursor ends past its last
 * job; every sticky file a host received is finally deleted by a
 * <delete_file_info>.  Then the same batch, dispatched plain (in job
 * order), by the same hosts, for comparison: it prints, for both, how
 * many hosts each input file reached on average and the bytes sent per
 * job, and asserts that locality sends less.
 *
 * Time is simulated: the scheduler's clock starts 30 days in the past and
 * advances ROUND_SECS per round, so that what the scheduler writes
 * (transition times) is already due for the daemons, which use the real
 * clock; deadlines (60 days) and the idle timeout (a year, in the
 * simulation's config) are set so that no result times out.  For the same
 * reason (every host looks 30 days silent to the daemons) hosts are never
 * presumed gone here (lost_host_min_silence a year), and there are no
 * backups (tail_budget 0): this test counts each replica exactly once.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "credit.h"
#include "db.h"
#include "db_admin.h"
#include "db_sched.h"
#include "db_test_util.h"
#include "handler.h"
#include "tap.h"

#define NHOSTS 50
#define NUSERS 3
/* a dense batch, as locality scheduling is for: 100 jobs per file, each
 * job using two consecutive files */
#define NJOBS 1000
#define JOBS_PER_FILE 100
#define FILES_PER_JOB 2
#define NFILES (NJOBS / JOBS_PER_FILE + FILES_PER_JOB - 1)
#define FILE_BYTES 100000
#define REPL 2
#define TEAM_MIN 8
#define TEAM_MAX 12
#define NCURSORS 5
#define FPOPS 3.6e12
#define ROUND_SECS 600
#define MAX_ROUNDS 400
#define PLATFORM "locsim-linux"
#define APP "simapp"
#define MAX_QUEUE 64
#define MAX_HELD 1024

struct sim_job {
    char name[128];
    double finish;                 /* simulated time it completes */
    double runtime;
    int deadline;
};

struct sim_host {
    int user;
    char auth[65];
    int hostid;
    int seqno;
    int ncpus;
    double p_fpops;
    double cpu_free[4];
    struct sim_job q[MAX_QUEUE];
    int nq;
    char held[MAX_HELD][64];
    int nheld;
    int cursor;                    /* last seen in batch_host, 0: none */
    char failed[64];               /* a held file to list as failed (status < 0) */
    long long bytes_down, files_down, deletes;
};

static struct sched_ctx ctx;
static time_t sim_now;
static struct sim_host hosts[NHOSTS];
static int userids[NUSERS];
static char sim_config[1200];
static const char *builddir;

/* the failed-download probe: a held file listed with status -161 */
static int probe_tries, probe_deleted, probe_reused;
static int sticky_mismatch;        /* input files sticky outside locality, or not in it */

/* every result name sent, to detect a double send */
static char (*sent_names)[128];
static int nsent, cap_sent;

/* SQL statements of locality requests: [0] no job sent, [1] jobs sent */
static unsigned long stmt_sum[2], stmt_n[2], stmt_max[2];
/* the same by statement slot (db_statement_tally), to say which run */
static unsigned long slot_sum[2][DB_TALLY_SLOTS];

static int got_jobs_in(const char *reply)
{
    return strstr(reply, "<result>\n") != NULL;
}

static time_t sim_clock(void)
{
    return sim_now;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "test_locality_sim: %s: %s\n", what, why);
    exit(2);
}

/* ---- set-up ---- */

static void make_app(void)
{
    struct db_app_version_new v;
    int appid, platid, avid, r;
    r = db_app_get_or_create(ctx.db, APP, "Locality simulation", (int)time(NULL), &appid);
    if (r == DB_OK)
        r = db_platform_get_or_create(ctx.db, PLATFORM, (int)time(NULL), &platid);
    memset(&v, 0, sizeof v);
    v.appid = appid;
    v.platformid = platid;
    v.version_num = 100;
    v.avg_ncpus = 1;
    v.flops_scale = 1;
    v.plan_class = "";
    v.coproc_type = "";
    if (r == DB_OK)
        r = db_app_version_create(ctx.db, &v, (int)time(NULL), &avid);
    if (r == DB_OK)
        r = db_app_version_file_add(ctx.db, avid, 0, "simapp_1.00", "", "http://x/simapp_1.00",
                                    10, "0123456789abcdef0123456789abcdef", "00\n.\n", 1, 0);
    if ((r != DB_OK && r != DB_DUP) || db_commit(ctx.db) != DB_OK)
        die("app version", db_error(ctx.db));
}

/* A config next to the sandbox's (relative paths stay valid) with the
 * simulation's team size and idle timeout. */
static void make_config(void)
{
    const char *base = getenv("LOCSCHED_CONFIG");
    char *text;
    size_t len;
    FILE *f;
    const char *slash;

    if (!base)
        die("config", "LOCSCHED_CONFIG is not set");
    slash = strrchr(base, '/');
    snprintf(sim_config, sizeof sim_config, "%.*s/locsim-%d.conf",
             slash ? (int)(slash - base) : 1, slash ? base : ".", (int)getpid());
    text = tu_read_file(base, &len);
    f = fopen(sim_config, "w");
    if (!f)
        die("config", sim_config);
    fputs(text, f);
    fprintf(f, "\nteam_size_min = %d\nteam_size_max = %d\nhost_idle_timeout = %d\n"
               "lost_host_min_silence = %d\ntail_budget = 0\n", TEAM_MIN, TEAM_MAX, 365 * 86400,
            365 * 86400);
    fclose(f);
    free(text);
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    int rc;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
        die("command", cmd);
    }
}

static void daemons_pass(int with_locality_daemon)
{
    run("'%s/daemons/work_generator' --config '%s' --one-pass >/dev/null 2>&1", builddir,
        sim_config);
    run("'%s/daemons/transitioner' --config '%s' --one-pass >/dev/null 2>&1", builddir,
        sim_config);
    if (with_locality_daemon)
        run("'%s/daemons/locality_daemon' --config '%s' --one-pass >/dev/null 2>&1", builddir,
            sim_config);
}

/* ---- one request ---- */

static void held_add(struct sim_host *h, const char *name)
{
    int i;
    for (i = 0; i < h->nheld; i++)
        if (strcmp(h->held[i], name) == 0)
            return;
    if (h->nheld == MAX_HELD)
        die("simulation", "a host holds too many files");
    snprintf(h->held[h->nheld++], sizeof h->held[0], "%s", name);
}

static int held_has(const struct sim_host *h, const char *name)
{
    int i;
    for (i = 0; i < h->nheld; i++)
        if (strcmp(h->held[i], name) == 0)
            return 1;
    return 0;
}

static int held_del(struct sim_host *h, const char *name)
{
    int i;
    for (i = 0; i < h->nheld; i++) {
        if (strcmp(h->held[i], name) == 0) {
            memmove(h->held[i], h->held[i + 1], sizeof h->held[0] * (size_t)(h->nheld - i - 1));
            h->nheld--;
            return 1;
        }
    }
    return 0;
}

/* Text of <tag>...</tag> starting the search at p; returns the end or NULL. */
static const char *elem(const char *p, const char *tag, char *out, size_t outlen)
{
    char open[64], close[64];
    const char *s, *e;
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    s = strstr(p, open);
    if (!s)
        return NULL;
    s += strlen(open);
    e = strstr(s, close);
    if (!e)
        return NULL;
    snprintf(out, outlen, "%.*s", (int)(e - s), s);
    return e + strlen(close);
}

static double queued_secs(const struct sim_host *h)
{
    double left = 0;
    int i;
    for (i = 0; i < h->nq; i++)
        if (h->q[i].finish > (double)sim_now)
            left += h->q[i].finish - (double)sim_now < h->q[i].runtime
                        ? h->q[i].finish - (double)sim_now : h->q[i].runtime;
    return left;
}

static void sent_add(const char *name)
{
    int i;
    for (i = 0; i < nsent; i++)
        if (strcmp(sent_names[i], name) == 0) {
            TAP_CHECK(0, "result %s sent a second time", name);
            return;
        }
    if (nsent == cap_sent) {
        cap_sent = cap_sent ? cap_sent * 2 : 1024;
        sent_names = realloc(sent_names, sizeof *sent_names * (size_t)cap_sent);
        if (!sent_names)
            die("memory", "sent names");
    }
    snprintf(sent_names[nsent++], sizeof sent_names[0], "%s", name);
}

/*
 * One scheduler RPC of host h: report what finished, list sticky files
 * (locality mode) and the jobs in progress, ask for enough work to keep
 * its CPUs busy for two rounds.  Returns the jobs received.
 */
static int rpc(struct sim_host *h, int locality, int force)
{
    struct buf req, reply;
    struct sched_stats st;
    unsigned long slot_before[DB_TALLY_SLOTS];
    const char *p;
    double want = 2.0 * ROUND_SECS * h->ncpus - queued_secs(h);
    int i, keep = 0, nreported = 0, idle = 0, got = 0;

    for (i = 0; i < h->nq; i++)
        if (h->q[i].finish <= (double)sim_now)
            nreported++;
    for (i = 0; i < h->ncpus; i++)
        if (h->cpu_free[i] <= (double)sim_now)
            idle++;
    if (want < 0)
        want = 0;
    if (!force && nreported == 0 && want < ROUND_SECS)
        return 0;
    if (want <= 0)
        h->failed[0] = 0;          /* deletions come only with work requests */
    if (h->failed[0])
        probe_tries++;

    buf_init(&req);
    buf_init(&reply);
    buf_printf(&req,
               "<scheduler_request>\n<authenticator>%s</authenticator>\n<hostid>%d</hostid>\n"
               "<rpc_seqno>%d</rpc_seqno>\n<core_client_major_version>7</core_client_major_version>\n"
               "<core_client_minor_version>20</core_client_minor_version>\n"
               "<core_client_release>5</core_client_release>\n"
               "<work_req_seconds>%.0f</work_req_seconds>\n<cpu_req_secs>%.0f</cpu_req_secs>\n"
               "<cpu_req_instances>%d</cpu_req_instances>\n<estimated_delay>0</estimated_delay>\n"
               "<platform_name>" PLATFORM "</platform_name>\n"
               "<time_stats><on_frac>1</on_frac><connected_frac>1</connected_frac>"
               "<active_frac>1</active_frac><gpu_active_frac>1</gpu_active_frac></time_stats>\n"
               "<host_info><p_ncpus>%d</p_ncpus><p_fpops>%.0f</p_fpops><p_iops>1e9</p_iops>"
               "<m_nbytes>8e9</m_nbytes><d_total>1e11</d_total><d_free>5e10</d_free>"
               "<host_cpid>sim%d</host_cpid></host_info>\n",
               h->auth, h->hostid, h->seqno, want, want, idle, h->ncpus, h->p_fpops,
               (int)(h - hosts));
    for (i = 0; i < h->nq; i++)
        if (h->q[i].finish <= (double)sim_now)
            buf_printf(&req,
                       "<result><name>%s</name><final_cpu_time>%.1f</final_cpu_time>"
                       "<final_elapsed_time>%.1f</final_elapsed_time><exit_status>0</exit_status>"
                       "<state>5</state></result>\n",
                       h->q[i].name, h->q[i].runtime, h->q[i].runtime);
    if (locality)
        for (i = 0; i < h->nheld; i++)
            buf_printf(&req, "<file_info><name>%s</name><nbytes>%d</nbytes><status>%d</status>"
                             "</file_info>\n", h->held[i], FILE_BYTES,
                       strcmp(h->held[i], h->failed) == 0 ? -161 : 1);
    buf_puts(&req, "<other_results>\n");
    for (i = 0; i < h->nq; i++)
        if (h->q[i].finish > (double)sim_now)
            buf_printf(&req, "<other_result><name>%s</name></other_result>\n", h->q[i].name);
    buf_puts(&req, "</other_results>\n<in_progress_results>\n");
    for (i = 0; i < h->nq; i++)
        if (h->q[i].finish > (double)sim_now)
            buf_printf(&req, "<ip_result><name>%s</name><report_deadline>%d</report_deadline>"
                             "<time_remaining>%.0f</time_remaining></ip_result>\n",
                       h->q[i].name, h->q[i].deadline, h->q[i].finish - (double)sim_now);
    buf_puts(&req, "</in_progress_results>\n</scheduler_request>\n");

    for (i = 0; i < DB_TALLY_SLOTS; i++)
        slot_before[i] = db_statement_tally(ctx.db, i, NULL);
    sched_handle(&ctx, req.p, req.len, &reply, &st);
    if (strcmp(st.outcome, "ok") != 0) {
        TAP_CHECK(0, "host %d: request handled (%s)", h->hostid, st.outcome);
        fprintf(stderr, "%s\n", reply.p);
        exit(1);
    }
    if (locality && h->hostid) {
        int k = got_jobs_in(reply.p) > 0 ? 1 : 0;
        stmt_sum[k] += st.statements;
        stmt_n[k]++;
        if (st.statements > stmt_max[k])
            stmt_max[k] = st.statements;
        for (i = 0; i < DB_TALLY_SLOTS; i++)
            slot_sum[k][i] += db_statement_tally(ctx.db, i, NULL) - slot_before[i];
    }
    h->seqno++;
    if (h->hostid == 0) {
        h->hostid = (int)tu_elem_ll(reply.p, "hostid");
        h->seqno = 0;
    }
    /* the finished jobs were acknowledged: drop them */
    for (i = 0; i < h->nq; i++)
        if (h->q[i].finish > (double)sim_now)
            h->q[keep++] = h->q[i];
    h->nq = keep;

    /* input files: <file_info> with a download URL */
    for (p = reply.p; (p = strstr(p, "<file_info>")) != NULL;) {
        const char *end = strstr(p, "</file_info>");
        char name[128], url[512];
        if (!end)
            break;
        if (elem(p, "name", name, sizeof name) && elem(p, "url", url, sizeof url) &&
            strstr(url, "/download/") && elem(p, "name", name, sizeof name) < end) {
            int sticky = strstr(p, "<sticky/>") && strstr(p, "<sticky/>") < end;
            if (!held_has(h, name)) {
                h->bytes_down += FILE_BYTES;
                h->files_down++;
                held_add(h, name);
            }
            if (sticky != locality)
                sticky_mismatch++;
        }
        p = end;
    }
    for (p = reply.p; (p = strstr(p, "<delete_file_info>")) != NULL;) {
        char name[128];
        p = elem(p, "delete_file_info", name, sizeof name);
        if (!p)
            break;
        if (held_del(h, name))
            h->deletes++;
    }
    if (h->failed[0]) {
        char tag[128];
        snprintf(tag, sizeof tag, "<delete_file_info>%s</delete_file_info>", h->failed);
        if (strstr(reply.p, tag))
            probe_deleted++;
        else if (snprintf(tag, sizeof tag, "<name>%s</name>", h->failed) > 0 && strstr(reply.p, tag))
            probe_reused++;         /* a job sent now uses it: kept, and that is allowed */
        h->failed[0] = 0;
    }
    /* jobs: each <result> block */
    for (p = reply.p; (p = strstr(p, "<result>\n")) != NULL;) {
        struct sim_job *j;
        char name[128], dl[32];
        int cpu = 0, k;
        p = elem(p, "name", name, sizeof name);
        if (!p || !elem(p, "report_deadline", dl, sizeof dl))
            break;
        if (h->nq == MAX_QUEUE)
            die("simulation", "queue full");
        sent_add(name);
        j = &h->q[h->nq++];
        snprintf(j->name, sizeof j->name, "%s", name);
        j->deadline = atoi(dl);
        j->runtime = FPOPS / h->p_fpops;
        for (k = 1; k < h->ncpus; k++)
            if (h->cpu_free[k] < h->cpu_free[cpu])
                cpu = k;
        if (h->cpu_free[cpu] < (double)sim_now)
            h->cpu_free[cpu] = (double)sim_now;
        j->finish = h->cpu_free[cpu] + j->runtime;
        h->cpu_free[cpu] = j->finish;
        got++;
    }
    buf_free(&req);
    buf_free(&reply);
    return got;
}

/* ---- observing teams ---- */

struct cursor_snap {
    int id, first, last, fu, nhosts;
    double remaining, expavg;
    int unsent;          /* unsent results */
    int unsent_mine;     /* unsent results the requesting host's user may take */
};

static struct cursor_snap snaps[64];
static int nsnaps;

/* db_query with a callback that copies each row into snaps[] */
static struct cursor_snap row_buf;

static int copy_row(void *x)
{
    (void)x;
    if (nsnaps < 64)
        snaps[nsnaps++] = row_buf;
    return 0;
}

/* The batch's cursors, with what the host of user userid may take in each. */
static void read_cursors(int batch, int userid)
{
    struct db_val p[] = { DBV_INT(userid), DBV_INT(batch) };
    struct db_val cols[] = { DBV_INT(row_buf.id), DBV_INT(row_buf.first), DBV_INT(row_buf.last),
                             DBV_INT(row_buf.fu), DBV_INT(row_buf.nhosts),
                             DBV_DBL(row_buf.remaining), DBV_DBL(row_buf.expavg),
                             DBV_INT(row_buf.unsent), DBV_INT(row_buf.unsent_mine) };
    nsnaps = 0;
    if (db_query(ctx.db, 150,
                 "SELECT c.id, c.first_job_num, c.last_job_num, c.first_unfinished_job_num, "
                 "c.nhosts, c.remaining_credit, c.expavg_credit, COUNT(r.id), "
                 "COUNT(r.id) - COUNT(DISTINCT IF(EXISTS (SELECT 1 FROM result o WHERE "
                 "o.workunitid = r.workunitid AND o.userid = ?), r.id, NULL)) "
                 "FROM locality_cursor c LEFT JOIN result r ON r.unsent_cursor = c.id "
                 "WHERE c.batch_id = ? GROUP BY c.id ORDER BY c.first_job_num",
                 p, 2, cols, 9, copy_row, NULL, NULL, "read cursors") != DB_OK)
        die("read cursors", db_error(ctx.db));
    db_commit(ctx.db);
}

static const struct cursor_snap *snap_of(int id)
{
    int i;
    for (i = 0; i < nsnaps; i++)
        if (snaps[i].id == id)
            return &snaps[i];
    return NULL;
}

static int host_cursor(int hostid, int batch)
{
    long long v = -1;
    struct db_val p[] = { DBV_INT(hostid), DBV_INT(batch) };
    struct db_val col[] = { DBV_LL(v) };
    if (db_query(ctx.db, 151, "SELECT cursor_id FROM batch_host WHERE host_id = ? AND batch_id = ?",
                 p, 2, col, 1, NULL, NULL, NULL, "host cursor") != DB_OK)
        die("host cursor", db_error(ctx.db));
    db_commit(ctx.db);
    return v < 0 ? 0 : (int)v;
}

static int moves, moves_finished, moves_ratio, moves_starved, bad_moves;

/* A host changed cursor from c to d during a request: was it allowed by
 * the cursors as they stood before it?  A host may leave a finished
 * cursor, or one that had nothing it could take for a cursor with
 * unsent work (starved), or move by the 0.5 rule. */
static void check_move(int from, int to)
{
    const struct cursor_snap *c = snap_of(from), *d = snap_of(to);
    double est_c, est_d;
    if (!c || !d) {
        bad_moves++;
        return;
    }
    moves++;
    if (c->fu > c->last) {
        moves_finished++;
        return;
    }
    if (c->unsent_mine == 0 && d->unsent > 0) {
        moves_starved++;
        return;
    }
    est_c = est_time_left(c->remaining, c->expavg);
    est_d = est_time_left(d->remaining, d->expavg);
    if (est_c < 0.5 * est_d) {
        moves_ratio++;
    } else {
        bad_moves++;
        printf("# a move from [cursor#%d] (%d unsent, %d for the host, est %.2f) to "
               "[cursor#%d] (%d unsent, est %.2f) by no rule\n", c->id, c->unsent,
               c->unsent_mine, est_c, d->id, d->unsent, est_d);
    }
}

struct team_row {
    int cursor, n, users;
    double max, sum;
};

static struct team_row trow;
static int team_viol_size, team_viol_user, team_viol_speed, team_checks;

/* The cursors that hosts joined or moved to in this round: the user rule
 * is the joining host's, so only their teams are checked for it (a team
 * that members left, as they do near its cursor's end, may keep fewer
 * users than it could have). */
static int joined[NHOSTS], njoined;

static int joined_this_round(int cursor)
{
    int i;
    for (i = 0; i < njoined; i++)
        if (joined[i] == cursor)
            return 1;
    return 0;
}

/* Is there an unfinished cursor with room and unsent work, other than
 * this one? */
static int room_elsewhere(int cursor)
{
    int i;
    for (i = 0; i < nsnaps; i++)
        if (snaps[i].id != cursor && snaps[i].fu <= snaps[i].last && snaps[i].nhosts < TEAM_MAX &&
            snaps[i].unsent > 0)
            return 1;
    return 0;
}

static int team_check_row(void *x)
{
    int possible_users = trow.n < NUSERS ? trow.n : NUSERS;
    (void)x;
    team_checks++;
    /* a team grows past the limit only when the other teams are full or
     * have nothing to send (the hosts of a finished cursor must go
     * somewhere, and a starved host goes where the work is) */
    if (trow.n > TEAM_MAX && room_elsewhere(trow.cursor))
        team_viol_size++;
    if (trow.users < possible_users && joined_this_round(trow.cursor)) {
        team_viol_user++;
        printf("# [cursor#%d]: %d members of %d users after a host joined\n", trow.cursor,
               trow.n, trow.users);
    }
    if (trow.n >= 3 && 2 * trow.max > trow.sum * (1 + 1e-9))
        team_viol_speed++;
    return 0;
}

static void check_teams(int batch)
{
    struct db_val p[] = { DBV_INT(batch) };
    struct db_val cols[] = { DBV_INT(trow.cursor), DBV_INT(trow.n), DBV_INT(trow.users),
                             DBV_DBL(trow.max), DBV_DBL(trow.sum) };
    if (db_query(ctx.db, 152,
                 "SELECT cursor_id, COUNT(*), COUNT(DISTINCT userid), MAX(credit_rate), "
                 "SUM(credit_rate) FROM batch_host WHERE batch_id = ? GROUP BY cursor_id",
                 p, 1, cols, 5, team_check_row, NULL, NULL, "teams") != DB_OK)
        die("teams", db_error(ctx.db));
    db_commit(ctx.db);
}

static long long q1(int slot, const char *sql, int param)
{
    return tu_scalar(&ctx, slot, sql, param);
}

/* ---- one whole batch ---- */

struct outcome {
    int rounds;
    long long bytes, files_sent, deletes;
    int files_used;
};

static void work_batch(const char *name, int locality, struct outcome *o)
{
    int batch, round, i, done = 0;
    long long before_bytes = 0, before_files = 0, before_deletes = 0;

    for (i = 0; i < NHOSTS; i++) {
        before_bytes += hosts[i].bytes_down;
        before_files += hosts[i].files_down;
        before_deletes += hosts[i].deletes;
        hosts[i].nheld = 0;     /* each batch starts with empty hosts */
    }
    {
        char jobs_path[1300];
        FILE *f;
        snprintf(jobs_path, sizeof jobs_path, "%s.jobs", sim_config);
        f = fopen(jobs_path, "w");
        if (!f)
            die("jobs file", jobs_path);
        for (i = 0; i < NJOBS; i++)
            fprintf(f, "%d %d\n", i / JOBS_PER_FILE, FILES_PER_JOB);
        fclose(f);
        run("'%s/tools/create_batch' --config '%s' --name %s --app " APP
            " --generate-files %d:%d --jobs '%s' --replication %d --min-quorum %d"
            " --delay-bound %d %s >/dev/null",
            builddir, sim_config, name, NFILES, FILE_BYTES, jobs_path, REPL, REPL, 60 * 86400,
            locality ? "--locality --cursors 5" : "");
        unlink(jobs_path);
    }
    batch = (int)q1(153, "SELECT MAX(id) FROM batch WHERE appid = "
                         "(SELECT id FROM app WHERE name = '" APP "') AND id > ?", 0);
    app_cache_invalidate(&ctx.apps);
    if (locality)
        TAP_EQ_INT(q1(154, "SELECT COUNT(*) FROM locality_cursor WHERE batch_id = ?", batch),
                   NCURSORS, "the locality batch has its cursors");
    daemons_pass(1);

    for (round = 0; round < MAX_ROUNDS && !done; round++) {
        int order[NHOSTS];
        njoined = 0;
        for (i = 0; i < NHOSTS; i++)
            order[i] = i;
        for (i = NHOSTS - 1; i > 0; i--) {     /* a different order each round */
            int k = rand() % (i + 1), t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
        for (i = 0; i < NHOSTS; i++) {
            struct sim_host *h = &hosts[order[i]];
            int before = 0, after;
            if (locality) {
                read_cursors(batch, userids[h->user]);
                before = host_cursor(h->hostid, batch);
            }
            /* the probe: from round 10, host 0 lists the last file it got
             * as failed in its next work request; the reply must tell it
             * to delete the file (unless a job of that reply uses it: then
             * again in a later round) */
            if (locality && order[i] == 0 && round >= 10 && !probe_deleted && probe_tries < 10 &&
                h->nheld > 0)
                memcpy(h->failed, h->held[h->nheld - 1], sizeof h->failed);
            rpc(h, locality, 0);
            if (locality) {
                after = host_cursor(h->hostid, batch);
                if (before && after && before != after)
                    check_move(before, after);
                if (after && before != after && !joined_this_round(after))
                    joined[njoined++] = after;
            }
        }
        if (locality) {
            read_cursors(batch, 0);
            check_teams(batch);
            if (getenv("SIM_VERBOSE"))
                for (i = 0; i < nsnaps; i++)
                    printf("# round %d [cursor#%d] jobs %d..%d next %d, %d hosts, remaining "
                           "%.0f, rate %.0f/day, est %.2f days\n", round, snaps[i].id,
                           snaps[i].first, snaps[i].last, snaps[i].fu, snaps[i].nhosts,
                           snaps[i].remaining, snaps[i].expavg,
                           est_time_left(snaps[i].remaining, snaps[i].expavg));
        }
        daemons_pass(round % 5 == 4);
        sim_now += ROUND_SECS;
        done = q1(155, "SELECT state FROM batch WHERE id = ?", batch) == BS_COMPLETE;
    }
    o->rounds = round;
    TAP_CHECK(done, "batch %s completed in %d rounds", name, round);

    /* every job finished, every result sent once and reported */
    TAP_EQ_INT(q1(156, "SELECT COUNT(*) FROM workunit WHERE batch = ? AND canonical_resultid = 0",
                  batch), 0, "every workunit has a canonical result");
    TAP_EQ_INT(q1(157, "SELECT COUNT(*) FROM result WHERE batch = ? AND outcome = 1", batch),
               NJOBS * REPL, "every replica succeeded once");
    TAP_EQ_INT(q1(158, "SELECT COUNT(*) FROM (SELECT workunitid FROM result WHERE batch = ? AND "
                       "userid IS NOT NULL GROUP BY workunitid, userid HAVING COUNT(*) > 1) x",
                  batch), 0, "no two replicas of a job went to one user");
    if (locality) {
        TAP_EQ_INT(q1(159, "SELECT COUNT(*) FROM locality_cursor WHERE batch_id = ? AND "
                           "first_unfinished_job_num <= last_job_num", batch), 0,
                   "every cursor's first_unfinished_job_num is past its last job");
        TAP_CHECK(probe_deleted == 1 && probe_deleted + probe_reused == probe_tries,
                  "a sticky file listed as failed (status -161) got a <delete_file_info> at "
                  "once, unless a job of the same reply used it (%d tries: %d deleted, %d kept "
                  "for a job)", probe_tries, probe_deleted, probe_reused);
        /* a last round: every host asks once more and drops what it holds */
        for (i = 0; i < NHOSTS; i++)
            rpc(&hosts[i], locality, 1);
        for (i = 0; i < NHOSTS; i++)
            if (hosts[i].nheld)
                break;
        TAP_EQ_INT(i, NHOSTS, "every sticky file was deleted by a <delete_file_info> (host %d "
                   "still holds %d)", i, i < NHOSTS ? hosts[i].nheld : 0);
        TAP_EQ_INT(q1(148, "SELECT COUNT(*) FROM host_file hf JOIN file f ON f.id = hf.file_id "
                           "WHERE f.batch_id = ?", batch), 0,
                   "host_file forgets every file the hosts were told to delete");
    }
    o->bytes = -before_bytes;
    o->files_sent = -before_files;
    o->deletes = -before_deletes;
    for (i = 0; i < NHOSTS; i++) {
        o->bytes += hosts[i].bytes_down;
        o->files_sent += hosts[i].files_down;
        o->deletes += hosts[i].deletes;
    }
    o->files_used = NFILES;
    TAP_EQ_INT(sticky_mismatch, 0, "input files are sticky exactly in locality batches");
    if (locality)
        TAP_EQ_INT(o->deletes, o->files_sent, "one delete for every sticky file sent");
}

int main(void)
{
    struct outcome loc, plain;
    char name[64];
    int i;

    builddir = getenv("top_builddir");
    if (!builddir)
        builddir = "..";
    srand(12345);
    tu_ctx_open(&ctx);
    ctx.clock = sim_clock;
    ctx.cfg.team_size_min = TEAM_MIN;
    ctx.cfg.team_size_max = TEAM_MAX;
    ctx.cfg.tail_budget = 0;
    sim_now = time(NULL) - 30 * 86400;
    make_app();
    make_config();

    for (i = 0; i < NUSERS; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "simuser%d", i);
        userids[i] = tu_user(&ctx, tag, hosts[i].auth);
    }
    for (i = 0; i < NHOSTS; i++) {
        struct sim_host *h = &hosts[i];
        h->user = i % NUSERS;
        memcpy(h->auth, hosts[h->user].auth, sizeof h->auth);
        h->ncpus = 1 + i % 4;
        h->p_fpops = 1e9 * (1.0 + (double)((i * 7) % 10) / 3.0);   /* 1 to 4 GFLOPS */
        rpc(h, 1, 1);        /* first contact: a host id, no batch yet */
        TAP_CHECK(h->hostid > 0, "host %d got an id", i);
    }

    snprintf(name, sizeof name, "locsim%ld", (long)time(NULL) % 100000000);
    work_batch(name, 1, &loc);
    TAP_CHECK(moves > 0, "hosts moved between cursors (%d moves)", moves);
    TAP_EQ_INT(bad_moves, 0, "every move left a finished cursor, or one with nothing for the "
               "host, or followed the 0.5 rule (%d finished, %d starved, %d by the rule)",
               moves_finished, moves_starved, moves_ratio);
    TAP_CHECK(team_checks > 0, "teams were checked (%d)", team_checks);
    TAP_EQ_INT(team_viol_size, 0, "no team over %d hosts while another has room", TEAM_MAX);
    TAP_EQ_INT(team_viol_user, 0, "teams that hosts joined have as many distinct users as "
               "they can");
    printf("# moves: %d (%d from finished cursors, %d starved, %d by the 0.5 rule); team "
           "checks %d: speed rule relaxed in %d\n", moves, moves_finished, moves_starved,
           moves_ratio, team_checks, team_viol_speed);

    printf("# statements per locality request: %.2f on average, %lu at most, with jobs sent "
           "(%lu requests); %.2f / %lu without (%lu)\n",
           stmt_n[1] ? (double)stmt_sum[1] / stmt_n[1] : 0, stmt_max[1], stmt_n[1],
           stmt_n[0] ? (double)stmt_sum[0] / stmt_n[0] : 0, stmt_max[0], stmt_n[0]);
    for (i = 0; i < DB_TALLY_SLOTS; i++) {
        const char *what;
        db_statement_tally(ctx.db, i, &what);
        if (slot_sum[0][i] || slot_sum[1][i])
            printf("#   %-32s %.3f with jobs, %.3f without\n", what,
                   stmt_n[1] ? (double)slot_sum[1][i] / stmt_n[1] : 0,
                   stmt_n[0] ? (double)slot_sum[0][i] / stmt_n[0] : 0);
    }
    /* measured 6.62 and 6.34 once the look-up also read the reported
     * results and the host's teams, and the host update wrote the
     * runtime corrections (8.80 and 8.09 before; issue 16 had measured
     * 9.76 and 8.78); then 6.67 and 6.62 once the file preference ran
     * (it had never matched a held file: one statement when a member's
     * stretch is done and it holds files) and a batch's file list was
     * read inside the transaction; 6.80 and 6.61 with the stretch read
     * in one pass; then 6.68 and 6.57 once the host update also wrote
     * the stretch decisions (issue 19), 6.56 and 6.78 in a whole make
     * check (the batches and hosts of the tests before change the run) */
    TAP_CHECK(stmt_n[1] > 0 && (double)stmt_sum[1] / stmt_n[1] <= 6.8,
              "locality requests that send jobs average at most 6.8 statements");
    TAP_CHECK(stmt_n[0] > 0 && (double)stmt_sum[0] / stmt_n[0] <= 6.9,
              "locality requests that send no job average at most 6.9 statements");

    snprintf(name, sizeof name, "plainsim%ld", (long)time(NULL) % 100000000);
    work_batch(name, 0, &plain);

    printf("# locality: %d rounds, each input file sent to %.2f hosts on average, "
           "%.0f bytes sent per job, %lld deletes\n",
           loc.rounds, (double)loc.files_sent / loc.files_used, (double)loc.bytes / NJOBS,
           loc.deletes);
    printf("# plain:    %d rounds, each input file sent to %.2f hosts on average, "
           "%.0f bytes sent per job\n",
           plain.rounds, (double)plain.files_sent / plain.files_used,
           (double)plain.bytes / NJOBS);
    TAP_CHECK(loc.bytes < plain.bytes, "locality sends fewer bytes (%lld) than plain (%lld)",
              loc.bytes, plain.bytes);
    unlink(sim_config);
    free(sent_names);
    sched_ctx_free(&ctx);
    return tap_done();
}
