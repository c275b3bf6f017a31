/*
 * test_host_quota.c - a host's daily quota (issue 17) end to end: the
 * real scheduler handler in this process, the transitioner and the
 * validator as programs (--one-pass), the test sandbox's database.
 *
 * With daily_result_quota = 8 and a host of one CPU:
 *   - a new host gets 8 jobs, and the reply says the quota is reached;
 *     a second request the same day gets none (reason daily_quota, a
 *     request_delay to the next day), and no more statements than a
 *     request without the quota;
 *   - the host returns wrong outputs for its 8 jobs (the other replicas,
 *     right, validated first): the validator judges them INVALID and the
 *     host's quota falls to 1 per CPU (8 -> 4 -> 2 -> 1);
 *   - the next day it gets 1 job, then none;
 *   - it returns that one right: VALID, quota 2, and the day after it
 *     gets 2 jobs;
 *   - a task the client reports as failed halves the quota at once (the
 *     scheduler's side).
 * The scheduler's clock is moved a day at a time; the daemons use the
 * real clock, so the test makes its workunits due by SQL (slots
 * 140..159, the tests' own).  Its app runs on a platform of its own, so
 * that the host gets only this test's jobs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static struct buf reply;
static char auth[65], dir[2300], up[2400], bindir[2048];
static int seqno, batch;
static time_t day_shift;

static void bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

static time_t shifted_clock(void)
{
    return time(NULL) + day_shift;
}

/* The transitioner, the validator, the transitioner, once each. */
static void cycle(void)
{
    static const char *const progs[] = { "transitioner", "validator", "transitioner" };
    char cmd[7000];
    size_t i;
    for (i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "'%s/%s' --config '%s/q.conf' --one-pass >>'%s/log/%s.out' "
                 "2>&1", bindir, progs[i], dir, dir, progs[i]);
        if (system(cmd) != 0)
            bail("daemon failed (see the log folder)", progs[i]);
    }
}

static void exec_sql(int slot, const char *sql, struct db_val *p, int np)
{
    if (db_exec(ctx.db, slot, sql, p, np, NULL, "test update") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        bail(sql, db_error(ctx.db));
}

/* The names of results (at most 16, id order) that a query with one int
 * parameter lists, as one GROUP_CONCAT. */
static int names_of(int slot, const char *sql, int param, char names[16][256])
{
    char all[16 * 260] = "", *save = NULL, *s;
    struct db_val p[] = { DBV_INT(param) };
    struct db_val col[] = { DBV_BUF(all) };
    int n = 0;
    if (db_query(ctx.db, slot, sql, p, 1, col, 1, NULL, NULL, NULL, "test: names") != DB_OK)
        bail("names", db_error(ctx.db));
    db_commit(ctx.db);
    for (s = strtok_r(all, " ", &save); s && n < 16; s = strtok_r(NULL, " ", &save))
        snprintf(names[n++], 256, "%s", s);
    return n;
}

/* Write the output file of result name. */
static void output(const char *name, const char *text)
{
    char path[2800];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s_0", up, name);
    f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        bail(path, strerror(errno));
}

/*
 * A scheduler request of hostid (0: a new host) with one CPU, asking
 * for a day of work (none with no_work), reporting names[0..n) as
 * successes (failed: as a compute error).
 */
static void request(int hostid, char names[16][256], int n, int failed, int no_work,
                    struct sched_stats *st)
{
    struct buf b;
    const char *end;
    const char *secs = no_work ? "0" : "86400";
    int i;

    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, hostid, ++seqno);
    tu_set_elem(&b, "p_ncpus", "1");
    tu_set_elem(&b, "platform_name", tu_platform_name);
    tu_set_elem(&b, "work_req_seconds", secs);
    tu_set_elem(&b, "cpu_req_secs", secs);
    tu_set_elem(&b, "cpu_req_instances", "0");
    end = strstr(b.p, "</scheduler_request>");
    if (!end)
        bail("recorded request 02", "no </scheduler_request>");
    buf_reset(&reply);
    buf_put(&reply, b.p, (size_t)(end - b.p));
    for (i = 0; i < n; i++)
        buf_printf(&reply, "<result>\n<name>%s</name>\n<final_cpu_time>100</final_cpu_time>\n"
                   "<final_elapsed_time>110</final_elapsed_time>\n<exit_status>%d"
                   "</exit_status>\n<state>%d</state>\n</result>\n", names[i],
                   failed ? 1 : 0, failed ? 3 : 5);
    buf_puts(&reply, end);
    buf_reset(&b);
    buf_put(&b, reply.p, reply.len);
    sched_handle(&ctx, b.p, b.len, &reply, st);
    buf_free(&b);
}

