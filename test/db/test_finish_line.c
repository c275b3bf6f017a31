/*
 * test_finish_line.c - a batch's finish line on the real database: the
 * transitioner's counts (results in progress, recent successes, finished
 * workunits) from ind_res_batch_state and the workunit table; the
 * projection stored in the batch row and read by the scheduler with the
 * active batches; and the scheduler's rule: no job that this host would
 * finish past the line (with the reason in the reply), jobs again when
 * the line is far or when no host is much faster.  A young batch with no
 * line yet goes to idle instances only; the transitioner's step projects
 * a line from the hosts' speed before any rate is known.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "db_finish.h"
#include "db_test_util.h"
#include "estimate.h"
#include "finish_line.h"
#include "finish_lines.h"
#include "tap.h"

static struct sched_ctx ctx;
static struct buf reply;
static char auth[65];
static int seqno;

/* Request 02 (a CPU work request) for hostid asking for req_secs, with
 * idle CPUs and the seconds until one is free. */
static void ask_idle(int hostid, double req_secs, const char *idle, const char *delay,
                     struct sched_stats *st)
{
    struct buf b;
    char num[64];
    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, hostid, ++seqno);
    snprintf(num, sizeof num, "%f", req_secs);
    tu_set_elem(&b, "work_req_seconds", num);
    tu_set_elem(&b, "cpu_req_secs", num);
    tu_set_elem(&b, "cpu_req_instances", idle);
    tu_set_elem(&b, "estimated_delay", delay);
    sched_handle(&ctx, b.p, b.len, &reply, st);
    buf_free(&b);
}

static void ask(int hostid, double req_secs, struct sched_stats *st)
{
    ask_idle(hostid, req_secs, "0", "0", st);
}

/* The test's oracle of the hosts' speed: instances x speed x availability
 * of the hosts seen in the last day that hold a result in progress. */
static int add_capacity(void *vctx, const struct db_fl_host *h)
{
    double *sum = vctx;
    if (h->busy)
        *sum += h->p_ncpus * h->p_fpops * est_cpu_avail(h->on_frac, h->active_frac);
    return 0;
}

static void set_line(int batch, int eta, double fast)
{
    if (db_fl_set(ctx.db, batch, eta, fast) != DB_OK || db_commit(ctx.db) != DB_OK) {
        fprintf(stderr, "set finish line: %s\n", db_error(ctx.db));
        exit(1);
    }
    ctx.apps.loaded_at = 0;       /* the scheduler reads it with the active batches */
}

static void exec1(int slot, const char *sql, int param)
{
    struct db_val p[] = { DBV_INT(param) };
    if (db_exec(ctx.db, slot, sql, p, 1, NULL, "test update") != DB_OK ||
        db_commit(ctx.db) != DB_OK) {
        fprintf(stderr, "%s\n", db_error(ctx.db));
        exit(1);
    }
}

