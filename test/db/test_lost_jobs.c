/*
 * test_lost_jobs.c - "resend lost results" and result aborts on the real
 * database: a host that lists none of its jobs gets them again (same
 * names, same deadlines); one that cannot meet a deadline any more, or
 * says "no new tasks", has the job marked lost and its workunit flagged
 * for the transitioner; a request without <other_results> is never taken
 * to have lost anything; resend_lost_results = 0 leaves lost jobs alone;
 * listed jobs the server does not have in progress, and jobs whose
 * workunit reached its quorum or was aborted, are aborted; the statement
 * counts; and the invariant checks stay clean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_batch.h"
#include "db_check.h"
#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static struct buf reply;
static char auth[65];
static int seqno;
/* the results the next send_req() reports: successes (steady state), or
 * with report_aborted_after, aborted by the project after that many
 * seconds of running (0: never ran) */
static const char *const *report_names;
static int nreport_names;
static double report_aborted_after = -1;

/*
 * Send request 02 (a CPU work request, 103680 s) for hostid, with
 * <other_results> listing names[0..n) (n < 0: no <other_results> at all),
 * dont_send_work as given and a CPU request of req_secs.
 */
static void send_req(int hostid, const char *const *names, int n, int dont_send,
                     double req_secs, struct sched_stats *st)
{
    struct buf b, nb;
    const char *ors = "<other_results>\n</other_results>\n", *p;
    char num[64];
    int i;

    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, hostid, ++seqno);
    tu_set_elem(&b, "dont_send_work", dont_send ? "1" : "0");
    snprintf(num, sizeof num, "%f", req_secs);
    tu_set_elem(&b, "work_req_seconds", num);
    tu_set_elem(&b, "cpu_req_secs", num);
    tu_set_elem(&b, "cpu_req_instances", "0");
    p = strstr(b.p, ors);
    if (!p) {
        fprintf(stderr, "recorded request 02 has no empty <other_results>\n");
        exit(1);
    }
    buf_init(&nb);
    buf_put(&nb, b.p, (size_t)(p - b.p));
    if (n >= 0) {
        buf_puts(&nb, "<other_results>\n");
        for (i = 0; i < n; i++)
            buf_printf(&nb, "    <other_result>\n        <name>%s</name>\n"
                       "        <app_version>-1</app_version>\n    </other_result>\n", names[i]);
        buf_puts(&nb, "</other_results>\n");
    }
    p += strlen(ors);
    if (nreport_names > 0) {
        const char *end = strstr(p, "</scheduler_request>");
        if (!end) {
            fprintf(stderr, "recorded request 02 has no </scheduler_request>\n");
            exit(1);
        }
        buf_put(&nb, p, (size_t)(end - p));
        for (i = 0; i < nreport_names; i++)
            if (report_aborted_after >= 0)
                buf_printf(&nb, "<result>\n<name>%s</name>\n<final_cpu_time>%.0f"
                           "</final_cpu_time>\n<final_elapsed_time>%.0f</final_elapsed_time>\n"
                           "<exit_status>202</exit_status>\n<state>6</state>\n</result>\n",
                           report_names[i], report_aborted_after, report_aborted_after);
            else
                buf_printf(&nb, "<result>\n<name>%s</name>\n<final_cpu_time>100</final_cpu_time>\n"
                           "<final_elapsed_time>110</final_elapsed_time>\n<exit_status>0"
                           "</exit_status>\n<state>5</state>\n</result>\n", report_names[i]);
        p = end;
    }
    buf_puts(&nb, p);
    sched_handle(&ctx, nb.p, nb.len, &reply, st);
    buf_free(&nb);
    buf_free(&b);
}

/* The names of the host's results in progress, in id order (at most 16),
 * read in one go with GROUP_CONCAT. */
/* The et_n of the host's only runtime-correction row (-1: not one row). */
static long long hav_et_n(int hostid)
{
    if (tu_scalar(&ctx, 154, "SELECT COUNT(*) FROM host_app_version WHERE host_id = ?",
                  hostid) != 1)
        return -1;
    return tu_scalar(&ctx, 155, "SELECT et_n FROM host_app_version WHERE host_id = ?", hostid);
}

