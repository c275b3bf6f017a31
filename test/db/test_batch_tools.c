/*
 * test_batch_tools.c - batch_status, abort_batch and retire_batch on the
 * real database.  Builds locality batches directly in SQL (batch, files,
 * jobs, cursors, team members, workunits and results in every state),
 * runs the programs of $top_builddir/tools, and checks their output
 * (text, JSON read back through MariaDB's JSON functions, SVG parsed with
 * libxml2 and, when installed, xmllint) and what they did to the database.
 */
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_admin.h"
#include "db_sched.h"
#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static char out[65536];

static void die(const char *what)
{
    printf("Bail out! %s: %s\n", what, db_error(ctx.db));
    exit(1);
}

/* Run one statement of the test (constant SQL); returns the insert id. */
static long long sql(int slot, const char *text, struct db_val *p, int n)
{
    if (db_exec(ctx.db, slot, text, p, n, NULL, "test setup") != DB_OK)
        die(text);
    return db_insert_id(ctx.db, slot);
}

/*
 * Run tools/PROG with args (already shell-quoted) and stderr merged into
 * stdout; the output goes to out.  Returns the exit status, -1 if the
 * program did not exit normally.
 */
static int run(const char *prog, const char *args)
{
    const char *top = getenv("top_builddir");
    char cmd[4096];
    size_t n = 0, k;
    FILE *f;
    int st;

    snprintf(cmd, sizeof cmd, "'%s/tools/%s' %s 2>&1", top && top[0] ? top : "..", prog, args);
    f = popen(cmd, "r");
    if (!f) {
        printf("Bail out! cannot run %s\n", cmd);
        exit(1);
    }
    while (n < sizeof out - 1 && (k = fread(out + n, 1, sizeof out - 1 - n, f)) > 0)
        n += k;
    while (n > 0 && out[n - 1] == '\n')
        n--;            /* messages are checked one line at a time */
    out[n] = '\0';
    st = pclose(f);
    printf("# $ %s %s -> %d\n", prog, args, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The JSON text at path in doc (MariaDB's JSON_EXTRACT), "" if missing. */
static const char *jget(const char *doc, const char *path)
{
    static char v[1024];
    struct db_val p[] = { DBV_STR(doc), DBV_STR(path) };
    struct db_val col[] = { DBV_BUF(v) };
    v[0] = '\0';
    if (db_query(ctx.db, 121, "SELECT JSON_EXTRACT(?, ?)", p, 2, col, 1, NULL, NULL, NULL,
                 "json extract") != DB_OK)
        die("json extract");
    db_commit(ctx.db);
    return v;
}

static int json_valid(const char *doc)
{
    long long ok = 0;
    struct db_val p[] = { DBV_STR(doc) };
    struct db_val col[] = { DBV_LL(ok) };
    if (db_query(ctx.db, 120, "SELECT JSON_VALID(?)", p, 1, col, 1, NULL, NULL, NULL,
                 "json valid") != DB_OK)
        die("json valid");
    db_commit(ctx.db);
    return ok == 1;
}

static long long q(int slot, const char *text, int param)
{
    return tu_scalar(&ctx, slot, text, param);
}

struct lbatch {
    int id, c1, c2;
    char name[64];
};

static int appid, userid;

static int add_wu(const struct lbatch *b, int cursor, int job, int error_mask)
{
    double fp = 8.64e13, bound = 8.64e14, mem = 1e8, disk = 1e9, maxout = 1e6;
    int delay = 86400, first = job, nf = 3;
    char name[128];
    struct db_val p[] = { DBV_INT(appid), DBV_STR(name), DBV_INT(b->id), DBV_INT(cursor),
                          DBV_INT(job), DBV_INT(first), DBV_INT(nf), DBV_DBL(fp),
                          DBV_DBL(bound), DBV_DBL(mem), DBV_DBL(disk), DBV_DBL(maxout),
                          DBV_INT(delay), DBV_INT(error_mask) };
    snprintf(name, sizeof name, "%s_wu%d", b->name, job);
    return (int)sql(130, "INSERT INTO workunit (appid, name, batch, cursor_id, job_num, "
                         "first_file_num, nfiles, rsc_fpops_est, rsc_fpops_bound, "
                         "rsc_memory_bound, rsc_disk_bound, max_out_nbytes, delay_bound, "
                         "error_mask) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    p, 14);
}

/* A result of workunit wu in server_state / outcome; sent ones belong to
 * the test user (sent_to_user), unsent ones to nobody. */
static int add_result(const struct lbatch *b, int wu, int cursor, int job, int k, int state,
                      int outcome, int sent_to_user)
{
    char name[128];
    int uid = sent_to_user ? userid : 0;
    struct db_val p[] = { DBV_INT(wu), DBV_STR(name), DBV_INT(appid), DBV_INT(b->id),
                          DBV_INT(cursor), DBV_INT(job), DBV_INT(state), DBV_INT(outcome),
                          DBV_INT(uid) };
    p[8].is_null = !sent_to_user;
    snprintf(name, sizeof name, "%s_wu%d_%d", b->name, job, k);
    return (int)sql(131, "INSERT INTO result (workunitid, name, appid, batch, cursor_id, "
                         "job_num, server_state, outcome, userid) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", p, 9);
}

static void set_canonical(int wu, int result)
{
    struct db_val p[] = { DBV_INT(result), DBV_INT(wu) };
    sql(132, "UPDATE workunit SET canonical_resultid = ? WHERE id = ?", p, 2);
}

static int add_cursor(const struct lbatch *b, int first, int last, int unfinished,
                      int ungenerated, int nhosts, double rate, double maxrate, double remaining)
{
    struct db_val p[] = { DBV_INT(b->id), DBV_INT(first), DBV_INT(last), DBV_DBL(rate),
                          DBV_DBL(maxrate), DBV_DBL(remaining), DBV_INT(unfinished),
                          DBV_INT(ungenerated), DBV_INT(nhosts) };
    return (int)sql(133, "INSERT INTO locality_cursor (batch_id, first_job_num, last_job_num, "
                         "expavg_credit, max_host_credit, remaining_credit, "
                         "first_unfinished_job_num, first_ungenerated_job_num, nhosts) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", p, 9);
}

/* A team member: host ids are made up (batch_host has no foreign key). */
static void add_member(const struct lbatch *b, int host, int cursor, double rate)
{
    struct db_val p[] = { DBV_INT(host), DBV_INT(b->id), DBV_INT(cursor), DBV_INT(userid),
                          DBV_DBL(rate) };
    sql(134, "INSERT INTO batch_host (host_id, batch_id, cursor_id, userid, credit_rate) "
             "VALUES (?, ?, ?, ?, ?)", p, 5);
}

static void add_batch_row(struct lbatch *b, const char *tag, int state, int locality, int njobs,
                          int nfiles)
{
    int now = (int)time(NULL);
    struct db_val p[] = { DBV_INT(now), DBV_STR(b->name), DBV_INT(appid), DBV_INT(state),
                          DBV_INT(locality), DBV_INT(njobs), DBV_INT(nfiles) };
    snprintf(b->name, sizeof b->name, "bt%ld_%s", (long)getpid(), tag);
    b->id = (int)sql(135, "INSERT INTO batch (create_time, name, appid, state, locality, njobs, "
                          "nfiles) VALUES (?, ?, ?, ?, ?, ?, ?)", p, 7);
}

/*
 * The main locality batch: 12 jobs over 14 files (job j uses files
 * j..j+2, 200 credits each).
 *   cursor c1, jobs 0-5, team of 2 (100 credit/day), 800 credit left:
 *     0 done (canonical), 1 done (error), 2 in progress (result out),
 *     3 in progress (reported, awaiting the transitioner), 4 unsent,
 *     5 not generated
 *   cursor c2, jobs 6-11, no team, 1200 credit left:
 *     6 in progress (one replica out, one unsent), 7 unsent (2 replicas),
 *     8-11 not generated
 */
static void make_locality_batch(struct lbatch *b, const char *tag, int host_base)
{
    int i, wu, r;
    add_batch_row(b, tag, BS_IN_PROGRESS, 1, 12, 14);
    for (i = 0; i < 14; i++) {
        char fname[96];
        double nbytes = 1e6;
        struct db_val p[] = { DBV_INT(b->id), DBV_INT(i), DBV_STR(fname), DBV_DBL(nbytes) };
        snprintf(fname, sizeof fname, "%s_f%02d", b->name, i);
        sql(136, "INSERT INTO file (batch_id, file_num, name, nbytes) VALUES (?, ?, ?, ?)", p, 4);
    }
    for (i = 0; i < 12; i++) {
        int nf = 3;
        double fp = 8.64e13;
        struct db_val p[] = { DBV_INT(b->id), DBV_INT(i), DBV_INT(i), DBV_INT(nf), DBV_DBL(fp) };
        sql(137, "INSERT INTO batch_job (batch_id, job_num, first_file_num, nfiles, "
                 "rsc_fpops_est) VALUES (?, ?, ?, ?, ?)", p, 5);
    }
    b->c1 = add_cursor(b, 0, 5, 2, 5, 2, 100, 60, 800);
    b->c2 = add_cursor(b, 6, 11, 6, 8, 0, 0, 0, 1200);
    add_member(b, host_base + 1, b->c1, 60);
    add_member(b, host_base + 2, b->c1, 40);

    wu = add_wu(b, b->c1, 0, 0);
    r = add_result(b, wu, b->c1, 0, 0, RS_OVER, RO_SUCCESS, 1);
    set_canonical(wu, r);
    wu = add_wu(b, b->c1, 1, 2);
    add_result(b, wu, b->c1, 1, 0, RS_OVER, RO_CLIENT_ERROR, 1);
    wu = add_wu(b, b->c1, 2, 0);
    add_result(b, wu, b->c1, 2, 0, RS_IN_PROGRESS, RO_INIT, 1);
    wu = add_wu(b, b->c1, 3, 0);
    add_result(b, wu, b->c1, 3, 0, RS_OVER, RO_SUCCESS, 1);
    wu = add_wu(b, b->c1, 4, 0);
    add_result(b, wu, b->c1, 4, 0, RS_UNSENT, RO_INIT, 0);
    wu = add_wu(b, b->c2, 6, 0);
    add_result(b, wu, b->c2, 6, 0, RS_IN_PROGRESS, RO_INIT, 1);
    add_result(b, wu, b->c2, 6, 1, RS_UNSENT, RO_INIT, 0);
    wu = add_wu(b, b->c2, 7, 0);
    add_result(b, wu, b->c2, 7, 0, RS_UNSENT, RO_INIT, 0);
    add_result(b, wu, b->c2, 7, 1, RS_UNSENT, RO_INIT, 0);
    if (db_commit(ctx.db) != DB_OK)
        die("commit");
}

static int xp_count(xmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr x = xmlXPathNewContext(doc);
    xmlXPathObjectPtr res;
    int n = -1;
    xmlXPathRegisterNs(x, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
    res = xmlXPathEvalExpression(BAD_CAST expr, x);
    if (res && res->type == XPATH_NODESET)
        n = res->nodesetval ? res->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(res);
    xmlXPathFreeContext(x);
    return n;
}

static void test_status(const struct lbatch *b)
{
    char args[256], path[128], expr[256];
    xmlDocPtr doc;
    int rc;

    /* text, not a terminal: ASCII bars, no colour */
    snprintf(args, sizeof args, "'%s'", b->name);
    rc = run("batch_status", args);
    TAP_EQ_INT(rc, 0, "batch_status NAME exits 0");
    TAP_CHECK(strchr(out, '\033') == NULL, "no escape codes when stdout is a pipe");
    TAP_CHECK(strstr(out, "locality, in_progress, 12 jobs, 14 files") != NULL, "heading");
    TAP_CHECK(strstr(out, "[######++++++++++........................]  16.6%  2 done, "
                          "3 in progress, 7 unsent; est_time_left inf days") != NULL,
              "batch bar and counts");
    TAP_CHECK(strstr(out, "2 done, 2 in progress, 2 unsent\n               jobs 0-5, first "
                          "unfinished 2, first ungenerated 5; team 2 hosts, 100 credit/day "
                          "(fastest 60), remaining 800 credit, est_time_left 8 days") != NULL,
              "cursor 1 counts and team");
    TAP_CHECK(strstr(out, "0 done, 1 in progress, 5 unsent\n               jobs 6-11") != NULL,
              "cursor 2 counts (not generated jobs are unsent)");
    if (tap_failed)
        printf("# output:\n%s\n", out);

    /* JSON, by id */
    snprintf(args, sizeof args, "--json %d", b->id);
    rc = run("batch_status", args);
    TAP_EQ_INT(rc, 0, "batch_status --json ID exits 0");
    TAP_CHECK(json_valid(out), "output is valid JSON");
    {
        char want[96];
        snprintf(want, sizeof want, "\"%s\"", b->name);
        TAP_EQ_STR(jget(out, "$.batches[0].name"), want, "name");
    }
    TAP_EQ_STR(jget(out, "$.batches[0].state"), "\"in_progress\"", "state");
    TAP_EQ_STR(jget(out, "$.batches[0].locality"), "true", "locality");
    TAP_EQ_STR(jget(out, "$.batches[0].jobs.done"), "2", "batch done");
    TAP_EQ_STR(jget(out, "$.batches[0].jobs.in_progress"), "3", "batch in progress");
    TAP_EQ_STR(jget(out, "$.batches[0].jobs.unsent"), "7", "batch unsent");
    TAP_EQ_STR(jget(out, "$.batches[0].est_time_left"), "null", "batch est: infinite");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[0].jobs.unsent"), "2", "cursor 1 unsent");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[0].nhosts"), "2", "cursor 1 team size");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[0].expavg_credit"), "100", "cursor 1 rate");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[0].est_time_left"), "8", "cursor 1 est 8 days");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[0].first_unfinished_job_num"), "2",
               "cursor 1 first unfinished");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[1].first_ungenerated_job_num"), "8",
               "cursor 2 first ungenerated");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[1].jobs.in_progress"), "1",
               "cursor 2 in progress");
    TAP_EQ_STR(jget(out, "$.batches[0].cursors[1].est_time_left"), "null",
               "cursor 2: empty team, est null");
    TAP_EQ_STR(jget(out, "$.batches[1]"), "", "one batch only");

    /* SVG */
    snprintf(path, sizeof path, "batch_tools_%ld.svg", (long)getpid());
    snprintf(args, sizeof args, "--svg '%s' '%s'", path, b->name);
    rc = run("batch_status", args);
    TAP_EQ_INT(rc, 0, "batch_status --svg exits 0");
    doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    TAP_CHECK(doc != NULL, "SVG file is well-formed XML");
    if (doc) {
        TAP_EQ_INT(xp_count(doc, "//s:g[@class='band']"), 2, "two bands");
        snprintf(expr, sizeof expr, "//s:g[@id='batch%d-cursor%d']/s:rect[@class='done']", b->id,
                 b->c1);
        TAP_EQ_INT(xp_count(doc, expr), 1, "cursor 1: a done segment");
        snprintf(expr, sizeof expr,
                 "//s:g[@id='batch%d-cursor%d']/s:rect[@class='in-progress']", b->id, b->c2);
        TAP_EQ_INT(xp_count(doc, expr), 1, "cursor 2: an in-progress segment");
        snprintf(expr, sizeof expr, "//s:g[@id='batch%d-cursor%d']/s:rect[@class='done']", b->id,
                 b->c2);
        TAP_EQ_INT(xp_count(doc, expr), 0, "cursor 2: nothing done");
        TAP_EQ_INT(xp_count(doc, "//s:g[@class='marker']"), 2, "a marker per cursor");
        TAP_EQ_INT(xp_count(doc, "//s:g[@class='legend']"), 1, "a legend");
        xmlFreeDoc(doc);
    }
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        snprintf(args, sizeof args, "xmllint --noout '%s'", path);
        TAP_EQ_INT(system(args), 0, "xmllint accepts the SVG");
    } else {
        printf("# xmllint not installed: checked with libxml2 only\n");
    }
    unlink(path);

    /* errors */
    rc = run("batch_status", "no_such_batch_xyz");
    TAP_EQ_INT(rc, 1, "unknown batch: exit 1");
    TAP_CHECK(strstr(out, "no_such_batch_xyz") != NULL, "message names the batch");
}