int main(void)
{
    struct sched_stats st;
    char name[64];
    int batch, hostid, now = (int)time(NULL), sent;
    long long inprog = -1, recent = -1, finished = -1, partial = -1;

    tu_ctx_open(&ctx);
    ctx.cfg.tail_budget = 0;       /* no backups: only this batch's jobs */
    ctx.cfg.resend_lost_results = 0;   /* the request lists no jobs: new ones each time */
    TAP_EQ_DBL(ctx.cfg.finish_line_slack, 1, 0, "finish_line_slack defaults to 1");
    ctx.cfg.finish_line_young = 900;   /* tu_ctx_open turns the young-batch rule off */
    buf_init(&reply);
    tu_app(&ctx, NULL);
    (void)tu_user(&ctx, "finishline", auth);
    tu_retire_batches_from(&ctx, 1);   /* earlier tests' leftovers: only ours is active */
    snprintf(name, sizeof name, "fl%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 40, 1, 3.6e12, 4, 7 * 86400);
    ctx.apps.loaded_at = 0;

    /* 1. a young batch with no finish line yet (eta 0): as many jobs as
     * idle CPUs, none to a host whose CPUs are busy; once older, jobs */
    ask_idle(0, 4 * 3600, "2", "0", &st);
    hostid = (int)tu_elem_ll(reply.p, "hostid");
    sent = st.jobs_sent;
    TAP_CHECK(hostid > 0, "a new host: %d", hostid);
    TAP_EQ_INT(sent, 2, "young batch, no line: one job per idle CPU (2)");
    ask_idle(hostid, 4 * 3600, "0", "3600", &st);
    TAP_EQ_INT(st.jobs_sent, 0, "young batch, no idle CPU: no job");
    TAP_CHECK(tu_count(reply.p, "a new batch goes first to idle processors") >= 1,
              "the reply tells the volunteer why");
    TAP_CHECK(tu_count(reply.p, "<reason>young_batch</reason>") >= 1, "and names the reason");
    exec1(152, "UPDATE batch SET create_time = create_time - 3600 WHERE id = ?", batch);
    ctx.apps.loaded_at = 0;
    ask(hostid, 4 * 3600, &st);
    TAP_CHECK(st.jobs_sent >= 2, "no finish line, batch an hour old: %d jobs", st.jobs_sent);
    sent += st.jobs_sent;

    /* 2. the batch ends in a minute and a fast host needs seconds: none,
     * and the reply says why */
    set_line(batch, now + 60, 1e15);
    {
        const struct db_active_batch *b;
        TAP_EQ_INT(app_cache_refresh(&ctx.apps, ctx.db, time(NULL)), DB_OK, "cache reloads");
        db_commit(ctx.db);
        b = app_cache_active_batch(&ctx.apps, batch);
        TAP_CHECK(b && b->finish_eta == now + 60 && b->finish_fast_flops == 1e15,
                  "the scheduler reads the batch's finish line");
        TAP_CHECK(app_cache_active_batch(&ctx.apps, batch + 1000) == NULL,
                  "an unknown batch has none");
        ctx.apps.loaded_at = 0;
    }
    ask(hostid, 4 * 3600, &st);
    TAP_EQ_INT(st.jobs_sent, 0, "past the finish line: no job");
    TAP_CHECK(tu_count(reply.p, "so that the batch finishes quickly") >= 1,
              "the reply tells the volunteer why");

    /* 3. the line far away: jobs again */
    set_line(batch, now + 1000000, 1e15);
    ask(hostid, 4 * 3600, &st);
    TAP_CHECK(st.jobs_sent >= 1, "line far away: %d jobs", st.jobs_sent);
    sent += st.jobs_sent;

    /* 4. the line is near, but no host is much faster than this one: the
     * last jobs still go */
    set_line(batch, now + 60, 1e6);
    ask(hostid, 4 * 3600, &st);
    TAP_CHECK(st.jobs_sent >= 1, "no faster host: %d jobs", st.jobs_sent);
    sent += st.jobs_sent;

    /* 5. the off switch */
    set_line(batch, now + 60, 1e15);
    ctx.cfg.finish_line_slack = 0;
    ask(hostid, 4 * 3600, &st);
    TAP_CHECK(st.jobs_sent >= 1, "finish_line_slack = 0: %d jobs", st.jobs_sent);
    sent += st.jobs_sent;
    ctx.cfg.finish_line_slack = 1;

    /* 6. the transitioner's counts: two successes just received, one
     * workunit finished */
    exec1(150, "UPDATE result SET server_state = 5, outcome = 1, received_time = UNIX_TIMESTAMP() "
               "WHERE batch = ? AND server_state = 4 ORDER BY id LIMIT 2", batch);
    exec1(151, "UPDATE workunit SET canonical_resultid = 1 WHERE batch = ? ORDER BY id LIMIT 1",
          batch);
    TAP_EQ_INT(db_fl_result_counts(ctx.db, batch, now - 3600, &inprog, &recent), DB_OK,
               "result counts");
    TAP_EQ_INT((int)inprog, sent - 2, "in progress: %d sent less 2 reported", sent);
    TAP_EQ_INT((int)recent, 2, "recent successes");
    TAP_EQ_INT(db_fl_result_counts(ctx.db, batch, now + 3600, &inprog, &recent), DB_OK,
               "result counts, later window");
    TAP_EQ_INT((int)recent, 0, "successes before the window do not count");
    TAP_EQ_INT(db_fl_job_counts(ctx.db, batch, &finished, &partial), DB_OK, "job counts");
    TAP_EQ_INT((int)finished, 1, "one finished workunit");
    TAP_EQ_INT((int)partial, 1, "the other success is of an unfinished workunit");
    exec1(153, "UPDATE result SET server_state = 5, outcome = 1, validate_state = 2, "
               "received_time = UNIX_TIMESTAMP() WHERE batch = ? AND server_state = 4 "
               "ORDER BY id LIMIT 1", batch);
    TAP_EQ_INT(db_fl_job_counts(ctx.db, batch, &finished, &partial), DB_OK, "job counts again");
    TAP_EQ_INT((int)partial, 1, "a success judged invalid does not count");
    TAP_EQ_INT(db_fl_result_counts(ctx.db, batch, now - 3600, &inprog, &recent), DB_OK,
               "result counts again");
    TAP_EQ_INT((int)inprog, sent - 3, "in progress: %d sent less 3 reported", sent);
    db_commit(ctx.db);

    /* 7. the transitioner's step: 2 successes are too few for a rate, so
     * the line comes from the hosts' speed: the work left (in progress
     * counted half) over the speed of the hosts seen in the last day */
    {
        struct daemon d;
        struct finish_counts fc;
        double capacity = 0, fpr = 3.6e12, want;
        const struct db_active_batch *b;
        memset(&d, 0, sizeof d);
        d.name = "transitioner";
        d.cfg = ctx.cfg;
        d.db = ctx.db;
        d.mod_n = 1;
        d.now = time(NULL);
        memset(&fc, 0, sizeof fc);
        TAP_EQ_INT(db_fl_result_counts(ctx.db, batch, 0, &fc.in_progress, &fc.recent), DB_OK,
                   "counts for the oracle");
        TAP_EQ_INT(db_fl_host_speeds(ctx.db, (int)d.now - FINISH_ACTIVE_HOSTS_SECS,
                                     FINISH_MAX_HOSTS, add_capacity, &capacity),
                   DB_OK, "host speeds for the oracle");
        db_commit(ctx.db);
        fc.needed = 40;
        fc.succeeded = 2;      /* the finished workunit, and the success of another */
        TAP_CHECK(capacity > 0, "hosts seen: %.3g flops", capacity);
        want = (double)d.now + ceil(finish_line_left(&fc) * fpr / capacity);
        TAP_CHECK(finish_lines_step(&d) >= 1, "the step stores the batch's line");
        ctx.apps.loaded_at = 0;
        TAP_EQ_INT(app_cache_refresh(&ctx.apps, ctx.db, time(NULL)), DB_OK, "cache reloads");
        db_commit(ctx.db);
        b = app_cache_active_batch(&ctx.apps, batch);
        TAP_CHECK(b && b->finish_eta > now, "a line without a rate: %d s from now",
                  b ? b->finish_eta - now : 0);
        TAP_CHECK(b && fabs((double)b->finish_eta - want) <= 1,
                  "work left over the hosts' speed (%d, want %.0f)", b ? b->finish_eta : 0, want);
    }

    tu_retire_batches_from(&ctx, batch);
    buf_free(&reply);
    return tap_done();
}
