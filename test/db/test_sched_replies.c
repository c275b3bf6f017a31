/*
 * test_sched_replies.c - request/reply tests of the scheduler on the real
 * database: first contact, CPU work, CPU plus coprocessor work, report
 * only, report plus work, sticky files listed, unknown authenticator,
 * hostid spoofing, every malformed input of test/malformed/ (each must
 * get a reply with a message and change nothing), and backup replicas of
 * a batch's tail.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "db_tail.h"
#include "db_test_util.h"
#include "scan_front.h"
#include "tap.h"

static struct sched_ctx ctx;
static struct buf reply;

static char *recorded(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "recorded/%s", name);
    return tu_read_file(tu_src_path(rel), NULL);
}

/* Send a recorded body with identity fields replaced. */
static void send_req(const char *file, const char *auth, int hostid, int seqno,
                     struct sched_stats *st)
{
    struct buf b;
    buf_init(&b);
    tu_recorded_request(&b, file, auth, hostid, seqno);
    sched_handle(&ctx, b.p, b.len, &reply, st);
    buf_free(&b);
}

static long long db_count(int slot, const char *sql, int param)
{
    return tu_scalar(&ctx, slot, sql, param);
}

/* On-disk temporary tables this connection (the scheduler's) has made. */
static long long tmp_disk_tables(void)
{
    return db_count(166, "SELECT VARIABLE_VALUE + ? FROM information_schema.SESSION_STATUS "
                         "WHERE VARIABLE_NAME = 'CREATED_TMP_DISK_TABLES'", 0);
}

/* Statement slots of the tail test's own queries: the daemons' range,
 * which this program (the scheduler alone) never uses. */
#define TS_SLOT 120

/* Rows this connection's statements have read so far (handler counters:
 * key look-ups, index steps, table scans). */
static long long rows_read(void)
{
    return tu_scalar(&ctx, TS_SLOT + 8,
                     "SELECT SUM(CAST(VARIABLE_VALUE AS SIGNED)) + 0 * ? "
                     "FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME IN "
                     "('HANDLER_READ_KEY', 'HANDLER_READ_NEXT', 'HANDLER_READ_RND_NEXT')", 0);
}

static void set_turnaround(int hostid, double avg, int n)
{
    struct db_val p[] = { DBV_DBL(avg), DBV_INT(n), DBV_INT(hostid) };
    if (db_exec(ctx.db, TS_SLOT, "UPDATE host SET avg_turnaround = ?, turnaround_n = ? WHERE id = ?",
                p, 3, NULL, "test") != DB_OK || db_commit(ctx.db) != DB_OK)
        TAP_CHECK(0, "set turnaround: %s", db_error(ctx.db));
}

/* A host asking for work: first contact, then a work request (its id). */
static int new_host_asks(const char *auth, struct sched_stats *st)
{
    int h;
    send_req("01-first-contact-attach.xml", auth, 0, 0, st);
    h = (int)tu_elem_ll(reply.p, "hostid");
    send_req("02-hostid-assigned-work-request.xml", auth, h, 1, st);
    return h;
}

/* Rows one read of the backups' candidates (limit 1) touches. */
static long long tail_read_rows(int userid, int appid, int now, struct db_tail_cand *tc,
                                int *nc, int *r)
{
    long long rows0 = rows_read(), rows1 = rows_read();   /* the counters' own cost */
    long long rows2;

    *r = db_tail_candidates(ctx.db, userid, &appid, 1, now, 1, tc, nc);
    rows2 = rows_read();
    db_commit(ctx.db);
    return (rows2 - rows1) - (rows1 - rows0);
}

/* The backups' candidates are read in deadline order and the read stops at
 * its limit: each other table is reached by key, per row read.  With 400
 * more results in progress, due after the candidate, reading one candidate
 * touches fewer rows than they are, not a pass over them (which made requests time
 * out at a large batch's end: doc/load-testing.md, "Backups at a large
 * batch's end").  The 400 are taken out again afterwards. */
