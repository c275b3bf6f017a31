/*
 * test_check_invariants.c - tools/check_invariants against a database
 * that may be broken on purpose: a scratch database (locsched_invcheck,
 * on the test sandbox's server, which grants locsched_* databases) gets
 * the schema through tools/db_upgrade, then a clean state made by the
 * real code: accounts, a plain and a locality batch, three hosts whose
 * requests go through the scheduler's handler, reports, and a pass of
 * each daemon.  The checker must find it clean; then each kind of damage
 * is done, one at a time, the checker must name it (its check, the id),
 * and the damage is undone.
 *
 * The programs read invcheck-test.conf, written in the working folder: the
 * sandbox's configuration with the scratch database, absolute folders and
 * a small work cushion.  The test's own statements are constants, in
 * statement slots that the data layer's own statements leave free in
 * this process (slot_for()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_admin.h"
#include "db_slots.h"
#include "db_test_util.h"
#include "tap.h"

#define SCRATCH_DB "locsched_invcheck"
#define NEVER 2147483647

static struct sched_ctx ctx;       /* on the scratch database */
static struct buf reply;
static char conf_path[4096], work_dir[4096], top_build[4096], top_src[4096];

static void bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

/* ---------------------------------------------------------------- SQL */

/* A statement slot per distinct statement text of this test, from slots
 * that no statement of the data layer uses in this process:
 * SLOT_SCHED_END..39 (between the scheduler's and the admin tools'),
 * 80..99 (the checker's: the checker runs as a program) and 140..158.
 * Each phase of the test starts on a fresh connection
 * (fresh_connection()), whose cache of prepared statements is empty, so
 * the slots are handed out anew. */
#define LOW_SLOTS (SLOT_ADMIN_FIRST - SLOT_SCHED_END)
#define NSLOTS (LOW_SLOTS + 20 + 19)
static const char *slot_texts[NSLOTS];
static int slot_count;

static int slot_for(const char *sql)
{
    int i;
    for (i = 0; i < slot_count; i++)
        if (strcmp(slot_texts[i], sql) == 0)
            break;
    if (i == slot_count) {
        if (slot_count == NSLOTS)
            bail("slot_for", "more statements in one phase than free slots");
        slot_texts[slot_count++] = sql;
    }
    return i < LOW_SLOTS ? SLOT_SCHED_END + i
         : i < LOW_SLOTS + 20 ? 80 + (i - LOW_SLOTS) : 140 + (i - LOW_SLOTS - 20);
}

static void fresh_connection(void)
{
    char err[1024];
    db_close(ctx.db);
    ctx.db = db_open(&ctx.dbp, err, sizeof err);
    if (!ctx.db)
        bail("reconnect", err);
    slot_count = 0;
}

/* Run a statement with up to three int parameters and commit. */
static long long exec3(const char *sql, int np, int a, int b, int c)
{
    struct db_val p[] = { DBV_INT(a), DBV_INT(b), DBV_INT(c) };
    long long n = 0;
    if (db_exec(ctx.db, slot_for(sql), sql, p, np, &n, "test statement") != DB_OK ||
        db_commit(ctx.db) != DB_OK) {
        printf("# statement: %s\n", sql);
        bail("test statement", db_error(ctx.db));
    }
    return n;
}
#define EXEC0(sql) exec3(sql, 0, 0, 0, 0)
#define EXEC1(sql, a) exec3(sql, 1, a, 0, 0)
#define EXEC2(sql, a, b) exec3(sql, 2, a, b, 0)
#define EXEC3(sql, a, b, c) exec3(sql, 3, a, b, c)

