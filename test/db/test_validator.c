/*
 * test_validator.c - the validator with the transitioner, run as programs
 * (--one-pass) on the test sandbox's database, outputs written by the
 * test in an upload folder of its own:
 *   - quorum 2: agreeing outputs (canonical result, both valid and
 *     credited, the host's credit), disagreeing outputs (inconclusive, a
 *     third replica, which breaks the tie: the odd one invalid, no credit),
 *     a missing output (invalid with outcome VALIDATE_ERROR, replaced), an
 *     output over its cap;
 *   - quorum 3: two of three agree (a fourth replica), then three;
 *   - outputs that never agree: the workunit ends errored at
 *     max_total_results, not stuck;
 *   - the administrator's command: matching by its exit status, and a
 *     command that hangs (killed at validate_timeout, counted as no match,
 *     the daemon goes on);
 *   - batch_status's validation line;
 *   - the hosts' daily quota: halved per invalid result, back to the
 *     project's with valid ones.
 * Results are made successes by SQL (slots 140..159, the tests' own).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_sched.h"
#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static char dir[2300], up[2400], bindir[2048], name[64];

static void bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

/* dir/TAG.conf: the sandbox's config with our upload folder and log, and
 * the validator settings given. */
static void make_config(const char *tag, const char *settings)
{
    tu_daemon_config(dir, up, tag, "validator|validate_timeout", settings);
}

/* Run a daemon once (--one-pass) with dir/TAG.conf; its exit status. */
static int run(const char *prog, const char *tag)
{
    char cmd[7000];
    int st;
    snprintf(cmd, sizeof cmd, "'%s/%s' --config '%s/%s.conf' --one-pass >>'%s/log/%s.out' 2>&1",
             bindir, prog, dir, tag, dir, prog);
    st = system(cmd);
    return st == -1 ? -1 : WEXITSTATUS(st);
}

/* Both daemons, as a project runs them: transitioner, validator,
 * transitioner. */
static void cycle(const char *tag)
{
    if (run("transitioner", tag) != 0 || run("validator", tag) != 0 ||
        run("transitioner", tag) != 0)
        bail("daemons", "a daemon failed (see the log folder)");
}