static void tail_read_stops_at_limit(int hostid, int userid, int other_user)
{
    static struct db_tail_cand tc[1];
    char name[64];
    long long base, more, inprog;
    int batch, nc = 0, r, appid = (int)db_count(141, "SELECT MIN(appid) FROM result WHERE "
                                                "hostid = ?", hostid);
    int now = (int)time(NULL), due = now + 20 * 86400;

    /* before the 400: what the read touches here (other tests' results in
     * progress, due earlier, are read and rejected first) */
    base = tail_read_rows(other_user, appid, now, tc, &nc, &r);

    snprintf(name, sizeof name, "tailmany%ld", (long)now % 100000000);
    batch = tu_batch(&ctx, name, 400, 1, 3.6e12, 0, 30 * 86400);
    {
        struct db_val p[] = { DBV_INT(hostid), DBV_INT(userid), DBV_INT(now),
                              DBV_INT(due), DBV_INT(batch) };
        if (db_exec(ctx.db, 140, "UPDATE result SET server_state = 4, hostid = ?, userid = ?, "
                    "sent_time = ?, report_deadline = ? WHERE batch = ?", p, 5, NULL,
                    "test") != DB_OK || db_commit(ctx.db) != DB_OK)
            TAP_CHECK(0, "put 400 results in progress: %s", db_error(ctx.db));
    }
    inprog = db_count(142, "SELECT COUNT(*) FROM result WHERE server_state = 4 AND batch = ?",
                      batch);
    more = tail_read_rows(other_user, appid, now, tc, &nc, &r);
    TAP_CHECK(r == DB_OK && nc == 1, "tail: with 400 more in progress, one candidate (%d)", nc);
    TAP_CHECK(nc == 1 && tc[0].wu.batch != batch, "tail: the earliest due, not one of the 400");
    /* 0 more rows here; the statement that sorted them all read thousands */
    TAP_CHECK(more - base < inprog,
              "tail: the candidates' read touched %lld rows more (%lld in all), fewer than the "
              "%lld due after it", more - base, more, inprog);
    {
        struct db_val p[] = { DBV_INT(batch) };
        if (db_exec(ctx.db, 143, "UPDATE result SET server_state = 5, outcome = 5 "
                    "WHERE batch = ?", p, 1, NULL, "test") != DB_OK ||
            db_exec(ctx.db, 144, "UPDATE batch SET state = 4 WHERE id = ?", p, 1, NULL,
                    "test") != DB_OK || db_commit(ctx.db) != DB_OK)
            TAP_CHECK(0, "take the 400 out: %s", db_error(ctx.db));
    }
}

/* 11. A batch's tail: backups of a slow result for reliable hosts, one
 * per job at a time, never a second replica for a user, within budget. */