static void exec_dbl(const char *sql, double d, int id)
{
    struct db_val p[] = { DBV_DBL(d), DBV_INT(id) };
    if (db_exec(ctx.db, slot_for(sql), sql, p, 2, NULL, "test statement") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        bail("test statement", db_error(ctx.db));
}

static void exec_str(const char *sql, const char *s, int id)
{
    struct db_val p[] = { DBV_STR(s), DBV_INT(id) };
    if (db_exec(ctx.db, slot_for(sql), sql, p, 2, NULL, "test statement") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        bail("test statement", db_error(ctx.db));
}

/* One integer from a statement with up to two int parameters (-1: no row). */
static long long scalar2(const char *sql, int np, int a, int b)
{
    long long v = -1;
    struct db_val p[] = { DBV_INT(a), DBV_INT(b) };
    struct db_val col[] = { DBV_LL(v) };
    if (db_query(ctx.db, slot_for(sql), sql, p, np, col, 1, NULL, NULL, NULL, "test query") !=
        DB_OK) {
        printf("# query: %s\n", sql);
        bail("test query", db_error(ctx.db));
    }
    db_commit(ctx.db);
    return v;
}
#define SCALAR(sql, a) scalar2(sql, 1, a, 0)
#define SCALAR2(sql, a, b) scalar2(sql, 2, a, b)

static void scalar_str(const char *sql, int param, char *out, size_t cap)
{
    char v[256] = "";
    struct db_val p[] = { DBV_INT(param) };
    struct db_val col[] = { DBV_BUF(v) };
    if (db_query(ctx.db, slot_for(sql), sql, p, 1, col, 1, NULL, NULL, NULL, "test query") !=
        DB_OK)
        bail("test query", db_error(ctx.db));
    db_commit(ctx.db);
    snprintf(out, cap, "%s", v);
}

/* ---------------------------------------------------------------- programs */

/* Run argv (NULL-terminated) with stdout and stderr into out (if not
 * NULL); returns the exit status, or -1 if it did not exit normally. */
static int run_prog(const char *const *argv, struct buf *out)
{
    char path[4200];
    pid_t pid;
    int st;

    snprintf(path, sizeof path, "%s/invcheck-run.out", work_dir);
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        bail("fork", strerror(errno));
    if (pid == 0) {
        FILE *f = freopen(path, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    if (waitpid(pid, &st, 0) != pid)
        bail("waitpid", strerror(errno));
    if (out) {
        char *text = tu_read_file(path, NULL);
        buf_reset(out);
        buf_puts(out, text);
        free(text);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int daemon_pass(const char *name)
{
    char path[4200];
    struct buf out;
    int rc;
    const char *argv[] = { path, "--config", conf_path, "--one-pass", NULL };
    snprintf(path, sizeof path, "%s/daemons/%s", top_build, name);
    buf_init(&out);
    rc = run_prog(argv, &out);
    if (rc != 0)
        printf("# %s exited with %d:\n%s\n", name, rc, out.p ? out.p : "");
    buf_free(&out);
    return rc;
}

/* The checker's exit status; its output in out. */
static int checker(struct buf *out, const char *a1, const char *a2)
{
    char path[4200];
    const char *argv[] = { path, "--config", conf_path, a1, a2, NULL };
    snprintf(path, sizeof path, "%s/tools/check_invariants", top_build);
    return run_prog(argv, out);
}

/* In the checker's JSON, the count of check name (-1: not there). */
static long long json_count(const char *json, const char *name)
{
    char key[128];
    const char *p;
    snprintf(key, sizeof key, "\"name\": \"%s\"", name);
    p = json ? strstr(json, key) : NULL;
    if (!p || !(p = strstr(p, "\"count\": ")))
        return -1;
    return atoll(p + 9);
}

/* Whether id is among the ids the JSON lists for check name. */
static int json_has_id(const char *json, const char *name, int id)
{
    char key[128];
    const char *p, *end;
    snprintf(key, sizeof key, "\"name\": \"%s\"", name);
    p = json ? strstr(json, key) : NULL;
    if (!p || !(p = strstr(p, "\"ids\": [")) || !(end = strchr(p, ']')))
        return 0;
    for (p += 8; p < end;) {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p)
            break;
        if (v == id)
            return 1;
        p = e + strspn(e, ", ");
    }
    return 0;
}

/* Run the checker and expect check name to report the entity id. */
static void expect_violation(const char *name, int id, const char *damage)
{
    struct buf out;
    int rc;
    buf_init(&out);
    rc = checker(&out, "--json", NULL);
    TAP_EQ_INT(rc, 1, "%s: the checker exits 1", damage);
    if (!TAP_CHECK(json_count(out.p, name) >= 1, "%s: %s counts it", damage, name) ||
        !TAP_CHECK(json_has_id(out.p, name, id), "%s: %s names #%d", damage, name, id))
        printf("# output:\n%s\n", out.p ? out.p : "");
    buf_free(&out);
}

static void expect_clean(const char *when)
{
    struct buf out;
    int rc;
    buf_init(&out);
    rc = checker(&out, "--json", NULL);
    TAP_EQ_INT(rc, 0, "%s: the checker finds no violation", when);
    if (rc != 0)
        printf("# output:\n%s\n", out.p ? out.p : "");
    TAP_CHECK(out.p && strstr(out.p, "\"clean\": true") && strstr(out.p, "\"violations\": 0"),
              "%s: JSON says clean", when);
    buf_free(&out);
}

/* ---------------------------------------------------------------- set-up */

/* The scratch configuration: the sandbox's, with the scratch database,
 * absolute folders (those of the sandbox project, a log folder here) and
 * a work cushion of 3; without positions in the cursor, whose first member
 * would take a stretch of the whole cursor and have it all generated: the
 * damage below needs a cursor with jobs not generated yet; and without
 * resending lost results: host A2's second request does not list the jobs
 * of its first, which were then resent, or marked lost when a loaded
 * machine had let too much of their one-hour deadline pass (the state
 * below needs them in progress). */
static void write_config(const char *src)
{
    struct config cfg;
    char err[1024], line[4096];
    FILE *in, *out;
    static const char *const drop[] = { "db_name", "key_dir", "log_dir", "download_dir",
                                        "upload_dir", "record_dir", "work_cushion",
                                        "log_level", "resend_lost_results" };

    if (config_load(&cfg, src, err, sizeof err) < 0)
        bail("sandbox config", err);
    snprintf(conf_path, sizeof conf_path, "%s/invcheck-test.conf", work_dir);
    snprintf(line, sizeof line, "%s/invcheck-log", work_dir);
    mkdir(line, 0755);
    in = fopen(src, "r");
    out = fopen(conf_path, "w");
    if (!in || !out)
        bail("config copy", strerror(errno));
    while (fgets(line, sizeof line, in)) {
        const char *k = line + strspn(line, " \t");
        size_t i, skip = 0;
        for (i = 0; i < sizeof drop / sizeof drop[0]; i++)
            if (strncmp(k, drop[i], strlen(drop[i])) == 0 &&
                strchr(" \t=", k[strlen(drop[i])]))
                skip = 1;
        if (!skip)
            fputs(line, out);
    }
    fprintf(out,
            "\ndb_name = " SCRATCH_DB "\nkey_dir = %s\nlog_dir = %s/invcheck-log\n"
            "download_dir = %s\nupload_dir = %s\nrecord_dir = %s\nwork_cushion = 3\n"
            "locality_positions = 0\nlog_level = 1\nresend_lost_results = 0\n",
            cfg.key_dir, work_dir, cfg.download_dir, cfg.upload_dir, cfg.record_dir);
    fclose(in);
    if (fclose(out) != 0)
        bail("config copy", strerror(errno));
    chmod(conf_path, 0600);
}

/* Drop and create the scratch database through the sandbox's own. */
static void scratch_database(const char *sandbox_conf, int create)
{
    struct sched_ctx main_ctx;
    char err[1024];
    static const char drop[] = "DROP DATABASE IF EXISTS " SCRATCH_DB;
    static const char make[] =
        "CREATE DATABASE " SCRATCH_DB " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin";

    if (sched_ctx_init(&main_ctx, sandbox_conf, err, sizeof err) < 0 || !main_ctx.db)
        bail("sandbox database", err);
    if (db_exec(main_ctx.db, 141, drop, NULL, 0, NULL, "drop the scratch database") != DB_OK ||
        (create &&
         db_exec(main_ctx.db, 142, make, NULL, 0, NULL, "create the scratch database") != DB_OK))
        bail("scratch database", db_error(main_ctx.db));
    sched_ctx_free(&main_ctx);
}

/* A request from a recorded body: CPU work wanted, or, with results (the
 * XML of reported results), those reports and no work. */
static void request(const char *auth, int hostid, int seqno, const char *results,
                    struct sched_stats *st)
{
    struct buf b;
    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, hostid, seqno);
    if (results) {
        /* reports go before the end of the request */
        char *end = strstr(b.p, "</scheduler_request>");
        struct buf nb;
        buf_init(&nb);
        buf_put(&nb, b.p, (size_t)(end - b.p));
        buf_puts(&nb, results);
        buf_puts(&nb, end);
        buf_free(&b);
        b = nb;
        tu_set_elem(&b, "work_req_seconds", "0");
        tu_set_elem(&b, "cpu_req_secs", "0");
        tu_set_elem(&b, "cpu_req_instances", "0");
    }
    sched_handle(&ctx, b.p, b.len, &reply, st);
    buf_free(&b);
}

struct report_build {
    struct buf xml;
    char name[256];
    int n, fail_every;
};

static int report_build_row(void *arg)
{
    struct report_build *r = arg;
    int fail = r->fail_every > 0 && r->n % r->fail_every == r->fail_every - 1;
    r->n++;
    buf_printf(&r->xml,
               "<result>\n<name>%s</name>\n<final_cpu_time>100</final_cpu_time>\n"
               "<final_elapsed_time>110</final_elapsed_time>\n<exit_status>%d</exit_status>\n"
               "<state>%d</state>\n</result>\n",
               r->name, fail ? 1 : 0, fail ? CRS_COMPUTE_ERROR : CRS_FILES_UPLOADED);
    return 0;
}

/* Report every in-progress result of hostid: every fail_every-th (if > 0)
 * as a computation error, the others as successes.  Returns how many
 * results the scheduler marked reported. */
static int report_all(const char *auth, int hostid, int seqno, int fail_every)
{
    static const char sql[] =
        "SELECT name FROM result WHERE hostid = ? AND server_state = 4 ORDER BY id";
    struct report_build r;
    struct sched_stats st;
    struct db_val p[] = { DBV_INT(hostid) };
    struct db_val col[] = { DBV_BUF(r.name) };

    memset(&r, 0, sizeof r);
    buf_init(&r.xml);
    r.fail_every = fail_every;
    if (db_query(ctx.db, slot_for(sql), sql, p, 1, col, 1, report_build_row, &r, NULL,
                 "names to report") != DB_OK)
        bail("names to report", db_error(ctx.db));
    db_commit(ctx.db);
    request(auth, hostid, seqno, r.xml.p ? r.xml.p : "", &st);
    buf_free(&r.xml);
    if (strcmp(st.outcome, "ok") != 0)
        printf("# report of [host#%d]: %s\n", hostid, st.outcome);
    return st.results_reported;
}

/* A new host of the user behind auth: its id (from the reply). */
static int new_host(const char *auth, int *jobs)
{
    struct sched_stats st;
    request(auth, 0, 0, NULL, &st);
    if (strcmp(st.outcome, "ok") != 0)
        bail("first request", st.outcome);
    *jobs = st.jobs_sent;
    return (int)tu_elem_ll(reply.p, "hostid");
}

/* ---------------------------------------------------------------- damage */

static int user_a, user_b, host_a1, host_a2, host_b1, plain_batch, loc_batch, cursors[2];

/* Results sent, claimed, reported: the basic kinds. */
static void damage_results(void)
{
    int r_ip = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM result WHERE server_state = ? "
                           "AND hostid <> 0", 4);
    int r_ok = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM result WHERE server_state = 5 "
                           "AND outcome = ?", 1);
    int host, user, sent, missing;

    if (!TAP_CHECK(r_ip > 0 && r_ok > 0, "a result in progress (#%d) and one reported (#%d)",
                   r_ip, r_ok))
        return;
    host = (int)SCALAR("SELECT hostid FROM result WHERE id = ?", r_ip);
    user = (int)SCALAR("SELECT userid FROM result WHERE id = ?", r_ip);
    sent = (int)SCALAR("SELECT sent_time FROM result WHERE id = ?", r_ok);

    EXEC1("UPDATE result SET hostid = 0 WHERE id = ?", r_ip);
    expect_violation("sent_without_host", r_ip, "an in-progress result with hostid 0");
    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", host, r_ip);

    missing = (int)SCALAR("SELECT IFNULL(MAX(id), 0) + 1000 FROM host WHERE id > ?", 0);
    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", missing, r_ip);
    expect_violation("sent_to_missing_host", r_ip,
                     "an in-progress result claimed by a host that does not exist");
    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", host, r_ip);

    EXEC1("UPDATE result SET userid = NULL WHERE id = ?", r_ip);
    expect_violation("sent_without_host", r_ip, "an in-progress result with userid NULL");
    EXEC2("UPDATE result SET userid = ? WHERE id = ?", user, r_ip);

    EXEC1("UPDATE result SET sent_time = 0 WHERE id = ?", r_ok);
    expect_violation("sent_without_host", r_ok, "a reported result with sent_time 0");
    EXEC2("UPDATE result SET sent_time = ? WHERE id = ?", sent, r_ok);

    EXEC1("UPDATE result SET server_state = 2 WHERE id = ?", r_ip);
    expect_violation("unsent_with_host", r_ip, "a sent result made unsent again");
    EXEC1("UPDATE result SET server_state = 4 WHERE id = ?", r_ip);
    expect_clean("results repaired");
}

/* Two replicas of one plain workunit: to one host, to one user, and
 * names twice (the unique keys that forbid these are dropped first, and
 * put back). */
static void damage_replicas(void)
{
    int wu = (int)SCALAR2("SELECT IFNULL(MIN(a.workunitid), 0) FROM result a JOIN result b "
                          "ON b.workunitid = a.workunitid WHERE a.hostid = ? AND b.hostid = ?",
                          host_a1, host_b1);
    int ra, rb, other;
    char name[256], saved[256];

    if (!TAP_CHECK(wu > 0, "a workunit with replicas on hosts #%d and #%d (#%d)", host_a1,
                   host_b1, wu))
        return;
    ra = (int)SCALAR2("SELECT id FROM result WHERE workunitid = ? AND hostid = ?", wu, host_a1);
    rb = (int)SCALAR2("SELECT id FROM result WHERE workunitid = ? AND hostid = ?", wu, host_b1);

    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", host_a1, rb);
    expect_violation("two_results_one_host", wu, "a replica moved to the other's host");
    expect_violation("result_user_not_host_user", rb, "a replica on another user's host");
    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", host_b1, rb);

    EXEC0("ALTER TABLE result DROP INDEX uk_result_wu_user");
    EXEC3("UPDATE result SET hostid = ?, userid = ? WHERE id = ?", host_a2, user_a, rb);
    expect_violation("two_results_one_user", wu, "two replicas on two hosts of one user");
    EXEC3("UPDATE result SET hostid = ?, userid = ? WHERE id = ?", host_b1, user_b, rb);

    EXEC0("ALTER TABLE result DROP INDEX uk_result_name");
    other = (int)SCALAR("SELECT IFNULL(MAX(id), 0) FROM result WHERE id <> ?", ra);
    scalar_str("SELECT name FROM result WHERE id = ?", ra, name, sizeof name);
    scalar_str("SELECT name FROM result WHERE id = ?", other, saved, sizeof saved);
    exec_str("UPDATE result SET name = ? WHERE id = ?", name, other);
    expect_violation("duplicate_result_name", other > ra ? other : ra,
                     "two results with one name");
    exec_str("UPDATE result SET name = ? WHERE id = ?", saved, other);
    EXEC0("ALTER TABLE result ADD UNIQUE KEY uk_result_name (name), "
          "ADD UNIQUE KEY uk_result_wu_user (workunitid, userid)");
    expect_clean("replicas repaired, unique keys back");
}

/* Jobs: a workunit nothing moves, a job generated twice. */
static void damage_jobs(void)
{
    int wu = (int)SCALAR("SELECT IFNULL(MIN(workunitid), 0) FROM result WHERE server_state = 2 "
                         "AND cursor_id = ?", cursors[0]);
    int tt, src, copy;

    if (TAP_CHECK(wu > 0, "a generated workunit of cursor #%d waits to be sent (#%d)",
                  cursors[0], wu)) {
        tt = (int)SCALAR("SELECT transition_time FROM workunit WHERE id = ?", wu);
        EXEC2("UPDATE workunit SET transition_time = ? WHERE id = ?", NEVER, wu);
        EXEC1("UPDATE result SET server_state = 5, outcome = 5 WHERE workunitid = ? "
              "AND server_state = 2", wu);
        expect_violation("workunit_stuck", wu, "an unsent job cancelled, its workunit left open");
        EXEC1("UPDATE result SET server_state = 2, outcome = 0 WHERE workunitid = ? "
              "AND server_state = 5 AND outcome = 5", wu);
        EXEC2("UPDATE workunit SET transition_time = ? WHERE id = ?", tt, wu);
    }

    src = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM workunit WHERE cursor_id = ?", cursors[0]);
    EXEC1("INSERT INTO workunit (create_time, appid, name, batch, cursor_id, job_num, "
          "first_file_num, nfiles, command_line, rsc_fpops_est, rsc_fpops_bound, "
          "rsc_memory_bound, rsc_disk_bound, max_out_nbytes, delay_bound, transition_time) "
          "SELECT create_time, appid, CONCAT(name, '_again'), batch, cursor_id, job_num, "
          "first_file_num, nfiles, command_line, rsc_fpops_est, rsc_fpops_bound, "
          "rsc_memory_bound, rsc_disk_bound, max_out_nbytes, delay_bound, transition_time "
          "FROM workunit WHERE id = ?", src);
    copy = (int)SCALAR("SELECT IFNULL(MAX(id), 0) FROM workunit WHERE cursor_id = ?", cursors[0]);
    expect_violation("job_generated_twice", copy, "a job generated a second time");
    EXEC1("DELETE FROM workunit WHERE id = ?", copy);
    expect_clean("jobs repaired");
}

/* Backups and hosts presumed gone: two backups of a job at once, a backup
 * unsent, a job over max_total_results, a gone host's result left
 * unflagged, and a flagged result never replaced. */
static void damage_tails(void)
{
    int r_ip = (int)SCALAR("SELECT IFNULL(MIN(r.id), 0) FROM result r JOIN workunit w "
                           "ON w.id = r.workunitid WHERE r.server_state = ? AND r.hostid <> 0 "
                           "AND w.canonical_resultid = 0 AND w.error_mask = 0 AND NOT EXISTS "
                           "(SELECT 1 FROM result o WHERE o.workunitid = w.id AND o.id <> r.id "
                           "AND o.server_state IN (2, 4))", 4);
    int r_un = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM result WHERE server_state = ?", 2);
    int wu2 = (int)SCALAR("SELECT IFNULL(MIN(workunitid), 0) FROM result WHERE id > ? "
                          "GROUP BY workunitid HAVING COUNT(*) >= 2 ORDER BY 1 LIMIT 1", 0);
    int wu, r1, r2, s1, s2, host, tt, maxt;

    if (!TAP_CHECK(r_ip > 0 && r_un > 0 && wu2 > 0, "a result in progress, the only live one "
                   "of its job (#%d), one unsent (#%d), a job with two results (#%d)", r_ip,
                   r_un, wu2))
        return;
    r1 = (int)SCALAR("SELECT MIN(id) FROM result WHERE workunitid = ?", wu2);
    r2 = (int)SCALAR2("SELECT MIN(id) FROM result WHERE workunitid = ? AND id > ?", wu2, r1);
    s1 = (int)SCALAR("SELECT server_state FROM result WHERE id = ?", r1);
    s2 = (int)SCALAR("SELECT server_state FROM result WHERE id = ?", r2);
    EXEC2("UPDATE result SET replica_flags = 1, server_state = 4 WHERE id IN (?, ?)", r1, r2);
    expect_violation("two_backups_in_progress", wu2, "two backups of one job in progress");
    EXEC2("UPDATE result SET replica_flags = 0, server_state = ? WHERE id = ?", s1, r1);
    EXEC2("UPDATE result SET replica_flags = 0, server_state = ? WHERE id = ?", s2, r2);

    maxt = (int)SCALAR("SELECT max_total_results FROM workunit WHERE id = ?", wu2);
    EXEC1("UPDATE workunit SET max_total_results = 1 WHERE id = ?", wu2);
    expect_violation("too_many_results", wu2, "a job with more results than its limit");
    EXEC2("UPDATE workunit SET max_total_results = ? WHERE id = ?", maxt, wu2);

    EXEC1("UPDATE result SET replica_flags = 1 WHERE id = ?", r_un);
    expect_violation("backup_not_sent", r_un, "a backup left unsent");
    EXEC1("UPDATE result SET replica_flags = 0 WHERE id = ?", r_un);

    wu = (int)SCALAR("SELECT workunitid FROM result WHERE id = ?", r_ip);
    host = (int)SCALAR("SELECT hostid FROM result WHERE id = ?", r_ip);
    tt = (int)SCALAR("SELECT transition_time FROM workunit WHERE id = ?", wu);

    EXEC2("UPDATE host SET lost_time = (SELECT MIN(sent_time) FROM result WHERE id = ?) "
          "WHERE id = ?", r_ip, host);
    expect_violation("lost_host_result_unflagged", r_ip,
                     "a result of a host presumed gone, not flagged");
    EXEC1("UPDATE result SET replica_flags = 2 WHERE id = ?", r_ip);
    EXEC2("UPDATE workunit SET transition_time = ? WHERE id = ?", NEVER, wu);
    expect_violation("lost_result_unreplaced", wu, "a flagged result with no replacement");
    EXEC1("UPDATE result SET replica_flags = 0 WHERE id = ?", r_ip);
    EXEC1("UPDATE host SET lost_time = 0 WHERE id = ?", host);
    EXEC2("UPDATE workunit SET transition_time = ? WHERE id = ?", tt, wu);
    expect_clean("backups and lost hosts repaired");
}

/* Validation states: credit only to VALID results, VALID and INVALID only
 * on reported results, a canonical result that is a VALID success of its
 * own workunit; a workunit waiting for the validator is not stuck. */
static void damage_validation(void)
{
    int wu = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM workunit WHERE canonical_resultid <> ?",
                         0);
    int canon, other, r_ip, tt;

    if (!TAP_CHECK(wu > 0, "a workunit with a canonical result (#%d)", wu))
        return;
    canon = (int)SCALAR("SELECT canonical_resultid FROM workunit WHERE id = ?", wu);
    TAP_CHECK(SCALAR("SELECT granted_credit > 0 AND validate_state = 1 FROM result WHERE id = ?",
                     canon) == 1, "its canonical result #%d is VALID, with credit", canon);

    EXEC1("UPDATE result SET validate_state = 2 WHERE id = ?", canon);
    expect_violation("credit_not_valid", canon, "a result with credit made INVALID");
    expect_violation("canonical_not_valid", wu, "the canonical result made INVALID");
    EXEC1("UPDATE result SET validate_state = 1 WHERE id = ?", canon);

    EXEC1("UPDATE result SET outcome = 3 WHERE id = ?", canon);
    expect_violation("validate_state_not_success", canon, "a VALID result made a client error");
    expect_violation("canonical_not_valid", wu, "the canonical result made a client error");
    EXEC1("UPDATE result SET outcome = 1 WHERE id = ?", canon);

    EXEC1("UPDATE result SET validate_state = 2, server_state = 4 WHERE id = ?", canon);
    expect_violation("validate_state_not_success", canon, "an INVALID result back in progress");
    EXEC1("UPDATE result SET validate_state = 1, server_state = 5 WHERE id = ?", canon);

    other = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM result WHERE workunitid <> ?", wu);
    EXEC2("UPDATE workunit SET canonical_resultid = ? WHERE id = ?", other, wu);
    expect_violation("canonical_not_valid", wu, "the canonical result of another workunit");
    EXEC2("UPDATE workunit SET canonical_resultid = ? WHERE id = ?", canon, wu);
    expect_clean("validation states repaired");

    /* an open job whose only replica is reported, waiting for the
     * validator: not stuck; without need_validate it is */
    r_ip = (int)SCALAR("SELECT IFNULL(MIN(r.id), 0) FROM result r JOIN workunit w "
                       "ON w.id = r.workunitid JOIN batch b ON b.id = w.batch WHERE b.state = 1 "
                       "AND w.canonical_resultid = 0 AND r.server_state = ?", 4);
    if (!TAP_CHECK(r_ip > 0, "a result in progress of an open job (#%d)", r_ip))
        return;
    wu = (int)SCALAR("SELECT workunitid FROM result WHERE id = ?", r_ip);
    tt = (int)SCALAR("SELECT transition_time FROM workunit WHERE id = ?", wu);
    EXEC1("UPDATE result SET server_state = 5, outcome = 1 WHERE id = ?", r_ip);
    EXEC2("UPDATE workunit SET transition_time = ?, need_validate = 1 WHERE id = ?", NEVER, wu);
    if (SCALAR("SELECT COUNT(*) FROM result WHERE workunitid = ? AND server_state IN (2, 4)",
               wu) == 0) {
        expect_clean("a job waiting for the validator");
        EXEC1("UPDATE workunit SET need_validate = 0 WHERE id = ?", wu);
        expect_violation("workunit_stuck", wu, "a job waiting for nothing");
    }
    EXEC1("UPDATE result SET server_state = 4, outcome = 0 WHERE id = ?", r_ip);
    EXEC2("UPDATE workunit SET transition_time = ?, need_validate = 0 WHERE id = ?", tt, wu);
    expect_clean("validation repaired");
}

struct cursor_state {
    int first, last, fu, fg, nhosts;
    double remaining, expavg, max_host;
};

static void read_cursor(int id, struct cursor_state *c)
{
    static const char sql[] =
        "SELECT first_job_num, last_job_num, first_unfinished_job_num, "
        "first_ungenerated_job_num, nhosts, remaining_credit, expavg_credit, max_host_credit "
        "FROM locality_cursor WHERE id = ?";
    struct db_val p[] = { DBV_INT(id) };
    struct db_val col[] = { DBV_INT(c->first), DBV_INT(c->last), DBV_INT(c->fu),
                            DBV_INT(c->fg), DBV_INT(c->nhosts), DBV_DBL(c->remaining),
                            DBV_DBL(c->expavg), DBV_DBL(c->max_host) };
    memset(c, 0, sizeof *c);
    if (db_query(ctx.db, slot_for(sql), sql, p, 1, col, 8, NULL, NULL, NULL, "read cursor") !=
        DB_OK)
        bail("read cursor", db_error(ctx.db));
    db_commit(ctx.db);
}

/* Cursor counters and teams. */
static void damage_cursors(void)
{
    static const char set_fg[] =
        "UPDATE locality_cursor SET first_ungenerated_job_num = ? WHERE id = ?";
    static const char set_fu[] =
        "UPDATE locality_cursor SET first_unfinished_job_num = ? WHERE id = ?";
    int c = cursors[0], member;
    struct cursor_state s;

    read_cursor(c, &s);
    printf("# cursor #%d: jobs %d..%d, first unfinished %d, first ungenerated %d, %d hosts, "
           "remaining %.6g, rate %.6g, max %.6g\n", c, s.first, s.last, s.fu, s.fg, s.nhosts,
           s.remaining, s.expavg, s.max_host);
    if (!TAP_CHECK(s.first < s.fu && s.fu < s.fg && s.fg <= s.last,
                   "cursor #%d has finished, generated and ungenerated jobs", c))
        return;

    EXEC2(set_fg, s.fg + 1, c);
    expect_violation("cursor_job_not_generated", c, "the generation point moved past a job");
    EXEC2(set_fg, s.fg - 1, c);
    expect_violation("cursor_jobs_not_ahead", c, "the generation point moved back");
    EXEC2(set_fg, s.fg, c);

    {
        int b = loc_batch, job = s.last;
        int ff = (int)SCALAR2("SELECT first_file_num FROM batch_job WHERE batch_id = ? "
                              "AND job_num = ?", b, job);
        int nf = (int)SCALAR2("SELECT nfiles FROM batch_job WHERE batch_id = ? AND job_num = ?",
                              b, job);
        double fpops;
        {
            double v = 0;
            struct db_val p[] = { DBV_INT(b), DBV_INT(job) };
            struct db_val col[] = { DBV_DBL(v) };
            static const char q[] =
                "SELECT rsc_fpops_est FROM batch_job WHERE batch_id = ? AND job_num = ?";
            if (db_query(ctx.db, slot_for(q), q, p, 2, col, 1, NULL, NULL, NULL, "job") != DB_OK)
                bail("job", db_error(ctx.db));
            db_commit(ctx.db);
            fpops = v;
        }
        EXEC2("DELETE FROM batch_job WHERE batch_id = ? AND job_num = ?", b, job);
        expect_violation("cursor_jobs_not_ahead", c, "the description of a job to come lost");
        if (db_batch_job_add(ctx.db, b, job, ff, nf, fpops, "") != DB_OK ||
            db_commit(ctx.db) != DB_OK)
            bail("restore job", db_error(ctx.db));
    }

    EXEC2(set_fu, s.fg + 1, c);
    expect_violation("cursor_order", c, "first unfinished past first ungenerated");
    EXEC2(set_fu, s.fu + 1, c);
    expect_violation("cursor_unfinished_behind", c, "first unfinished past an unfinished job");
    EXEC2(set_fu, s.fu, c);

    exec_dbl("UPDATE locality_cursor SET remaining_credit = ? WHERE id = ?", s.remaining + 5, c);
    expect_violation("cursor_remaining_credit", c, "remaining credit off by 5");
    exec_dbl("UPDATE locality_cursor SET remaining_credit = ? WHERE id = ?", s.remaining, c);

    EXEC2("UPDATE locality_cursor SET nhosts = ? WHERE id = ?", s.nhosts + 1, c);
    expect_violation("cursor_team", c, "one host more counted than the team has");
    EXEC2("UPDATE locality_cursor SET nhosts = ? WHERE id = ?", s.nhosts, c);
    exec_dbl("UPDATE locality_cursor SET expavg_credit = ? WHERE id = ?", s.expavg * 2 + 1, c);
    expect_violation("cursor_team", c, "team rate not the members' sum");
    exec_dbl("UPDATE locality_cursor SET expavg_credit = ? WHERE id = ?", s.expavg, c);
    if (TAP_CHECK(s.max_host > 0, "cursor #%d has a fastest member", c)) {
        exec_dbl("UPDATE locality_cursor SET max_host_credit = ? WHERE id = ?", 0, c);
        expect_violation("cursor_team", c, "fastest member faster than max_host_credit");
        exec_dbl("UPDATE locality_cursor SET max_host_credit = ? WHERE id = ?", s.max_host, c);
    }

    member = (int)SCALAR("SELECT IFNULL(MIN(host_id), 0) FROM batch_host WHERE cursor_id = ?", c);
    if (TAP_CHECK(member > 0, "cursor #%d has a member (#%d)", c, member)) {
        EXEC2("UPDATE batch_host SET cursor_id = 999999 WHERE host_id = ? AND cursor_id = ?",
              member, c);
        expect_violation("team_member_orphan", member, "a member of a cursor that is gone");
        EXEC2("UPDATE batch_host SET cursor_id = ? WHERE host_id = ? AND cursor_id = 999999", c,
              member);
    }
    expect_clean("cursors repaired");
}

/* ---------------------------------------------------------------- the tool */

static const char *const check_names[] = {
    "sent_without_host", "sent_to_missing_host", "unsent_with_host", "two_results_one_host",
    "duplicate_result_name", "two_results_one_user", "result_user_not_host_user", "workunit_stuck",
    "job_generated_twice", "cursor_job_not_generated", "cursor_jobs_not_ahead", "cursor_order",
    "cursor_unfinished_behind", "cursor_remaining_credit", "cursor_team", "team_member_orphan",
    "two_backups_in_progress", "backup_not_sent", "too_many_results",
    "lost_host_result_unflagged", "lost_result_unreplaced",
};
#define NCHECK_NAMES ((int)(sizeof check_names / sizeof check_names[0]))

struct sum_ctx {
    char table[128];
    long long cks, sum;
};

static int sum_row(void *arg)
{
    struct sum_ctx *s = arg;
    s->sum += s->cks;
    return 0;
}

/* CHECKSUM TABLE of what the checker reads, summed. */
static long long checksum(void)
{
    static const char sql[] = "CHECKSUM TABLE result, workunit, locality_cursor, batch_host, "
                              "batch, batch_job, host, user";
    struct sum_ctx s;
    struct db_val col[] = { DBV_BUF(s.table), DBV_LL(s.cks) };
    memset(&s, 0, sizeof s);
    if (db_query(ctx.db, slot_for(sql), sql, NULL, 0, col, 2, sum_row, &s, NULL, "checksum") !=
        DB_OK)
        bail("checksum", db_error(ctx.db));
    db_commit(ctx.db);
    return s.sum;
}

/* Options, text output, exit statuses, errors, read-only. */
static void tool_interface(void)
{
    struct buf out;
    char path[4200], bad_conf[4200];
    int i, rc, r1, r2, h1, h2;
    long long before;
    FILE *f;

    buf_init(&out);
    snprintf(path, sizeof path, "%s/tools/check_invariants", top_build);
    {
        const char *argv[] = { path, "--help", NULL };
        rc = run_prog(argv, &out);
        TAP_EQ_INT(rc, 0, "--help exits 0");
        for (i = 0; i < NCHECK_NAMES; i++)
            TAP_CHECK(out.p && strstr(out.p, check_names[i]), "--help describes %s",
                      check_names[i]);
    }
    {
        const char *argv[] = { path, "--bogus", NULL };
        TAP_EQ_INT(run_prog(argv, &out), 2, "an unknown option exits 2");
        TAP_CHECK(out.p && strstr(out.p, "--bogus"), "and names it");
    }
    {
        const char *argv[] = { path, "--config", conf_path, "--max-ids", "1001", NULL };
        TAP_EQ_INT(run_prog(argv, &out), 2, "--max-ids over 1000 exits 2");
    }

    /* the database is not there */
    snprintf(bad_conf, sizeof bad_conf, "%s/invcheck-nodb.conf", work_dir);
    {
        char *text = tu_read_file(conf_path, NULL);
        char *p = strstr(text, "db_name = " SCRATCH_DB);
        f = fopen(bad_conf, "w");
        if (!f || !p)
            bail("bad config", "cannot write");
        fwrite(text, 1, (size_t)(p - text), f);
        fputs("db_name = locsched_invcheck_missing", f);
        fputs(p + strlen("db_name = " SCRATCH_DB), f);
        fclose(f);
        free(text);
    }
    {
        const char *argv[] = { path, "--config", bad_conf, NULL };
        rc = run_prog(argv, &out);
        TAP_EQ_INT(rc, 2, "a database that does not exist: exit 2");
        TAP_CHECK(out.p && strstr(out.p, "locsched_invcheck_missing"),
                  "the message names the database");
    }
    unlink(bad_conf);

    /* two violations, text output, --max-ids 1, read-only */
    r1 = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM result WHERE server_state = ?", 4);
    r2 = (int)SCALAR("SELECT IFNULL(MIN(id), 0) FROM result WHERE server_state = 5 "
                     "AND outcome = ?", 1);
    if (!TAP_CHECK(r1 > 0 && r2 > 0, "a result in progress (#%d), one reported (#%d)", r1, r2))
        return;
    h1 = (int)SCALAR("SELECT hostid FROM result WHERE id = ?", r1);
    h2 = (int)SCALAR("SELECT hostid FROM result WHERE id = ?", r2);
    EXEC2("UPDATE result SET hostid = 0 WHERE id IN (?, ?)", r1, r2);
    before = checksum();
    rc = checker(&out, NULL, NULL);
    TAP_EQ_INT(rc, 1, "text report: exit 1");
    {
        char want[128];
        snprintf(want, sizeof want, "FAIL  sent_without_host: 2 results (result#%d, result#%d)",
                 r1 < r2 ? r1 : r2, r1 < r2 ? r2 : r1);
        if (!TAP_CHECK(out.p && strstr(out.p, want), "text report names both: %s", want))
            printf("# output:\n%s\n", out.p ? out.p : "");
        TAP_CHECK(out.p && strstr(out.p, "ok    cursor_team") && strstr(out.p, "2 violations"),
                  "text report lists the checks that pass and the total");
    }
    rc = checker(&out, "--json", "--max-ids");
    TAP_EQ_INT(rc, 2, "--max-ids without a value: exit 2");
    {
        const char *argv[] = { path, "--config", conf_path, "--json", "--max-ids", "1", NULL };
        rc = run_prog(argv, &out);
        TAP_EQ_INT(rc, 1, "--max-ids 1: exit 1");
        TAP_EQ_INT(json_count(out.p, "sent_without_host"), 2, "--max-ids 1: the count stays 2");
        TAP_CHECK(json_has_id(out.p, "sent_without_host", r1 < r2 ? r1 : r2) &&
                      !json_has_id(out.p, "sent_without_host", r1 < r2 ? r2 : r1),
                  "--max-ids 1: only the lowest id");
    }
    TAP_EQ_INT(checksum(), before, "the checker changed nothing (table checksums)");
    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", h2, r2);
    EXEC2("UPDATE result SET hostid = ? WHERE id = ?", h1, r1);
    buf_free(&out);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    const char *src = getenv("LOCSCHED_CONFIG"), *tb = getenv("top_builddir"),
               *ts = getenv("top_srcdir");
    char auth_a[65], auth_b[65], up_path[4200];
    struct sched_stats st;
    int n, rc, jobs;

    if (!src || !src[0])
        bail("LOCSCHED_CONFIG", "not set: run through test/run_suite");
    if (!getcwd(work_dir, sizeof work_dir - 64))
        bail("getcwd", strerror(errno));
    snprintf(top_build, sizeof top_build, "%s", tb && tb[0] ? tb : "..");
    snprintf(top_src, sizeof top_src, "%s", ts && ts[0] ? ts : "..");
    buf_init(&reply);

    /* the scratch database and its schema */
    scratch_database(src, 1);
    write_config(src);
    snprintf(up_path, sizeof up_path, "%s/tools/db_upgrade", top_src);
    {
        struct buf out;
        const char *argv[] = { up_path, "--config", conf_path, NULL };
        buf_init(&out);
        rc = run_prog(argv, &out);
        if (rc != 0) {
            printf("# db_upgrade:\n%s\n", out.p ? out.p : "");
            bail("db_upgrade", "failed");
        }
        buf_free(&out);
    }
    setenv("LOCSCHED_CONFIG", conf_path, 1);
    tu_ctx_open(&ctx);
    slot_count = 0;

    /* a clean state, made by the real code */
    tu_app(&ctx, NULL);
    user_a = tu_user(&ctx, "inv_a", auth_a);
    user_b = tu_user(&ctx, "inv_b", auth_b);
    plain_batch = tu_batch(&ctx, "invp", 6, 2, 3.6e12, 2, 7 * 86400);
    loc_batch = tu_locality_batch(&ctx, "invl", 16, 2, 1, 3.6e12, 3, cursors);
    TAP_EQ_INT(daemon_pass("work_generator"), 0, "work generator pass");
    host_a1 = new_host(auth_a, &jobs);
    TAP_CHECK(host_a1 > 0 && jobs > 0, "host A1 (#%d) got %d jobs", host_a1, jobs);
    host_b1 = new_host(auth_b, &jobs);
    TAP_CHECK(host_b1 > 0 && jobs > 0, "host B1 (#%d) got %d jobs", host_b1, jobs);
    host_a2 = new_host(auth_a, &jobs);
    TAP_CHECK(host_a2 > 0 && jobs > 0, "host A2 (#%d) of the same user got %d jobs", host_a2,
              jobs);
    n = report_all(auth_a, host_a1, 1, 0);
    TAP_CHECK(n > 0, "host A1 reported %d successes", n);
    n = report_all(auth_b, host_b1, 1, 3);
    TAP_CHECK(n > 0, "host B1 reported %d results, every third an error", n);
    TAP_EQ_INT(daemon_pass("transitioner"), 0, "transitioner pass");
    TAP_EQ_INT(daemon_pass("locality_daemon"), 0, "locality daemon pass");
    TAP_EQ_INT(daemon_pass("work_generator"), 0, "work generator pass after the progress");
    request(auth_a, host_a2, 1, NULL, &st);
    TAP_EQ_STR(st.outcome, "ok", "host A2 asks again");
    printf("# state: %lld results in progress, %lld reported, %lld unsent; "
           "%lld workunits finished of %lld\n",
           SCALAR("SELECT COUNT(*) FROM result WHERE server_state = ?", 4),
           SCALAR("SELECT COUNT(*) FROM result WHERE server_state = ?", 5),
           SCALAR("SELECT COUNT(*) FROM result WHERE server_state = ?", 2),
           SCALAR("SELECT COUNT(*) FROM workunit WHERE canonical_resultid <> 0 OR error_mask <> ?",
                  0),
           SCALAR("SELECT COUNT(*) FROM workunit WHERE id > ?", 0));
    expect_clean("after requests, reports and a pass of each daemon");

    fresh_connection();
    damage_results();
    fresh_connection();
    damage_replicas();
    fresh_connection();
    damage_jobs();
    fresh_connection();
    damage_cursors();
    fresh_connection();
    damage_tails();
    fresh_connection();
    damage_validation();
    fresh_connection();
    tool_interface();
    expect_clean("at the end, every damage undone");

    sched_ctx_free(&ctx);
    buf_free(&reply);
    scratch_database(src, 0);
    unlink(conf_path);
    {
        char path[4200];
        snprintf(path, sizeof path, "%s/invcheck-run.out", work_dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/invcheck-log", work_dir);
        rmdir(path);   /* if empty */
    }
    return tap_done();
}