static int in_progress(int hostid, char names[16][256])
{
    char all[16 * 260] = "", *save = NULL, *s;
    struct db_val p[] = { DBV_INT(hostid) };
    struct db_val col[] = { DBV_BUF(all) };
    int n = 0;

    if (db_query(ctx.db, 141, "SELECT IFNULL(GROUP_CONCAT(name ORDER BY id SEPARATOR ' '), '') "
                 "FROM result WHERE hostid = ? AND server_state = 4", p, 1, col, 1, NULL,
                 NULL, NULL, "test: results in progress") != DB_OK) {
        fprintf(stderr, "%s\n", db_error(ctx.db));
        exit(1);
    }
    db_commit(ctx.db);
    for (s = strtok_r(all, " ", &save); s && n < 16; s = strtok_r(NULL, " ", &save))
        snprintf(names[n++], 256, "%s", s);
    return n;
}

static long long by_name(int slot, const char *sql, const char *name)
{
    long long v = -1;
    struct db_val p[] = { DBV_STR(name) };
    struct db_val col[] = { DBV_LL(v) };
    if (db_query(ctx.db, slot, sql, p, 1, col, 1, NULL, NULL, NULL, "test query") != DB_OK) {
        fprintf(stderr, "%s\n", db_error(ctx.db));
        exit(1);
    }
    db_commit(ctx.db);
    return v;
}

static void set_by_name(int slot, const char *sql, long long value, const char *name)
{
    struct db_val p[] = { DBV_LL(value), DBV_STR(name) };
    if (db_exec(ctx.db, slot, sql, p, 2, NULL, "test update") != DB_OK) {
        fprintf(stderr, "%s\n", db_error(ctx.db));
        exit(1);
    }
    db_commit(ctx.db);
}

/* Every invariant check of tools/check_invariants that the database
 * decides: the total of entities that break one.  The database is shared
 * with the suite's other tests, so the test compares this total before
 * and after its own requests. */
static long long invariant_breaks(void)
{
    long long total = 0, count;
    int ids[4], nids, k;
    if (db_check_begin(ctx.db) != DB_OK)
        return -1;
    for (k = 0; k < DBC_NCHECKS; k++) {
        if (db_check_ids(ctx.db, (enum db_check_id)k, (int)time(NULL), 4, &count, ids, &nids) !=
            DB_OK) {
            db_rollback(ctx.db);
            return -1;
        }
        total += count;
    }
    db_commit(ctx.db);
    db_close(ctx.db);
    {
        char err[256];
        ctx.db = db_open(&ctx.dbp, err, sizeof err);
        if (!ctx.db) {
            fprintf(stderr, "reconnect: %s\n", err);
            exit(1);
        }
    }
    return total;
}