static void test_tail(void)
{
    struct sched_stats st;
    char auth[4][65], name[64], bname[300] = "";
    int user[4], h[4], i, now = (int)time(NULL);
    long long dl = 0, flags = -1;
    double budget = ctx.cfg.tail_budget;

    tu_retire_batches_from(&ctx, 1);
    /* unsent results of the batches just retired (this program's, and
     * other tests' before it) must not be sent any more */
    if (db_exec(ctx.db, TS_SLOT + 5, "UPDATE result r JOIN batch b ON b.id = r.batch "
                "SET r.server_state = 5, r.outcome = 5 WHERE r.server_state = 2 AND b.state = 4",
                NULL, 0, NULL, "test") != DB_OK || db_commit(ctx.db) != DB_OK)
        TAP_CHECK(0, "cancel retired batches' unsent results: %s", db_error(ctx.db));
    for (i = 0; i < 4; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "tail%d", i);
        user[i] = tu_user(&ctx, tag, auth[i]);
    }
    snprintf(name, sizeof name, "tail%ld", (long)time(NULL) % 100000000);
    tu_batch(&ctx, name, 1, 1, 3.6e12, 0, 7 * 86400);
    app_cache_invalidate(&ctx.apps);
    /* the one job goes to the first host, which is slow: a day per job */
    h[0] = new_host_asks(auth[0], &st);
    TAP_EQ_INT(db_count(TS_SLOT + 1, "SELECT COUNT(*) FROM result WHERE hostid = ? AND server_state = 4",
                        h[0]), 1, "tail: the batch's one job is in progress on host 0");
    set_turnaround(h[0], 86400, 5);
    ctx.cfg.tail_budget = 1;   /* a one-job batch: 4% of it is no backup */

    /* a host with no report yet is not reliable: nothing, and the tail
     * source costs no statement */
    h[1] = new_host_asks(auth[1], &st);
    TAP_EQ_INT(st.jobs_sent, 0, "tail: a host without reports gets no backup");
    TAP_CHECK(st.statements <= 5, "tail: an empty reply used %lu statements (<= 5)",
              st.statements);

    /* a reliable host: a backup of the slow result, with a short deadline */
    set_turnaround(h[1], 3600, 3);
    send_req("02-hostid-assigned-work-request.xml", auth[1], h[1], 2, &st);
    TAP_EQ_INT(st.jobs_sent, 1, "tail: a reliable host gets a backup");
    TAP_CHECK(st.statements <= 9, "tail: a backup used %lu statements (<= 5 + 4)",
              st.statements);
    {
        struct db_val p[] = { DBV_INT(h[1]) };
        struct db_val cols[] = { DBV_BUF(bname), DBV_LL(dl), DBV_LL(flags) };
        db_query(ctx.db, TS_SLOT + 2, "SELECT name, report_deadline, replica_flags FROM result "
                 "WHERE hostid = ? AND server_state = 4", p, 1, cols, 3, NULL, NULL, NULL,
                 "test");
        db_commit(ctx.db);
    }
    TAP_EQ_INT(flags, 1, "tail: the backup is flagged RF_BACKUP, in progress on host 1");
    TAP_CHECK(bname[0] && strstr(reply.p, bname) != NULL, "tail: the reply sends it (%s)", bname);
    TAP_CHECK(dl >= now + 3600 && dl < now + 7 * 86400, "tail: its deadline is reduced (%lld s)",
              dl - now);
    TAP_EQ_INT(db_count(TS_SLOT + 1, "SELECT COUNT(*) FROM result WHERE hostid = ? AND server_state = 4",
                        h[0]), 1, "tail: the original still runs");

    /* the same user again: never a second replica for one user */
    send_req("02-hostid-assigned-work-request.xml", auth[1], h[1], 3, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "tail: no second replica for the same user");
    /* another reliable host: one backup per job at a time */
    h[2] = new_host_asks(auth[2], &st);
    set_turnaround(h[2], 3600, 3);
    send_req("02-hostid-assigned-work-request.xml", auth[2], h[2], 2, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "tail: no second backup while one is in progress");
    /* the backup times out: another may go, but not past the budget */
    {
        struct db_val p[] = { DBV_STR(bname) };
        db_exec(ctx.db, TS_SLOT + 3, "UPDATE result SET server_state = 5, outcome = 4 WHERE name = ?",
                p, 1, NULL, "test");
        db_commit(ctx.db);
    }
    ctx.cfg.tail_budget = 1.5;   /* room for half a job more */
    send_req("02-hostid-assigned-work-request.xml", auth[2], h[2], 3, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "tail: no backup past the budget");
    {
        /* the candidates carry their batch's budget (tail_budget_ample) */
        static struct db_tail_cand tc[4];
        int appid = (int)db_count(TS_SLOT + 9, "SELECT appid FROM result WHERE hostid = ? "
                                  "LIMIT 1", h[0]), nc = 0;
        int r = db_tail_candidates(ctx.db, user[3], &appid, 1, (int)time(NULL), 4, tc, &nc);
        db_commit(ctx.db);
        TAP_CHECK(r == DB_OK && nc == 1, "tail: one candidate for another user (%d)", nc);
        TAP_EQ_DBL(tc[0].batch_total_fpops, 3.6e12, 1, "tail: with its batch's flops");
        TAP_EQ_DBL(tc[0].batch_backup_fpops, 3.6e12, 1,
                   "tail: and what its backups took (the one timed out)");
    }
    tail_read_stops_at_limit(h[0], user[0], user[3]);
    ctx.cfg.tail_budget = 2;
    send_req("02-hostid-assigned-work-request.xml", auth[2], h[2], 4, &st);
    TAP_EQ_INT(st.jobs_sent, 1, "tail: within the budget, a new backup");
    TAP_EQ_INT(db_count(TS_SLOT + 4, "SELECT COUNT(*) FROM result WHERE workunitid = (SELECT workunitid "
                        "FROM result WHERE hostid = ? LIMIT 1)", h[0]), 3,
               "tail: the job has its original and two backups, one timed out");
    /* the second backup comes back: the job has its quorum (1) although
     * the original still runs, and until the transitioner sees it, no
     * host gets a backup of it; a success judged invalid does not count */
    ctx.cfg.tail_budget = 10;
    {
        struct db_val p[] = { DBV_INT(h[2]) };
        db_exec(ctx.db, TS_SLOT + 6, "UPDATE result SET server_state = 5, outcome = 1, "
                "validate_state = 0 WHERE hostid = ? AND server_state = 4", p, 1, NULL, "test");
        db_commit(ctx.db);
    }
    h[3] = new_host_asks(auth[3], &st);
    set_turnaround(h[3], 3600, 3);
    send_req("02-hostid-assigned-work-request.xml", auth[3], h[3], 2, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "tail: no backup of a job whose quorum is in");
    {
        struct db_val p[] = { DBV_INT(h[2]) };
        db_exec(ctx.db, TS_SLOT + 7, "UPDATE result SET validate_state = 2 WHERE hostid = ? "
                "AND server_state = 5 AND outcome = 1", p, 1, NULL, "test");
        db_commit(ctx.db);
    }
    send_req("02-hostid-assigned-work-request.xml", auth[3], h[3], 3, &st);
    TAP_EQ_INT(st.jobs_sent, 1, "tail: a success judged invalid leaves room for a backup");
    ctx.cfg.tail_budget = budget;
    (void)user;
}