static void exec_sql(int slot, const char *sql, struct db_val *p, int np)
{
    if (db_exec(ctx.db, slot, sql, p, np, NULL, "test update") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        bail(sql, db_error(ctx.db));
}

/* Run an UPDATE ending in "LIMIT n" until it changes no row, committing
 * each round: a statement over 100,000s of rows on a loaded machine can
 * outlast the connection's read timeout. */
static void exec_chunked(int slot, const char *sql, struct db_val *p, int np)
{
    long long n;
    do {
        n = 0;
        if (db_exec(ctx.db, slot, sql, p, np, &n, "test update") != DB_OK ||
            db_commit(ctx.db) != DB_OK)
            bail(sql, db_error(ctx.db));
    } while (n > 0);
}

/* The id of job j's workunit. */
static int wuid_of(int j)
{
    char wname[128];
    long long v = -1;
    struct db_val p[] = { DBV_STR(wname) };
    struct db_val c[] = { DBV_LL(v) };
    snprintf(wname, sizeof wname, "%s_%d", name, j);
    if (db_query(ctx.db, 140, "SELECT id FROM workunit WHERE name = ?", p, 1, c, 1, NULL, NULL,
                 NULL, "find a workunit") != DB_OK || v <= 0)
        bail("no workunit", wname);
    db_commit(ctx.db);
    return (int)v;
}

/* The id of a workunit's result number k (in id order), 0 if none. */
static int rid(int wuid, int k)
{
    long long v = 0;
    struct db_val p[] = { DBV_INT(wuid), DBV_INT(k) };
    struct db_val c[] = { DBV_LL(v) };
    if (db_query(ctx.db, 141, "SELECT id FROM result WHERE workunitid = ? ORDER BY id "
                 "LIMIT 1 OFFSET ?", p, 2, c, 1, NULL, NULL, NULL, "find a result") != DB_OK)
        bail("find a result", db_error(ctx.db));
    db_commit(ctx.db);
    return (int)v;
}

/* One number from a query with one int parameter; slots 146..158, one per
 * query text. */
static long long val(const char *sql, int param)
{
    static const char *seen[13];
    int i;
    for (i = 0; i < 13 && seen[i] && strcmp(seen[i], sql) != 0; i++)
        ;
    if (i == 13)
        bail("val", "more than 13 queries");
    seen[i] = sql;
    return tu_scalar(&ctx, 146 + i, sql, param);
}

/* A host's credit and standing in one query (the slots of val() are
 * few): has credit, consecutive_valid (capped at 99), error_rate > 0.1
 * and max_results_day. */
struct standing {
    int credited, consecutive_valid, erring, max_results_day;
};
static struct standing host_standing(int hostid)
{
    struct standing s;
    long long v = val("SELECT (total_credit > 0) + 10 * LEAST(consecutive_valid, 99) + "
                      "1000 * (error_rate > 0.1) + 10000 * max_results_day FROM host "
                      "WHERE id = ?", hostid);
    s.credited = (int)(v % 10);
    s.consecutive_valid = (int)(v / 10 % 100);
    s.erring = (int)(v / 1000 % 10);
    s.max_results_day = (int)(v / 10000);
    return s;
}

#define VSTATE(wu, k) val("SELECT validate_state FROM result WHERE id = ?", rid(wu, k))
#define OUTCOME(wu, k) val("SELECT outcome FROM result WHERE id = ?", rid(wu, k))
#define CREDIT(wu, k) val("SELECT granted_credit > 0 FROM result WHERE id = ?", rid(wu, k))
#define CANON(wu) val("SELECT canonical_resultid FROM workunit WHERE id = ?", wu)
#define NRES(wu) val("SELECT COUNT(*) FROM result WHERE workunitid = ?", wu)
#define ERRMASK(wu) val("SELECT error_mask FROM workunit WHERE id = ?", wu)

/* Result k of a workunit reported as a success from host hostid with
 * output text (NULL: no output file); the workunit due for the
 * transitioner. */
static void report(int wuid, int k, int hostid, const char *text)
{
    char rname[256], path[2700];
    int id = rid(wuid, k), now = (int)time(NULL);
    struct db_val pid[] = { DBV_INT(id) };
    struct db_val c[] = { DBV_BUF(rname) };
    struct db_val q[] = { DBV_INT(hostid), DBV_INT(now), DBV_INT(id) };
    struct db_val w[] = { DBV_INT(wuid) };
    long n = 0;

    if (id <= 0)
        bail("report", "no such result");
    if (db_query(ctx.db, 142, "SELECT name FROM result WHERE id = ?", pid, 1, c, 1, NULL, NULL,
                 &n, "result name") != DB_OK || n != 1)
        bail("result name", db_error(ctx.db));
    exec_sql(144, "UPDATE result SET server_state = 5, outcome = 1, hostid = ?, "
                  "received_time = ?, report_deadline = 2000000000 WHERE id = ?", q, 3);
    exec_sql(145, "UPDATE workunit SET transition_time = 0 WHERE id = ?", w, 1);
    snprintf(path, sizeof path, "%s/%s_0", up, rname);
    if (text) {
        FILE *f = fopen(path, "w");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
            bail(path, strerror(errno));
    } else {
        unlink(path);
    }
}

/* A host of the test user; its id. */
static int new_host(void)
{
    int uid = (int)val("SELECT MIN(id) FROM user WHERE id > ?", 0);
    struct db_val p[] = { DBV_INT(uid) };
    exec_sql(143, "INSERT INTO host (userid) VALUES (?)", p, 1);
    return (int)val("SELECT MAX(id) FROM host WHERE id > ?", 0);
}

/* With VALIDATOR_BENCH=N in the environment: a batch of N jobs, quorum
 * 2, every output agreeing; times one transitioner pass and one validator
 * pass and prints them as TAP comments (the figures of
 * doc/admin-guide.md, "Validation"). */
static void bench(int njobs, int h)
{
    char path[2800];
    struct timespec t0, t1, t2;
    int batch, i, k;
    snprintf(name, sizeof name, "vz%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, njobs, 2, 1e12, 0, 3600);
    for (i = 0; i < njobs; i++) {
        for (k = 0; k < 2; k++) {
            FILE *f;
            snprintf(path, sizeof path, "%s/%s_%d_%d_0", up, name, i, k);
            f = fopen(path, "w");
            if (!f || fprintf(f, "output of job %d\n", i) < 0 || fclose(f) != 0)
                bail(path, strerror(errno));
        }
    }
    {
        struct db_val p[] = { DBV_INT(h), DBV_INT(batch) };
        struct db_val q[] = { DBV_INT(batch) };
        exec_chunked(144, "UPDATE result SET server_state = 5, outcome = 1, hostid = ?, "
                          "received_time = UNIX_TIMESTAMP(), report_deadline = 2000000000 "
                          "WHERE batch = ? AND server_state <> 5 LIMIT 5000", p, 2);
        exec_chunked(145, "UPDATE workunit SET transition_time = 0 WHERE batch = ? "
                          "AND transition_time <> 0 LIMIT 5000", q, 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (run("transitioner", "ident") != 0)
        bail("bench", "transitioner failed");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (run("validator", "ident") != 0)
        bail("bench", "validator failed");
    clock_gettime(CLOCK_MONOTONIC, &t2);
    TAP_EQ_INT((int)val("SELECT COUNT(*) FROM workunit WHERE batch = ? AND "
                        "canonical_resultid <> 0", batch), njobs, "bench: all validated");
    printf("# bench: %d workunits (quorum 2): transitioner pass %.2f s, validator pass "
           "%.2f s = %.0f workunits validated per second\n", njobs,
           (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
           (double)(t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9,
           njobs / ((double)(t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9));
}

int main(void)
{
    int batch, h_good, h_bad, wu[8], i;
    char script[2600], settings[3000];

    tu_ctx_open(&ctx);
    tu_daemon_dirs("valid-test", dir, sizeof dir, up, sizeof up, bindir, sizeof bindir);
    make_config("ident", "validator = identical");
    tu_app(&ctx, NULL);
    h_good = new_host();
    h_bad = new_host();
    TAP_CHECK(h_good > 0 && h_bad > h_good, "two hosts");

    if (getenv("VALIDATOR_BENCH") && getenv("VALIDATOR_BENCH")[0]) {
        char *end;
        long nb = strtol(getenv("VALIDATOR_BENCH"), &end, 10);
        if (*end || nb < 1 || nb > 1000000)
            bail("VALIDATOR_BENCH", "not a number of jobs from 1 to 1000000");
        bench((int)nb, h_good);
        return tap_done();
    }

    /* ---- quorum 2: agree, disagree, missing, over the cap, never agree */
    snprintf(name, sizeof name, "va%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 5, 2, 1e12, 0, 3600);
    TAP_CHECK(batch > 0, "a batch of 5 jobs, quorum 2");
    for (i = 0; i < 5; i++)
        wu[i] = wuid_of(i);
    report(wu[0], 0, h_good, "42\n");
    report(wu[0], 1, h_good, "42\n");
    report(wu[1], 0, h_good, "42\n");
    report(wu[1], 1, h_bad, "garbage\n");
    report(wu[2], 0, h_good, "42\n");
    report(wu[2], 1, h_bad, NULL);
    report(wu[3], 0, h_good, "42\n");
    report(wu[3], 1, h_good, "42 but far too long for the cap\n");
    {
        struct db_val p[] = { DBV_INT(wu[3]) };
        exec_sql(159, "UPDATE workunit SET max_out_nbytes = 10 WHERE id = ?", p, 1);
    }
    report(wu[4], 0, h_good, "a\n");
    report(wu[4], 1, h_good, "b\n");
    TAP_EQ_INT(run("transitioner", "ident"), 0, "transitioner");
    TAP_EQ_INT((int)val("SELECT COUNT(*) FROM workunit WHERE batch = ? AND need_validate = 1",
                        batch), 5, "validator on: 5 workunits marked need_validate");
    TAP_EQ_INT((int)val("SELECT COUNT(*) FROM result WHERE batch = ? AND granted_credit > 0",
                        batch), 0, "validator on: the transitioner grants no credit");
    TAP_EQ_INT((int)val("SELECT COUNT(*) FROM workunit WHERE batch = ? AND "
                        "canonical_resultid <> 0", batch), 0,
               "validator on: the transitioner picks no canonical result");
    TAP_EQ_INT(run("validator", "ident"), 0, "validator --one-pass");
    TAP_EQ_INT(run("transitioner", "ident"), 0, "transitioner after the validator");
    TAP_EQ_INT((int)val("SELECT COUNT(*) FROM workunit WHERE batch = ? AND need_validate = 1",
                        batch), 0, "no workunit left to validate");

    TAP_EQ_INT((int)CANON(wu[0]), rid(wu[0], 0), "agreeing: the first is canonical");
    TAP_EQ_INT((int)VSTATE(wu[0], 0), 1, "agreeing: result 0 VALID");
    TAP_EQ_INT((int)VSTATE(wu[0], 1), 1, "agreeing: result 1 VALID");
    TAP_EQ_INT((int)CREDIT(wu[0], 1), 1, "agreeing: credit granted");
    TAP_CHECK(host_standing(h_good).credited == 1,
              "agreeing: the host got credit");
    TAP_EQ_INT((int)val("SELECT assimilate_state FROM workunit WHERE id = ?", wu[0]), 1,
               "agreeing: ready to assimilate");

    TAP_EQ_INT((int)CANON(wu[1]), 0, "disagreeing: no canonical result");
    TAP_EQ_INT((int)VSTATE(wu[1], 0), 4, "disagreeing: result 0 INCONCLUSIVE");
    TAP_EQ_INT((int)VSTATE(wu[1], 1), 4, "disagreeing: result 1 INCONCLUSIVE");
    TAP_EQ_INT((int)CREDIT(wu[1], 0), 0, "disagreeing: no credit yet");
    TAP_EQ_INT((int)NRES(wu[1]), 3, "disagreeing: a third replica sent");

    TAP_EQ_INT((int)VSTATE(wu[2], 1), 2, "missing output: INVALID");
    TAP_EQ_INT((int)OUTCOME(wu[2], 1), 6, "missing output: outcome VALIDATE_ERROR");
    TAP_EQ_INT((int)VSTATE(wu[2], 0), 4, "missing output: the other waits (INCONCLUSIVE)");
    TAP_EQ_INT((int)NRES(wu[2]), 3, "missing output: a replacement sent");

    TAP_EQ_INT((int)VSTATE(wu[3], 1), 2, "output over its cap: INVALID");
    TAP_EQ_INT((int)OUTCOME(wu[3], 1), 6, "output over its cap: VALIDATE_ERROR");
    TAP_EQ_INT((int)CANON(wu[3]), 0, "output over its cap: no canonical result");

    /* the third replicas */
    report(wu[1], 2, h_good, "42\n");
    report(wu[2], 2, h_good, "42\n");
    cycle("ident");
    TAP_EQ_INT((int)CANON(wu[1]), rid(wu[1], 0), "tie broken: the earliest agreeing result");
    TAP_EQ_INT((int)VSTATE(wu[1], 1), 2, "tie broken: the garbage result INVALID");
    TAP_EQ_INT((int)CREDIT(wu[1], 1), 0, "tie broken: no credit for the garbage");
    TAP_EQ_INT((int)VSTATE(wu[1], 2), 1, "tie broken: the third VALID");
    TAP_EQ_INT((int)CREDIT(wu[1], 2), 1, "tie broken: credit for the third");
    TAP_EQ_INT((int)CANON(wu[2]), rid(wu[2], 0), "missing output: canonical after its "
               "replacement agreed");
    TAP_EQ_INT(host_standing(h_bad).credited, 0,
               "the host returning garbage earned nothing");

    /* outputs that never agree: replicas up to max_total_results (5),
     * then the workunit errors out */
    for (i = 2; i < 6 && ERRMASK(wu[4]) == 0; i++) {
        char text[16];
        snprintf(text, sizeof text, "%c\n", 'a' + i);
        report(wu[4], i, h_good, text);
        cycle("ident");
    }
    TAP_EQ_INT((int)NRES(wu[4]), 5, "never agreeing: max_total_results results");
    TAP_CHECK(ERRMASK(wu[4]) != 0, "never agreeing: the workunit errors out (not stuck)");
    TAP_EQ_INT((int)CANON(wu[4]), 0, "never agreeing: no canonical result");

    /* ---- quorum 3 */
    snprintf(name, sizeof name, "vb%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 1, 3, 1e12, 0, 3600);
    wu[5] = wuid_of(0);
    report(wu[5], 0, h_good, "x\n");
    report(wu[5], 1, h_good, "x\n");
    report(wu[5], 2, h_bad, "y\n");
    cycle("ident");
    TAP_EQ_INT((int)CANON(wu[5]), 0, "quorum 3, two agree: no canonical result");
    TAP_EQ_INT((int)NRES(wu[5]), 4, "quorum 3, two agree: a fourth replica");
    report(wu[5], 3, h_good, "x\n");
    cycle("ident");
    TAP_EQ_INT((int)CANON(wu[5]), rid(wu[5], 0), "quorum 3, three agree: canonical");
    TAP_EQ_INT((int)VSTATE(wu[5], 2), 2, "quorum 3: the odd one INVALID");
    TAP_EQ_INT((int)VSTATE(wu[5], 3), 1, "quorum 3: the fourth VALID");

    /* ---- the hosts' standing (daily quota, schema 014): the host that
     * returned garbage had 3 invalid results (wu 2's missing output, wu
     * 1's garbage, wu 5's odd one): its quota per CPU halved three times
     * from the project's 200; the good host had one (wu 3's output over
     * its cap) and climbed back to the project's (stored 0) with the
     * valid ones after it */
    {
        struct standing b = host_standing(h_bad), g = host_standing(h_good);
        TAP_EQ_INT(b.max_results_day, 25, "garbage host: daily quota per CPU 200 -> 100 -> 50 "
                   "-> 25");
        TAP_EQ_INT(b.consecutive_valid, 0, "garbage host: no consecutive valid results");
        TAP_EQ_INT(b.erring, 1, "garbage host: its error rate rose");
        TAP_EQ_INT(g.max_results_day, 0, "good host: back at the project's quota (0) after its "
                   "valid results");
        TAP_CHECK(g.consecutive_valid >= 3, "good host: consecutive valid results counted (%d)",
                  g.consecutive_valid);
    }

    /* ---- the administrator's command: cmp, then one that hangs */
    snprintf(script, sizeof script, "%s/hang.sh", dir);
    {
        FILE *f = fopen(script, "w");
        if (!f || fputs("sleep 30\n", f) < 0 || fclose(f) != 0)
            bail(script, strerror(errno));
    }
    make_config("cmp", "validator = cmp -s\nvalidate_timeout = 5");
    snprintf(settings, sizeof settings, "validator = sh %s\nvalidate_timeout = 1", script);
    make_config("hang", settings);
    snprintf(name, sizeof name, "vc%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 2, 2, 1e12, 0, 3600);
    wu[6] = wuid_of(0);
    wu[7] = wuid_of(1);
    report(wu[6], 0, h_good, "same\n");
    report(wu[6], 1, h_good, "same\n");
    cycle("cmp");
    TAP_EQ_INT((int)CANON(wu[6]), rid(wu[6], 0), "command: exit 0 means a match");
    report(wu[7], 0, h_good, "same\n");
    report(wu[7], 1, h_good, "same\n");
    {
        time_t t0 = time(NULL);
        cycle("hang");
        TAP_CHECK(time(NULL) - t0 < 20, "a hanging command is killed at validate_timeout");
    }
    TAP_EQ_INT((int)CANON(wu[7]), 0, "a hanging command: no match");
    TAP_EQ_INT((int)VSTATE(wu[7], 0), 4, "a hanging command: INCONCLUSIVE, not stuck");
    TAP_EQ_INT((int)NRES(wu[7]), 3, "a hanging command: another replica");

    /* batch_status shows the validation states of the last batch */
    {
        char cmd[8000], out[2600], text[4096];
        FILE *f;
        size_t n;
        snprintf(out, sizeof out, "%s/batch_status.out", dir);
        snprintf(cmd, sizeof cmd, "'%s/../tools/batch_status' --config '%s/ident.conf' %s >'%s'",
                 bindir, dir, name, out);
        TAP_EQ_INT(system(cmd), 0, "batch_status runs");
        f = fopen(out, "r");
        n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        TAP_CHECK(strstr(text, "validation: 2 valid, 0 invalid, 2 inconclusive, 0 waiting"),
                  "batch_status: the validation line (%s)", text);
    }
    return tap_done();
}