/* The host's results in progress. */
static int in_progress(int hostid, char names[16][256])
{
    return names_of(141, "SELECT IFNULL(GROUP_CONCAT(name ORDER BY id SEPARATOR ' '), '') "
                    "FROM result WHERE hostid = ? AND server_state = 4", hostid, names);
}

/* The other replica of each job the host holds in progress: a success
 * of host good with the right output, validated before the host reports
 * (the workunits have quorum 1). */
static void others_right(int hostid, int good)
{
    char names[16][256];
    int i, n, now = (int)time(NULL);
    exec_sql(142, "UPDATE result r JOIN result m ON m.workunitid = r.workunitid "
                  "AND m.hostid = ? AND m.server_state = 4 AND m.id <> r.id "
                  "JOIN workunit w ON w.id = r.workunitid "
                  "SET r.server_state = 5, r.outcome = 1, r.hostid = ?, r.received_time = ?, "
                  "r.report_deadline = 2000000000, w.transition_time = 0 "
                  "WHERE r.server_state = 2",
             (struct db_val[]){ DBV_INT(hostid), DBV_INT(good), DBV_INT(now) }, 3);
    n = names_of(143, "SELECT IFNULL(GROUP_CONCAT(name ORDER BY id SEPARATOR ' '), '') "
                 "FROM result WHERE hostid = ? AND server_state = 5 AND validate_state = 0 "
                 "AND outcome = 1", good, names);
    for (i = 0; i < n; i++)
        output(names[i], "42\n");
    cycle();
}

/* The host reports names[0..n) with output text; the daemons judge them. */
static void report_and_judge(int hostid, char names[16][256], int n, const char *text,
                             struct sched_stats *st)
{
    struct db_val p[] = { DBV_INT(batch) };
    int i;
    for (i = 0; i < n; i++)
        output(names[i], text);
    request(hostid, names, n, 0, 1, st);
    /* the scheduler's clock may be days ahead: make them due now */
    exec_sql(144, "UPDATE workunit SET transition_time = 0 WHERE batch = ?", p, 1);
    cycle();
}

static long long host_val(int slot, const char *sql, int hostid)
{
    return tu_scalar(&ctx, slot, sql, hostid);
}
#define MAX_RESULTS_DAY(h) host_val(145, "SELECT max_results_day FROM host WHERE id = ?", h)
#define SENT_TODAY(h) host_val(146, "SELECT nresults_today FROM host WHERE id = ?", h)
#define INVALID_OF(h) host_val(147, "SELECT COUNT(*) FROM result WHERE hostid = ? AND " \
                               "validate_state = 2", h)

/* Seconds from the scheduler's now to the next UTC day. */
static long to_tomorrow(void)
{
    time_t now = shifted_clock();
    return 86400 - (long)(now % 86400);
}