/* 12. The plain candidates' read starts at the process's front, the
 * lowest job of its previous read (sched/policy/scan_front.h): a job put
 * back below it is not read until the read starts from the beginning
 * again, SCAN_FRONT_RESET_SECS later at the latest; then it goes first. */
static time_t fake_now;
static time_t fake_clock(void)
{
    return fake_now;
}

static void test_plain_front(void)
{
    struct sched_stats st;
    char auth[3][65], name[64];
    int h[3], i, batch, low;
    time_t (*clock)(void) = ctx.clock;

    tu_retire_batches_from(&ctx, 1);
    if (db_exec(ctx.db, TS_SLOT + 5, "UPDATE result r JOIN batch b ON b.id = r.batch "
                "SET r.server_state = 5, r.outcome = 5 WHERE r.server_state = 2 AND b.state = 4",
                NULL, 0, NULL, "test") != DB_OK || db_commit(ctx.db) != DB_OK)
        TAP_CHECK(0, "cancel retired batches' unsent results: %s", db_error(ctx.db));
    snprintf(name, sizeof name, "front%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 80, 1, 3.6e12, 0, 7 * 86400);
    app_cache_invalidate(&ctx.apps);
    fake_now = time(NULL);
    ctx.clock = fake_clock;
    memset(&ctx.plain_front, 0, sizeof ctx.plain_front);
    for (i = 0; i < 3; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "front%d", i);
        tu_user(&ctx, tag, auth[i]);
    }
    h[0] = new_host_asks(auth[0], &st);
    h[1] = new_host_asks(auth[1], &st);
    low = (int)tu_scalar2(&ctx, 145, "SELECT MIN(job_num) FROM result WHERE hostid = ? "
                          "AND batch = ?", h[0], batch);
    TAP_CHECK(ctx.plain_front.job > low, "front: past the first host's lowest job %d (%d)", low,
              ctx.plain_front.job);
    /* that job is unsent again, as a result sent again would be */
    {
        struct db_val p[] = { DBV_INT(batch), DBV_INT(low) };
        if (db_exec(ctx.db, 146, "UPDATE result SET server_state = 2, hostid = 0, userid = NULL, "
                    "sent_time = 0, report_deadline = 0 WHERE batch = ? AND job_num = ?", p, 2,
                    NULL, "test") != DB_OK || db_commit(ctx.db) != DB_OK)
            TAP_CHECK(0, "put job %d back: %s", low, db_error(ctx.db));
    }
    h[2] = new_host_asks(auth[2], &st);
    TAP_CHECK(st.jobs_sent > 0, "front: a third host gets jobs (%d)", st.jobs_sent);
    TAP_EQ_INT(tu_scalar2(&ctx, 147, "SELECT COUNT(*) FROM result WHERE batch = ? AND job_num = ? "
                          "AND server_state = 2", batch, low), 1,
               "front: the job below the front waits");
    fake_now += SCAN_FRONT_RESET_SECS;
    send_req("02-hostid-assigned-work-request.xml", auth[2], h[2], 2, &st);
    TAP_CHECK(st.jobs_sent > 0, "front: %d s later the host gets jobs again (%d)",
              SCAN_FRONT_RESET_SECS, st.jobs_sent);
    TAP_EQ_INT(tu_scalar2(&ctx, 148, "SELECT COALESCE(MAX(hostid), 0) FROM result WHERE batch = ? "
                          "AND job_num = ? AND server_state = 4", batch, low), h[2],
               "front: the read from the start sends it to that host");
    ctx.clock = clock;
}