int main(void)
{
    struct lbatch a, b2, done;
    char args[256], auth[65];
    int rc, before;

    tu_ctx_open(&ctx);
    tu_app(&ctx, NULL);
    if (db_app_lookup(ctx.db, "tapp", &appid) != DB_OK)
        die("app");
    db_commit(ctx.db);
    userid = tu_user(&ctx, "batchtools", auth);
    memset(&a, 0, sizeof a);
    memset(&b2, 0, sizeof b2);
    memset(&done, 0, sizeof done);
    make_locality_batch(&a, "loc", 900000 + (int)(getpid() % 1000) * 10);
    make_locality_batch(&b2, "other", 800000 + (int)(getpid() % 1000) * 10);
    add_batch_row(&done, "done", BS_COMPLETE, 0, 1, 0);
    if (db_commit(ctx.db) != DB_OK)
        die("commit");

    test_status(&a);

    /* retire refuses a batch in progress and changes nothing */
    snprintf(args, sizeof args, "'%s'", a.name);
    rc = run("retire_batch", args);
    TAP_EQ_INT(rc, 1, "retire of a batch in progress: exit 1");
    TAP_CHECK(strstr(out, a.name) && strstr(out, "in progress") &&
              strstr(out, "only a complete or aborted batch"), "message says why: %s", out);
    TAP_EQ_INT(q(140, "SELECT state FROM batch WHERE id = ?", a.id), BS_IN_PROGRESS,
               "batch still in progress");
    TAP_EQ_INT(q(141, "SELECT COUNT(*) FROM batch_host WHERE batch_id = ?", a.id), 2,
               "team members still there");

    /* abort */
    before = (int)time(NULL);
    rc = run("abort_batch", args);
    TAP_EQ_INT(rc, 0, "abort_batch exits 0");
    TAP_CHECK(strstr(out, "4 unsent results -> over") != NULL, "says 4 results cancelled");
    TAP_CHECK(strstr(out, "5 unfinished workunits cancelled") != NULL, "says 5 workunits");
    TAP_CHECK(strstr(out, "2 results in progress left to be reported") != NULL,
              "says 2 results left in progress");
    if (tap_failed)
        printf("# output: %s\n", out);
    TAP_EQ_INT(q(140, "SELECT state FROM batch WHERE id = ?", a.id), BS_ABORTED,
               "batch is ABORTED");
    TAP_EQ_INT(q(142, "SELECT COUNT(*) FROM result WHERE batch = ? AND server_state IN (1, 2)",
                 a.id), 0, "no unsent result left");
    TAP_EQ_INT(q(143, "SELECT COUNT(*) FROM result WHERE batch = ? AND server_state = 5 AND "
                      "outcome = 5", a.id), 4, "4 results OVER / DIDNT_NEED");
    TAP_EQ_INT(q(144, "SELECT COUNT(*) FROM result WHERE batch = ? AND server_state = 4", a.id),
               2, "results in progress left alone");
    TAP_EQ_INT(q(145, "SELECT COUNT(*) FROM workunit WHERE batch = ? AND (error_mask & 16) <> 0",
                 a.id), 5, "5 workunits cancelled");
    TAP_EQ_INT(q(146, "SELECT error_mask FROM workunit WHERE batch = ? AND job_num = 1", a.id),
               2, "a finished workunit keeps its error_mask");
    TAP_EQ_INT(q(147, "SELECT error_mask FROM workunit WHERE batch = ? AND job_num = 0", a.id),
               0, "a job with a canonical result is not cancelled");
    TAP_CHECK(q(148, "SELECT MIN(transition_time) FROM workunit WHERE batch = ? AND "
                     "(error_mask & 16) <> 0", a.id) >= before,
              "cancelled workunits are due for the transitioner");
    TAP_EQ_INT(q(142, "SELECT COUNT(*) FROM result WHERE batch = ? AND server_state IN (1, 2)",
                 b2.id), 4, "the other batch is untouched");

    snprintf(args, sizeof args, "--json '%s'", a.name);
    run("batch_status", args);
    TAP_EQ_STR(jget(out, "$.batches[0].state"), "\"aborted\"", "status: aborted");
    TAP_EQ_STR(jget(out, "$.batches[0].jobs.done"), "7", "status: cancelled jobs are finished");
    TAP_EQ_STR(jget(out, "$.batches[0].jobs.in_progress"), "0", "status: none in progress");
    TAP_EQ_STR(jget(out, "$.batches[0].jobs.unsent"), "5", "status: 5 never generated");

    /* abort refuses a complete batch */
    snprintf(args, sizeof args, "'%s'", done.name);
    rc = run("abort_batch", args);
    TAP_EQ_INT(rc, 1, "abort of a complete batch: exit 1");
    TAP_CHECK(strstr(out, done.name) && strstr(out, "is complete"), "message: %s", out);
    TAP_EQ_INT(q(140, "SELECT state FROM batch WHERE id = ?", done.id), BS_COMPLETE,
               "complete batch unchanged");
    rc = run("abort_batch", "no_such_batch_xyz");
    TAP_EQ_INT(rc, 1, "abort of an unknown batch: exit 1");
    TAP_CHECK(strstr(out, "no_such_batch_xyz") != NULL, "message names it");

    /* retire the aborted batch (by id) */
    snprintf(args, sizeof args, "%d", a.id);
    rc = run("retire_batch", args);
    TAP_EQ_INT(rc, 0, "retire_batch exits 0");
    TAP_CHECK(strstr(out, "2 team members removed, 2 cursors reset; no files deleted") != NULL,
              "says what changed: %s", out);
    TAP_EQ_INT(q(140, "SELECT state FROM batch WHERE id = ?", a.id), BS_RETIRED,
               "batch is RETIRED");
    TAP_EQ_INT(q(141, "SELECT COUNT(*) FROM batch_host WHERE batch_id = ?", a.id), 0,
               "its team members are gone");
    TAP_EQ_INT(q(149, "SELECT SUM(nhosts) + SUM(expavg_credit) FROM locality_cursor "
                      "WHERE batch_id = ?", a.id), 0, "its cursors have empty teams");
    TAP_EQ_INT(q(141, "SELECT COUNT(*) FROM batch_host WHERE batch_id = ?", b2.id), 2,
               "the other batch keeps its team");
    TAP_EQ_INT(q(150, "SELECT COUNT(*) FROM file WHERE batch_id = ?", a.id), 14,
               "file rows are kept");

    /* retired: neither abort nor retire again; not listed without --all */
    snprintf(args, sizeof args, "'%s'", a.name);
    rc = run("abort_batch", args);
    TAP_EQ_INT(rc, 1, "abort of a retired batch: exit 1");
    TAP_CHECK(strstr(out, "is retired") != NULL, "message: %s", out);
    rc = run("retire_batch", args);
    TAP_EQ_INT(rc, 1, "retire of a retired batch: exit 1");
    rc = run("batch_status", "--json");
    TAP_CHECK(rc == 0 && json_valid(out), "status of all batches is valid JSON");
    TAP_CHECK(strstr(out, a.name) == NULL && strstr(out, b2.name) != NULL,
              "retired batch not listed without --all");
    rc = run("batch_status", "--json --all");
    TAP_CHECK(rc == 0 && strstr(out, a.name) != NULL, "--all lists it");

    /* a complete batch can be retired */
    snprintf(args, sizeof args, "'%s'", done.name);
    rc = run("retire_batch", args);
    TAP_EQ_INT(rc, 0, "retire of a complete batch");
    TAP_EQ_INT(q(140, "SELECT state FROM batch WHERE id = ?", done.id), BS_RETIRED,
               "complete batch is RETIRED");

    /* leave no active batch behind for the tests that follow: abort and
     * retire the other one, by id */
    snprintf(args, sizeof args, "%d", b2.id);
    rc = run("abort_batch", args);
    TAP_EQ_INT(rc, 0, "abort of the other batch by id");
    rc = run("retire_batch", args);
    TAP_EQ_INT(rc, 0, "retire of the other batch by id");
    TAP_EQ_INT(q(141, "SELECT COUNT(*) FROM batch_host WHERE batch_id = ?", b2.id), 0,
               "its team is gone too");

    rc = run("abort_batch", "--help");
    TAP_CHECK(rc == 0 && strstr(out, "in progress") && strstr(out, "left alone"),
              "abort_batch --help explains results in progress");
    rc = run("retire_batch", "--help");
    TAP_CHECK(rc == 0 && strstr(out, "deletes no files"), "retire_batch --help: no files");
    xmlCleanupParser();
    return tap_done();
}