int main(void)
{
    struct sched_stats st;
    char names[16][256];
    int hostid, good, n, first_batch;
    unsigned long plain_statements;

    tu_ctx_open(&ctx);
    ctx.clock = shifted_clock;
    ctx.cfg.tail_budget = 0;          /* no backups in the counts */
    ctx.cfg.resend_lost_results = 0;  /* the requests list no jobs: none is lost */
    ctx.cfg.daily_result_quota = 8;
    snprintf(ctx.cfg.validator, sizeof ctx.cfg.validator, "identical");
    buf_init(&reply);
    tu_daemon_dirs("quota-test", dir, sizeof dir, up, sizeof up, bindir, sizeof bindir);
    /* dir/q.conf: the validator on and a quota of 8 jobs per CPU */
    tu_daemon_config(dir, up, "q", "validator|daily_result_quota",
                     "validator = identical\ndaily_result_quota = 8");
    /* an app on a platform of its own: the host gets only this test's jobs */
    tu_app_name = "quotaapp";
    tu_platform_name = "quota-test-linux";
    tu_app(&ctx, NULL);
    (void)tu_user(&ctx, "quota", auth);
    {
        char name[64];
        snprintf(name, sizeof name, "quota%ld", (long)time(NULL) % 100000000);
        batch = first_batch = tu_batch(&ctx, name, 16, 2, 3.6e11, 0, 7 * 86400);
        exec_sql(148, "UPDATE workunit SET min_quorum = 1 WHERE batch = ?",
                 (struct db_val[]){ DBV_INT(batch) }, 1);
    }
    TAP_EQ_INT(app_cache_refresh(&ctx.apps, ctx.db, time(NULL)), DB_OK, "app cache loads");
    db_commit(ctx.db);
    {
        /* the host of the right replicas: a host of its own, so that its
         * results are only this test's */
        int uid = 1;
        struct db_val p[] = { DBV_INT(uid) };
        exec_sql(150, "INSERT INTO host (userid) VALUES (?)", p, 1);
        good = (int)tu_scalar(&ctx, 149, "SELECT MAX(id) FROM host WHERE id > ?", 0);
    }

    /* ---- day 0: 8 jobs, then none */
    request(0, NULL, 0, 0, 0, &st);
    hostid = (int)tu_elem_ll(reply.p, "hostid");
    TAP_CHECK(hostid > 0 && hostid != good, "a new host (%d)", hostid);
    TAP_EQ_INT(st.jobs_sent, 8, "a new host of one CPU gets its daily quota of 8 jobs");
    TAP_CHECK(strstr(reply.p, "reached its daily quota of 8 tasks") != NULL,
              "the reply says the quota is reached");
    TAP_EQ_INT(SENT_TODAY(hostid), 8, "host.nresults_today = 8");
    request(hostid, NULL, 0, 0, 1, &st);
    plain_statements = st.statements;
    request(hostid, NULL, 0, 0, 0, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "the same day, a second request gets no job");
    TAP_CHECK(strstr(reply.p, "<reason>daily_quota</reason>") != NULL,
              "rsc_no_work with reason daily_quota");
    TAP_CHECK(strstr(reply.p, "reached its daily quota of 8 tasks") != NULL,
              "and the message");
    TAP_CHECK(tu_elem_ll(reply.p, "request_delay") >= to_tomorrow() &&
              tu_elem_ll(reply.p, "request_delay") <= to_tomorrow() + 3600,
              "request_delay: to the next UTC day (%lld s, %ld to midnight)",
              tu_elem_ll(reply.p, "request_delay"), to_tomorrow());
    TAP_CHECK(st.statements <= plain_statements,
              "a refused request costs no more statements than one asking nothing (%lu, %lu)",
              st.statements, plain_statements);
    TAP_EQ_INT(SENT_TODAY(hostid), 8, "still 8 sent today");

    /* ---- it returns wrong outputs for all 8 */
    n = in_progress(hostid, names);
    TAP_EQ_INT(n, 8, "8 jobs in progress");
    others_right(hostid, good);
    report_and_judge(hostid, names, n, "garbage\n", &st);
    TAP_EQ_INT(st.results_reported, 8, "8 results reported");
    TAP_EQ_INT(INVALID_OF(hostid), 8, "the validator judged all 8 INVALID");
    TAP_EQ_INT(MAX_RESULTS_DAY(hostid), 1, "the host's quota fell to 1 per CPU");

    /* ---- the next day: 1 job, then none */
    day_shift = 86400;
    request(hostid, NULL, 0, 0, 0, &st);
    TAP_EQ_INT(st.jobs_sent, 1, "next day: 1 job");
    TAP_CHECK(strstr(reply.p, "reached its daily quota of 1 task;") != NULL,
              "the reply says the quota (1) is reached");
    TAP_EQ_INT(SENT_TODAY(hostid), 1, "nresults_today counts from 0 on a new day");
    request(hostid, NULL, 0, 0, 0, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "then no job");

    /* ---- it returns that one right: quota 2 */
    n = in_progress(hostid, names);
    TAP_EQ_INT(n, 1, "1 job in progress");
    others_right(hostid, good);
    report_and_judge(hostid, names, n, "42\n", &st);
    TAP_EQ_INT(MAX_RESULTS_DAY(hostid), 2, "a valid result doubles the quota: 2 per CPU");
    day_shift = 2 * 86400;
    request(hostid, NULL, 0, 0, 0, &st);
    TAP_EQ_INT(st.jobs_sent, 2, "the day after: 2 jobs");

    /* ---- a task reported as failed halves it at once (the scheduler) */
    n = in_progress(hostid, names);
    TAP_EQ_INT(n, 2, "2 jobs in progress");
    request(hostid, names, 1, 1, 1, &st);
    TAP_EQ_INT(st.results_reported, 1, "a failed task reported");
    TAP_EQ_INT(MAX_RESULTS_DAY(hostid), 1, "a failed task halves the quota: 1 per CPU");
    TAP_EQ_INT(host_val(151, "SELECT consecutive_valid FROM host WHERE id = ?", hostid), 0,
               "and ends the run of valid results");

    /* no job of this test is left for the tests after it */
    tu_retire_batches_from(&ctx, first_batch);
    return tap_done();
}