int main(void)
{
    struct sched_stats st;
    char auth[65], auth2[65], batch_name[64];
    int user, hostid, user2;
    long long hosts_before, n;

    tu_ctx_open(&ctx);
    buf_init(&reply);
    tu_app(&ctx, "fpga_accel");
    user = tu_user(&ctx, "golden", auth);
    user2 = tu_user(&ctx, "golden2", auth2);
    snprintf(batch_name, sizeof batch_name, "gold%ld", (long)time(NULL) % 100000000);
    /* enough jobs that the coprocessor host of step 6 still finds some */
    tu_batch(&ctx, batch_name, 80, 1, 3.6e12, 4, 7 * 86400);
    /* the app versions and batch counts, loaded once per minute per
     * process, are not part of a request's cost */
    TAP_EQ_INT(app_cache_refresh(&ctx.apps, ctx.db, time(NULL)), DB_OK, "app cache loads");
    db_commit(ctx.db);
    /* The recorded bodies list other hosts' jobs in <other_results>, not
     * the jobs this test's host holds: each request would look like a
     * host that lost all its jobs, and get them again.  Lost jobs have
     * their own test (test_lost_jobs.c); here they are left alone. */
    ctx.cfg.resend_lost_results = 0;

    /* 1. first contact: a host is created, the token request gets a job */
    send_req("01-first-contact-attach.xml", auth, 0, 0, &st);
    TAP_EQ_STR(st.outcome, "ok", "first contact handled");
    hostid = (int)tu_elem_ll(reply.p, "hostid");
    TAP_CHECK(hostid > 0, "first contact returns a hostid (%d)", hostid);
    TAP_EQ_INT(db_count(152, "SELECT COUNT(*) FROM host WHERE userid = ?", user), 1,
               "one host row for the user");
    TAP_CHECK(strstr(reply.p, "<project_name>") != NULL, "reply names the project");
    TAP_CHECK(tu_count(reply.p, "<result>") <= 1, "token request of 1 s gets at most one job");
    TAP_CHECK(st.statements <= 7, "first contact used %lu statements (<= 7)", st.statements);

    /* 2. CPU work request: 103680 s for 2 CPUs, capped by max_jobs_per_reply */
    send_req("02-hostid-assigned-work-request.xml", auth, hostid, 0, &st);
    TAP_EQ_STR(st.outcome, "ok", "work request handled");
    TAP_CHECK(st.jobs_sent >= 2, "CPU work request got jobs (%d)", st.jobs_sent);
    TAP_EQ_INT(tu_count(reply.p, "<result>\n"), st.jobs_sent, "one <result> per job sent");
    TAP_EQ_INT(tu_count(reply.p, "<workunit>"), st.jobs_sent, "one <workunit> per job");
    TAP_EQ_INT(tu_count(reply.p, "<app_version>"), 1, "app version written once");
    TAP_CHECK(strstr(reply.p, "<platform>x86_64-pc-linux-gnu</platform>") != NULL,
              "result names its platform");
    TAP_CHECK(tu_count(reply.p, "<open_name>in_") == 0 || strstr(reply.p, "<sticky/>") != NULL,
              "input files are sticky");
    TAP_CHECK(strstr(reply.p, "<xml_signature>") != NULL, "output file is signed");
    TAP_CHECK(strstr(reply.p, "<max_nbytes>1000000</max_nbytes>") != NULL, "max_nbytes set");
    TAP_CHECK(strstr(reply.p, "<hostid>") == NULL, "known host gets no new hostid");
    TAP_CHECK(st.statements <= 6, "work request used %lu statements (<= 6)", st.statements);
    TAP_EQ_INT(tu_elem_ll(reply.p, "next_rpc_delay"), ctx.cfg.next_rpc_delay,
               "a host with our jobs is asked to call back within next_rpc_delay");
    n = db_count(153, "SELECT COUNT(*) FROM result WHERE hostid = ? AND server_state = 4", hostid);
    TAP_CHECK(n >= st.jobs_sent, "database holds the %d claims (%lld in progress)", st.jobs_sent, n);

    /* 3. report of two results that are not this host's: acked, nothing changed */
    send_req("04-report-success-no-work.xml", auth, hostid, 1, &st);
    TAP_EQ_STR(st.outcome, "ok", "report of unknown results handled");
    TAP_EQ_INT(st.results_reported, 0, "unknown results change nothing");
    TAP_EQ_INT(tu_count(reply.p, "<result_ack>"), 2, "both reports acknowledged");
    TAP_EQ_INT(st.jobs_sent, 0, "report-only request gets no job");

    /* 4. report one of our own results, plus a work request (05 asks for work) */
    {
        char name[256] = "";
        struct buf b;
        char *t;
        long long tmp_disk;
        /* find a result of this host */
        {
            struct db_val p[] = { DBV_INT(hostid) };
            struct db_val col[] = { DBV_BUF(name) };
            db_query(ctx.db, 154, "SELECT name FROM result WHERE hostid = ? AND server_state = 4 "
                     "ORDER BY id LIMIT 1", p, 1, col, 1, NULL, NULL, NULL, "test");
            db_commit(ctx.db);
        }
        TAP_CHECK(name[0] != '\0', "host has a result in progress (%s)", name);
        t = recorded("05-report-success-and-compute-error.xml");
        buf_init(&b);
        buf_puts(&b, t);
        free(t);
        tu_set_elem(&b, "authenticator", auth);
        {
            char num[32];
            snprintf(num, sizeof num, "%d", hostid);
            tu_set_elem(&b, "hostid", num);
            tu_set_elem(&b, "rpc_seqno", "2");
        }
        /* the first reported result becomes ours (success), the second stays foreign */
        {
            char *p = strstr(b.p, "<name>locA_0011_0</name>");
            if (p) {
                struct buf nb;
                buf_init(&nb);
                buf_put(&nb, b.p, (size_t)(p - b.p));
                buf_printf(&nb, "<name>%s</name>", name);
                buf_puts(&nb, p + strlen("<name>locA_0011_0</name>"));
                buf_free(&b);
                b = nb;
            }
        }
        /* schema 005 and 018: the report UPDATE buffers its rows in memory,
         * never in an on-disk temporary table (a BLOB column would send it
         * there on every report) */
        tmp_disk = tmp_disk_tables();
        sched_handle(&ctx, b.p, b.len, &reply, &st);
        TAP_EQ_INT(tmp_disk_tables(), tmp_disk, "the report made no on-disk temporary table");
        TAP_EQ_STR(st.outcome, "ok", "report plus work handled");
        TAP_EQ_INT(st.results_reported, 1, "own result marked over");
        TAP_CHECK(st.jobs_sent > 0, "report plus work also got jobs (%d)", st.jobs_sent);
        /* the recorded body lists a sticky file of no active locality
         * batch: the reply tells the host to delete it, and forgetting it
         * in host_file is one more statement, once per file */
        TAP_EQ_INT(tu_count(reply.p, "<delete_file_info>"), 1,
                   "the sticky file of no active batch is to be deleted");
        TAP_CHECK(st.statements <= 8 + 1 + 1, "report plus work used %lu statements (<= 8, "
                  "plus 1 for the deleted file, plus 1 for the lost-job check: the host has "
                  "jobs in progress)", st.statements);
        {
            long long outcome = -1;
            struct db_val p[] = { DBV_STR(name) };
            struct db_val col[] = { DBV_LL(outcome) };
            db_query(ctx.db, 155, "SELECT outcome FROM result WHERE name = ? AND server_state = 5",
                     p, 1, col, 1, NULL, NULL, NULL, "test");
            db_commit(ctx.db);
            TAP_EQ_INT(outcome, 1, "reported result has outcome SUCCESS");
        }
        {
            /* stderr_out holds the client's bytes (schema 018: VARBINARY) */
            char err[4097] = "";
            struct db_val p[] = { DBV_STR(name) };
            struct db_val col[] = { DBV_BUF(err) };
            db_query(ctx.db, 165, "SELECT stderr_out FROM result WHERE name = ?", p, 1, col, 1,
                     NULL, NULL, NULL, "test");
            db_commit(ctx.db);
            TAP_CHECK(strstr(err, "<core_client_version>7.20.5</core_client_version>") != NULL &&
                          strstr(err, "called boinc_finish(0)") != NULL,
                      "the reported stderr_out is stored (%.40s...)", err);
        }
        /* reporting it again is idempotent: acknowledged, nothing changes */
        tu_set_elem(&b, "rpc_seqno", "3");
        sched_handle(&ctx, b.p, b.len, &reply, &st);
        buf_free(&b);
        TAP_EQ_STR(st.outcome, "ok", "repeated report handled");
        TAP_EQ_INT(st.results_reported, 0, "a repeated report changes nothing");
        TAP_EQ_INT(tu_count(reply.p, "<result_ack>"), 2, "a repeated report is acknowledged");
    }

    /* 5. a request listing sticky files, no work wanted */
    send_req("03-in-progress-sticky-no-work.xml", auth, hostid, 4, &st);
    TAP_EQ_STR(st.outcome, "ok", "sticky file list handled");
    TAP_EQ_INT(st.jobs_sent, 0, "no work wanted, none sent");

    /* 6. CPU plus coprocessor: a host with an fpga_accel coprocessor */
    send_req("09-coproc-work-request.xml", auth2, 0, 0, &st);
    TAP_EQ_STR(st.outcome, "ok", "coprocessor work request handled");
    TAP_CHECK(strstr(reply.p, "<plan_class>gpu</plan_class>") != NULL,
              "a job for the coprocessor version was sent");
    TAP_CHECK(strstr(reply.p, "<type>fpga_accel</type>") != NULL,
              "its app version names the coprocessor");
    TAP_CHECK(tu_count(reply.p, "<result>\n") >= 2, "CPU and coprocessor jobs (%d)",
              tu_count(reply.p, "<result>\n"));
    TAP_EQ_INT(db_count(152, "SELECT COUNT(*) FROM host WHERE userid = ?", user2), 1,
               "the coprocessor host belongs to the second user");

    /* 6b. a host with an NVIDIA GPU: the host row gets its count and peak
     * flops in the NVIDIA columns, and nothing in the other GPU types' */
    send_req("synthetic-nvidia-gpu.xml", auth2, 0, 0, &st);
    TAP_EQ_STR(st.outcome, "ok", "GPU host's request handled");
    {
        int gpu_host = (int)tu_elem_ll(reply.p, "hostid");
        TAP_EQ_INT(db_count(150, "SELECT gpu_nvidia_count FROM host WHERE id = ?", gpu_host), 1,
                   "the host row counts its NVIDIA GPU");
        TAP_EQ_INT(db_count(151, "SELECT ROUND(gpu_nvidia_peak_flops / 1e9) FROM host "
                                 "WHERE id = ?", gpu_host), 12740,
                   "with the GPU's peak flops");
        TAP_EQ_INT(db_count(158, "SELECT gpu_ati_count + gpu_intel_count + gpu_ati_peak_flops + "
                                 "gpu_intel_peak_flops FROM host WHERE id = ?", gpu_host), 0,
                   "and no GPU of the other types");
    }

    /* 7. unknown authenticator: clear message, no host created */
    hosts_before = db_count(156, "SELECT COUNT(*) FROM host WHERE id > ?", 0);
    send_req("01-first-contact-attach.xml", "0000000000000000ffffffffffffffff", 0, 0, &st);
    TAP_EQ_STR(st.outcome, "auth", "unknown authenticator refused");
    TAP_CHECK(strstr(reply.p, "Unknown account key") != NULL, "message says why");
    TAP_EQ_INT(db_count(156, "SELECT COUNT(*) FROM host WHERE id > ?", 0), hosts_before,
               "no host created for an unknown key");

    /* 7b. what the client shows the volunteer: name and credit, read with
     * the authentication (no statement more); and the administrator's stop,
     * by the setting and by the file stop_sched: <project_is_down/>, no
     * database work at all */
    {
        struct db_val p1[] = { DBV_INT(user) };
        struct db_val p2[] = { DBV_INT(hostid) };
        char stop[CONFIG_STR_MAX + 32];
        unsigned long statements;
        FILE *f;
        if (db_exec(ctx.db, 135, "UPDATE user SET total_credit = 1234.5 WHERE id = ?", p1, 1,
                    NULL, "test") != DB_OK ||
            db_exec(ctx.db, 136, "UPDATE host SET total_credit = 77.25 WHERE id = ?", p2, 1,
                    NULL, "test") != DB_OK || db_commit(ctx.db) != DB_OK) {
            fprintf(stderr, "%s\n", db_error(ctx.db));
            return 1;
        }
        send_req("02-hostid-assigned-work-request.xml", auth, hostid, 5, &st);
        statements = st.statements;
        TAP_CHECK(strstr(reply.p, "<user_name>golden</user_name>") != NULL,
                  "the reply names the volunteer");
        TAP_CHECK(strstr(reply.p, "<user_total_credit>1234.5") != NULL,
                  "the reply has the volunteer's total credit");
        TAP_CHECK(strstr(reply.p, "<host_total_credit>77.25") != NULL,
                  "the reply has the host's total credit");
        TAP_CHECK(strstr(reply.p, "<user_expavg_credit>") != NULL &&
                  strstr(reply.p, "<host_expavg_credit>") != NULL, "and both average credits");
        TAP_CHECK(strstr(reply.p, "<project_is_down/>") == NULL, "running: not down");

        ctx.cfg.project_is_down = 1;
        send_req("02-hostid-assigned-work-request.xml", auth, hostid, 6, &st);
        TAP_EQ_STR(st.outcome, "down", "project_is_down = 1: answered 'down'");
        TAP_CHECK(strstr(reply.p, "<project_is_down/>") != NULL, "<project_is_down/> in the reply");
        TAP_CHECK(strstr(reply.p, "<request_delay>") != NULL, "with a request_delay");
        TAP_EQ_INT(tu_count(reply.p, "<result>"), 0, "and no job");
        TAP_EQ_INT((int)st.statements, 0, "no statement while down");
        ctx.cfg.project_is_down = 0;

        snprintf(stop, sizeof stop, "%s/%s", ctx.cfg.config_dir, STOP_SCHED_FILE);
        f = fopen(stop, "w");
        TAP_CHECK(f != NULL, "stop file created (%s)", STOP_SCHED_FILE);
        if (f)
            fclose(f);
        send_req("02-hostid-assigned-work-request.xml", auth, hostid, 7, &st);
        TAP_CHECK(strstr(reply.p, "<project_is_down/>") != NULL, "the stop file: down");
        TAP_EQ_INT((int)st.statements, 0, "the stop file: no statement");
        unlink(stop);
        send_req("02-hostid-assigned-work-request.xml", auth, hostid, 8, &st);
        TAP_EQ_STR(st.outcome, "ok", "stop file removed: served again");
        TAP_CHECK(strstr(reply.p, "<project_is_down/>") == NULL && st.statements > 0,
                  "stop file removed: a normal reply (%lu statements, %lu before the stop)",
                  st.statements, statements);
    }

    /* 8. hostid spoofing: user 2 claims user 1's host -> gets a new host */
    send_req("02-hostid-assigned-work-request.xml", auth2, hostid, 5, &st);
    TAP_EQ_STR(st.outcome, "ok", "spoofed hostid handled");
    TAP_CHECK(tu_elem_ll(reply.p, "hostid") > 0 && tu_elem_ll(reply.p, "hostid") != hostid,
              "spoofer gets a host of its own");

    /* 9. rpc_seqno going backwards: treated as a copy, new host */
    send_req("02-hostid-assigned-work-request.xml", auth, hostid, 0, &st);
    TAP_CHECK(tu_elem_ll(reply.p, "hostid") > 0 && tu_elem_ll(reply.p, "hostid") != hostid,
              "a cloned host (rpc_seqno went back) gets a new hostid");

    /* 10. every malformed input: a message, and nothing changes */
    {
        DIR *d = opendir(tu_src_path("malformed"));
        struct dirent *e;
        int nbad = 0;
        long long before = db_count(156, "SELECT COUNT(*) FROM host WHERE id > ?", 0);
        long long rs_before = db_count(157, "SELECT COUNT(*) FROM result WHERE server_state = ?", 4);
        TAP_CHECK(d != NULL, "malformed corpus present");
        while (d && (e = readdir(d))) {
            char rel[512], *body;
            size_t len;
            if (e->d_name[0] == '.' || !strstr(e->d_name, ".xml"))
                continue;
            snprintf(rel, sizeof rel, "malformed/%s", e->d_name);
            body = tu_read_file(tu_src_path(rel), &len);
            sched_handle(&ctx, body, len, &reply, &st);
            free(body);
            if (strcmp(st.outcome, "malformed") != 0)
                continue;   /* files that are valid at a limit */
            nbad++;
            TAP_CHECK(strstr(reply.p, "<scheduler_reply>") && strstr(reply.p, "<message") &&
                      strstr(reply.p, "<request_delay>"),
                      "%s: reply with a message and a delay", e->d_name);
        }
        if (d)
            closedir(d);
        TAP_CHECK(nbad >= 20, "at least 20 malformed inputs refused (%d)", nbad);
        TAP_EQ_INT(db_count(156, "SELECT COUNT(*) FROM host WHERE id > ?", 0), before,
                   "malformed requests created no host");
        TAP_EQ_INT(db_count(157, "SELECT COUNT(*) FROM result WHERE server_state = ?", 4),
                   rs_before, "malformed requests claimed no result");
    }
    test_tail();
    test_plain_front();
    buf_free(&reply);
    sched_ctx_free(&ctx);
    return tap_done();
}