int main(void)
{
    struct sched_stats st;
    char names[16][256], batch_name[64], again[16][256];
    const char *list[16];
    int hostid, n, i, k, batch;
    unsigned long base_statements;
    long long breaks_before;

    tu_ctx_open(&ctx);
    ctx.cfg.tail_budget = 0;   /* no backups of other tests' jobs in the counts below */
    buf_init(&reply);
    tu_app(&ctx, NULL);
    (void)tu_user(&ctx, "lostjobs", auth);
    snprintf(batch_name, sizeof batch_name, "lost%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, batch_name, 40, 1, 3.6e12, 4, 7 * 86400);
    TAP_EQ_INT(app_cache_refresh(&ctx.apps, ctx.db, time(NULL)), DB_OK, "app cache loads");
    db_commit(ctx.db);
    TAP_EQ_INT(ctx.cfg.resend_lost_results, 1, "resend_lost_results is on by default");
    breaks_before = invariant_breaks();
    TAP_CHECK(breaks_before >= 0, "the invariant checks run");

    /* 1. a new host asks for a day of work: jobs, nothing lost, no abort */
    send_req(0, NULL, 0, 0, 6 * 3600, &st);
    hostid = (int)tu_elem_ll(reply.p, "hostid");
    TAP_CHECK(hostid > 0 && st.jobs_sent >= 2, "new host %d got %d jobs", hostid, st.jobs_sent);
    TAP_EQ_INT(st.jobs_resent + st.results_lost + st.results_aborted, 0,
               "first contact: nothing resent, lost or aborted");
    n = in_progress(hostid, names);
    TAP_EQ_INT(n, st.jobs_sent, "the database has the %d jobs in progress", st.jobs_sent);

    /* 2. it lists them all and asks for nothing: no extra statement (the
     * first statement's census shows nothing to check), nothing else */
    for (i = 0; i < n; i++)
        list[i] = names[i];
    send_req(hostid, NULL, -1, 0, 0, &st);
    base_statements = st.statements;
    TAP_EQ_INT(tu_count(reply.p, "<result_abort"), 0, "no <other_results>: no abort in the reply");
    TAP_EQ_INT(st.jobs_resent + st.results_lost + st.results_aborted, 0,
               "no <other_results>: no judgement (nothing resent, lost or aborted)");
    TAP_EQ_INT(in_progress(hostid, again), n, "no <other_results>: every job still in progress");
    send_req(hostid, list, n, 0, 0, &st);
    TAP_EQ_INT(st.jobs_sent + st.results_lost + st.results_aborted, 0,
               "all listed: nothing sent, lost or aborted");
    TAP_EQ_INT((long long)st.statements, (long long)base_statements,
               "all listed: the lost-job check costs no statement (%lu against %lu)",
               st.statements, base_statements);

    /* 3. resend off: a host that lists nothing keeps its jobs on record */
    ctx.cfg.resend_lost_results = 0;
    send_req(hostid, list, 0, 0, 0, &st);
    TAP_EQ_INT(st.jobs_resent + st.results_lost, 0, "resend_lost_results = 0: nothing resent");
    TAP_EQ_INT(in_progress(hostid, again), n, "resend_lost_results = 0: jobs still in progress");
    ctx.cfg.resend_lost_results = 1;

    /* 4. it lists the first one only and reports none: the others are
     * lost and sent again, with the same names and deadlines */
    {
        long long deadline1 = by_name(142, "SELECT report_deadline FROM result WHERE name = ?",
                                      names[1]);
        send_req(hostid, list, 1, 0, 3600, &st);
        TAP_EQ_STR(st.outcome, "ok", "request with lost jobs handled");
        TAP_EQ_INT(st.jobs_resent, n - 1, "the %d lost jobs are sent again", n - 1);
        TAP_EQ_INT(st.results_lost, 0, "none is marked lost");
        for (i = 1, k = 0; i < n; i++) {
            char want[300];
            snprintf(want, sizeof want, "<name>%s</name>", names[i]);
            k += strstr(reply.p, want) != NULL;
        }
        TAP_EQ_INT(k, n - 1, "the reply names each lost job");
        TAP_EQ_INT(tu_count(reply.p, "<workunit>"), st.jobs_sent, "each with its workunit");
        TAP_CHECK(strstr(reply.p, "<app_version>") != NULL, "and the app version");
        TAP_EQ_INT(tu_count(reply.p, "<xml_signature>"), st.jobs_sent,
                   "each output file has an upload signature");
        {
            char want[64];
            snprintf(want, sizeof want, "<report_deadline>%lld</report_deadline>", deadline1);
            TAP_CHECK(strstr(reply.p, want) != NULL, "a resent job keeps its report_deadline");
        }
        TAP_EQ_INT(by_name(143, "SELECT server_state FROM result WHERE name = ?", names[1]), 4,
                   "a resent job stays in progress");
        TAP_CHECK(by_name(144, "SELECT sent_time FROM result WHERE name = ?", names[1]) >=
                  (long long)time(NULL) - 60, "a resent job's sent_time is now");
        TAP_EQ_INT(in_progress(hostid, again), n + st.jobs_sent - st.jobs_resent,
                   "the host has the resent and the new jobs in progress");
        TAP_CHECK(st.statements <= base_statements + 8,
                  "resending costs the read and one update (%lu statements)", st.statements);
    }
    n = in_progress(hostid, names);
    for (i = 0; i < n; i++)
        list[i] = names[i];

    /* 5. a lost job that cannot meet its deadline here any more is marked
     * lost, and its workunit is due at once */
    set_by_name(145, "UPDATE result SET report_deadline = UNIX_TIMESTAMP() + ? WHERE name = ?",
                60, names[0]);
    set_by_name(146, "UPDATE workunit w JOIN result r ON r.workunitid = w.id "
                "SET w.transition_time = ? WHERE r.name = ?", 2000000000, names[0]);
    send_req(hostid, list + 1, n - 1, 0, 0, &st);
    TAP_EQ_INT(st.results_lost, 1, "a lost job too late for this host is marked lost");
    TAP_EQ_INT(st.jobs_resent, 0, "and not sent again");
    TAP_EQ_INT(by_name(143, "SELECT server_state FROM result WHERE name = ?", names[0]), 5,
               "lost: server_state OVER");
    TAP_EQ_INT(by_name(147, "SELECT outcome FROM result WHERE name = ?", names[0]), 3,
               "lost: outcome CLIENT_ERROR");
    TAP_EQ_INT(by_name(148, "SELECT client_state FROM result WHERE name = ?", names[0]), 0,
               "lost: client_state 0 (never reported)");
    TAP_EQ_INT(by_name(149, "SELECT validate_state FROM result WHERE name = ?", names[0]), 2,
               "lost: validate_state INVALID");
    TAP_CHECK(by_name(150, "SELECT w.transition_time FROM workunit w JOIN result r "
                      "ON r.workunitid = w.id WHERE r.name = ?", names[0]) <=
              (long long)time(NULL), "lost: its workunit is due for the transitioner");

    /* 6. "no new tasks": a lost job cannot be sent, so it is marked lost */
    send_req(hostid, list + 2, n - 2, 1, 0, &st);
    TAP_EQ_INT(st.results_lost, 1, "no new tasks: the lost job is marked lost");
    TAP_EQ_INT(st.jobs_sent, 0, "no new tasks: nothing sent");

    /* 6b. a lost job of a host that was presumed gone (RF_HOST_LOST: its
     * replacement exists) is marked lost, not sent again */
    set_by_name(153, "UPDATE result SET replica_flags = ? WHERE name = ?", 2, names[2]);
    send_req(hostid, list + 3, n - 3, 0, 0, &st);
    TAP_EQ_INT(st.results_lost, 1, "presumed gone: the lost job is marked lost");
    TAP_EQ_INT(st.jobs_resent, 0, "presumed gone: it is not sent again");
    TAP_EQ_INT(by_name(143, "SELECT server_state FROM result WHERE name = ?", names[2]), 5,
               "presumed gone: OVER");

    /* 7. aborts: an unknown name, a job whose workunit has its canonical
     * result, a job whose workunit was aborted (error_mask 16) */
    n = in_progress(hostid, names);
    TAP_CHECK(n >= 2, "the host still has %d jobs in progress", n);
    set_by_name(151, "UPDATE workunit w JOIN result r ON r.workunitid = w.id "
                "SET w.canonical_resultid = ? WHERE r.name = ?", 1, names[0]);
    set_by_name(152, "UPDATE workunit w JOIN result r ON r.workunitid = w.id "
                "SET w.error_mask = ? WHERE r.name = ?", 16, names[1]);
    for (i = 0; i < n; i++)
        list[i] = names[i];
    list[n] = "never_sent_0";
    send_req(hostid, list, n + 1, 0, 0, &st);
    TAP_EQ_INT(st.results_aborted, 3, "three aborts: quorum, batch abort, unknown");
    TAP_EQ_INT(st.results_lost + st.jobs_resent, 0, "nothing lost");
    {
        char want[400];
        snprintf(want, sizeof want, "<result_abort_if_not_started>\n    <name>%s</name>\n"
                 "</result_abort_if_not_started>", names[0]);
        TAP_CHECK(strstr(reply.p, want) != NULL,
                  "quorum reached: <result_abort_if_not_started> for its replica");
        snprintf(want, sizeof want, "<result_abort>\n    <name>%s</name>\n</result_abort>",
                 names[1]);
        TAP_CHECK(strstr(reply.p, want) != NULL, "batch aborted: <result_abort> for its job");
        TAP_CHECK(strstr(reply.p, "<result_abort>\n    <name>never_sent_0</name>") != NULL,
                  "unknown name: <result_abort>");
        TAP_EQ_INT(tu_count(reply.p, "<result_abort"), 3, "no other abort in the reply");
    }
    {
        /* a lost job of a finished workunit is not sent again: marked lost */
        send_req(hostid, list + 1, n, 0, 0, &st);
        TAP_EQ_INT(st.results_lost, 1, "a lost job of a finished workunit is marked lost");
        TAP_EQ_INT(st.jobs_resent, 0, "and not sent again");
    }
    /* put the workunits back as they were, so that the invariants hold */
    set_by_name(151, "UPDATE workunit w JOIN result r ON r.workunitid = w.id "
                "SET w.canonical_resultid = ? WHERE r.name = ?", 0, names[0]);

    /* 8. a request of a new host (hostid 0) listing jobs: all aborted */
    list[0] = names[2];
    send_req(0, list, 1, 0, 0, &st);
    TAP_EQ_INT(st.results_aborted, 1, "a new host's listed job is aborted");
    TAP_EQ_INT(tu_count(reply.p, "<result_abort>"), 1, "with <result_abort>");

    /* 9. the steady state of a plain batch: a host reports the jobs it
     * finished, lists the others and asks for more.  Its statements are
     * counted exactly, so that they cannot creep back (issue 19): auth
     * (with the census and the reported results), report update,
     * candidates, claim, host update (with the runtime correction),
     * commit = 6 with jobs; no candidates and no claim when it asks for
     * nothing = 4.  The host's first report of an app version inserts
     * its correction row: one more, once. */
    send_req(0, NULL, 0, 0, 6 * 3600, &st);
    hostid = (int)tu_elem_ll(reply.p, "hostid");
    n = in_progress(hostid, names);
    TAP_CHECK(hostid > 0 && n >= 3, "steady state: a new host %d with %d jobs", hostid, n);
    {
        const char *rep1[1];
        for (i = 1; i < n; i++)
            list[i - 1] = names[i];
        rep1[0] = names[0];
        report_names = rep1;
        nreport_names = 1;
        send_req(hostid, list, n - 1, 0, 3600, &st);
        TAP_EQ_INT(st.results_reported, 1, "first report: the finished job is reported");
        TAP_CHECK(st.jobs_sent >= 1, "first report: the host got %d jobs", st.jobs_sent);
        TAP_EQ_INT((long long)st.statements, 7,
                   "first report, with jobs: %lu statements (7: the correction row is new)",
                   st.statements);
        TAP_EQ_INT(hav_et_n(hostid), 1, "first report: the correction row is inserted (et_n 1)");
        n = in_progress(hostid, names);
        for (i = 1; i < n; i++)
            list[i - 1] = names[i];
        rep1[0] = names[0];
        send_req(hostid, list, n - 1, 0, 3600, &st);
        TAP_EQ_INT(st.results_reported, 1, "steady state: the finished job is reported");
        TAP_CHECK(st.jobs_sent >= 1, "steady state: the host got %d jobs", st.jobs_sent);
        TAP_EQ_INT(st.results_lost + st.jobs_resent + st.results_aborted, 0,
                   "steady state: nothing lost, resent or aborted");
        TAP_EQ_INT((long long)st.statements, 6,
                   "steady state, plain, with jobs: %lu statements (6)", st.statements);
        TAP_EQ_INT(hav_et_n(hostid), 2,
                   "steady state: the correction row is updated with the host (et_n 2)");
        TAP_EQ_INT((long long)tu_scalar(&ctx, 156,
                                        "SELECT COUNT(*) FROM result WHERE hostid = ? "
                                        "AND server_state = 5 AND outcome = 1", hostid),
                   2, "steady state: both reported results are over, successes");
        n = in_progress(hostid, names);
        for (i = 1; i < n; i++)
            list[i - 1] = names[i];
        rep1[0] = names[0];
        send_req(hostid, list, n - 1, 0, 0, &st);
        TAP_EQ_INT(st.results_reported, 1, "steady state: the next finished job is reported");
        TAP_EQ_INT(st.jobs_sent + st.results_lost + st.jobs_resent + st.results_aborted, 0,
                   "steady state, no work asked: nothing sent, lost or aborted");
        TAP_EQ_INT((long long)st.statements, 4,
                   "steady state, plain, without jobs: %lu statements (4)", st.statements);
        report_names = NULL;
        nreport_names = 0;
    }

    /* 10. a replica dropped at the project's abort before it ran cost
     * nothing: its flops go back to the batch's backup budget; one that
     * had run keeps its charge */
    {
        const char *rep1[1];
        long long fpops = tu_scalar(&ctx, 157, "SELECT CAST(rsc_fpops_est AS SIGNED) FROM "
                                    "workunit WHERE batch = ? LIMIT 1", batch);
        char sql[160];
        double used;

        double budget_was = ctx.cfg.tail_budget;

        ctx.cfg.tail_budget = 0.04;      /* backups on, as by default */
        TAP_CHECK(fpops > 0, "refund: jobs of %lld flops", fpops);
        n = in_progress(hostid, names);
        TAP_CHECK(n >= 3, "refund: the host holds %d jobs", n);
        snprintf(sql, sizeof sql, "UPDATE batch SET backup_fpops = %lld * 5 WHERE id = ?", fpops);
        {
            struct db_val bp[] = { DBV_INT(batch) };
            TAP_CHECK(db_exec(ctx.db, 158, sql, bp, 1, NULL, "test: backup budget") == DB_OK &&
                      db_commit(ctx.db) == DB_OK, "refund: the batch has 5 jobs of budget used");
        }
        report_aborted_after = 0;
        rep1[0] = names[0];
        report_names = rep1;
        nreport_names = 1;
        for (i = 1; i < n; i++)
            list[i - 1] = names[i];
        send_req(hostid, list, n - 1, 0, 0, &st);
        used = (double)tu_scalar(&ctx, 140, "SELECT CAST(backup_fpops AS SIGNED) FROM batch "
                                 "WHERE id = ?", batch);
        TAP_EQ_INT(st.results_reported, 1, "refund: the aborted replica is reported");
        TAP_EQ_DBL(used, 4.0 * (double)fpops, 1, "refund: aborted before it ran, its flops go "
                   "back to the budget");
        TAP_EQ_INT(by_name(165, "SELECT outcome FROM result WHERE name = ?", names[0]), 3,
                   "refund: the replica is a client error (aborted)");
        report_aborted_after = 50;
        rep1[0] = names[1];
        for (i = 2; i < n; i++)
            list[i - 2] = names[i];
        send_req(hostid, list, n - 2, 0, 0, &st);
        used = (double)tu_scalar(&ctx, 140, "SELECT CAST(backup_fpops AS SIGNED) FROM batch "
                                 "WHERE id = ?", batch);
        TAP_EQ_DBL(used, 4.0 * (double)fpops, 1, "refund: aborted after it ran, nothing back");
        report_aborted_after = -1;
        report_names = NULL;
        nreport_names = 0;
        ctx.cfg.tail_budget = budget_was;
    }

    TAP_EQ_INT(invariant_breaks(), breaks_before, "the invariant checks find nothing new");
    /* end the batch as abort_batch does: its workunits whose jobs were
     * marked lost are due, and a transitioner of a later test would
     * otherwise make new replicas of them for that test's hosts */
    {
        struct db_abort_counts ac;
        TAP_EQ_INT(db_batch_abort_jobs(ctx.db, batch, (int)time(NULL), &ac), DB_OK,
                   "the test's batch is aborted");
        db_commit(ctx.db);
    }
    tu_retire_batches_from(&ctx, batch);
    buf_free(&reply);
    sched_ctx_free(&ctx);
    return tap_done();
}
