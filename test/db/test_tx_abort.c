/*
 * test_tx_abort.c - a request's transaction that the server ends under it
 * (a Galera brute-force abort or certification conflict, an InnoDB
 * deadlock: the server rolls the whole transaction back and fails the
 * statement with error 1213) must be run again from scratch, never half
 * committed.  The scheduler's one statement whose error was not passed on
 * is the load of a batch's file list (app_cache_batch), so this test makes
 * that load fail as such an abort does (the test is linked with
 * --wrap=db_load_batch_files): the transaction is rolled back on the server
 * and the statement fails with 1213.  Then every job of the reply must be
 * claimed in the database by the reply's host, and that host must exist,
 * whether the load came before the claim (a new host: its row and its
 * team, written earlier, were rolled back) or after it (the claims were).
 * On a Galera cluster this made the replays' jobs go missing from the
 * database (test/sh/galera.sh, "every job received is claimed").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_test_util.h"
#include "tap.h"

/* db_internal.h's, for an injected server error */
int db_fail(struct db_conn *c, const char *what, unsigned errnum, const char *msg);

int __real_db_load_batch_files(struct db_conn *c, int batch_id,
                               int (*row)(void *ctx, const struct db_file_row *r), void *ctx);
int __wrap_db_load_batch_files(struct db_conn *c, int batch_id,
                               int (*row)(void *ctx, const struct db_file_row *r), void *ctx);

static int fail_next_load;   /* armed: the next load of a batch's files fails */
static int loads_failed;

int __wrap_db_load_batch_files(struct db_conn *c, int batch_id,
                               int (*row)(void *ctx, const struct db_file_row *r), void *ctx)
{
    if (fail_next_load) {
        fail_next_load = 0;
        loads_failed++;
        /* what the server does to a brute-force aborted transaction */
        db_rollback(c);
        return db_fail(c, "load files (injected)", 1213,
                       "Deadlock found when trying to get lock; try restarting transaction");
    }
    return __real_db_load_batch_files(c, batch_id, row, ctx);
}

static struct sched_ctx ctx;
static struct buf reply;

static long long scalar(int slot, const char *sql, int param)
{
    return tu_scalar(&ctx, slot, sql, param);
}

/* A new host of a new user asks for work, with the first load of the
 * batch's files failing as an aborted transaction's statement does. */
static void aborted_request(const char *tag, int batch)
{
    struct sched_stats st;
    struct buf b;
    char auth[65];
    int user, host, njobs;

    user = tu_user(&ctx, tag, auth);
    /* the files are not in this process's cache: the request loads them */
    app_cache_free(&ctx.apps);
    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, 0, 0);
    fail_next_load = 1;
    loads_failed = 0;
    sched_handle(&ctx, b.p, b.len, &reply, &st);
    buf_free(&b);
    fail_next_load = 0;

    host = (int)tu_elem_ll(reply.p, "hostid");
    njobs = tu_count(reply.p, "<result>");
    TAP_EQ_INT(loads_failed, 1, "%s: the load of the batch's files failed once", tag);
    TAP_CHECK(st.retries >= 1, "%s: the request's transaction was run again", tag);
    TAP_CHECK(host > 0 && njobs > 0, "%s: the reply gives the new host its id and jobs", tag);
    TAP_EQ_INT(scalar(165, "SELECT COALESCE(MAX(userid), 0) FROM host WHERE id = ?", host), user,
               "%s: the host of the reply exists, the user's", tag);
    TAP_EQ_INT(tu_scalar2(&ctx, 166,
                          "SELECT COUNT(*) FROM result WHERE hostid = ? AND batch = ? "
                          "AND server_state = 4",
                          host, batch),
               njobs, "%s: every job of the reply is claimed by that host", tag);
    TAP_EQ_INT(scalar(167, "SELECT COUNT(*) FROM batch_host WHERE host_id = ?", host), 1,
               "%s: the host is in a team of the batch", tag);
    TAP_EQ_INT(scalar(168, "SELECT COUNT(*) FROM result r LEFT JOIN host h ON h.id = r.hostid "
                           "WHERE r.batch = ? AND r.server_state = 4 AND h.id IS NULL", batch),
               0, "%s: no job of the batch is claimed by a host that does not exist", tag);
}

/* The data layer's own guard: a statement whose failure the caller did
 * not pass on, then more statements, then COMMIT: nothing is committed. */
static void swallowed_error(int batch, int host1, int host2)
{
    struct db_val a[] = { DBV_INT(host1) }, b[] = { DBV_INT(host2) };
    const struct batch_files *bf;
    int r;

    r = db_exec(ctx.db, 175, "UPDATE host SET p_ncpus = p_ncpus + 100 WHERE id = ?", a, 1, NULL,
                "before");
    TAP_EQ_INT(r, DB_OK, "guard: a write");
    fail_next_load = 1;
    loads_failed = 0;
    app_cache_free(&ctx.apps);
    (void)app_cache_batch(&ctx.apps, ctx.db, batch, time(NULL));   /* the status is dropped */
    TAP_EQ_INT(loads_failed, 1, "guard: then a statement fails as an aborted one does");
    r = db_exec(ctx.db, 175, "UPDATE host SET p_ncpus = p_ncpus + 100 WHERE id = ?", b, 1, NULL,
                "after");
    TAP_EQ_INT(r, DB_OK, "guard: then another write (in a new transaction on the server)");
    TAP_EQ_INT(db_commit(ctx.db), DB_RETRY, "guard: COMMIT is refused, to be retried");
    TAP_CHECK(strstr(db_error(ctx.db), "MariaDB error 1213") != NULL,
              "guard: the error names the first failure: %s", db_error(ctx.db));
    TAP_EQ_INT(scalar(170, "SELECT COUNT(*) FROM host WHERE id = ? AND p_ncpus >= 100",
                      host1), 0, "guard: the write before the failure is not committed");
    TAP_EQ_INT(scalar(170, "SELECT COUNT(*) FROM host WHERE id = ? AND p_ncpus >= 100",
                      host2), 0, "guard: nor the write after it");
    r = app_cache_batch_get(&ctx.apps, ctx.db, batch, time(NULL), &bf);
    TAP_CHECK(r == DB_OK && db_commit(ctx.db) == DB_OK,
              "guard: the next transaction commits as usual");
}

/* A reader that keeps the first row only; the server's error comes with
 * a later row (as a deadlock or an abort does in a locking read that locks
 * rows as it sends them).  The error must reach the caller: when it was
 * left in the unread rows, the claim's locking read "succeeded" after the
 * server had rolled the transaction back, and the rest of the request was
 * committed without the new host's row (galera.sh, "every job received is
 * claimed"). */
static int first_row_only(void *vctx)
{
    (*(int *)vctx)++;
    return 1;
}

static void error_after_kept_rows(void)
{
    static const char sql[] =
        "SELECT IF(seq < 3, seq, (SELECT 1 UNION ALL SELECT 2)) FROM seq_1_to_5000";
    long long v = 0;
    int nrows = 0, r;
    struct db_val col[] = { DBV_INT(v) };

    r = db_query(ctx.db, 174, sql, NULL, 0, col, 1, first_row_only, &nrows, NULL,
                 "first of the rows");
    TAP_EQ_INT(nrows, 1, "rows then an error: the reader kept its one row");
    TAP_CHECK(r != DB_OK && strstr(db_error(ctx.db), "MariaDB error 1242") != NULL,
              "rows then an error: the error is passed on (%d: %s)", r, db_error(ctx.db));
    db_rollback(ctx.db);
    nrows = 0;
    r = db_query(ctx.db, 173, "SELECT seq FROM seq_1_to_5000", NULL, 0, col, 1, first_row_only,
                 &nrows, NULL, "first of the rows");
    TAP_CHECK(r == DB_OK && nrows == 1 && db_commit(ctx.db) == DB_OK,
              "rows without an error: the reader stops after one, and the session goes on");
}

/* The last guard: a transaction that the server ended without the error
 * reaching the request (the statements since then run in a new one) ends
 * with the host update, which finds no row for a host created before the
 * end: the update is refused as a conflict, and so is the COMMIT. */
static void host_row_gone(void)
{
    struct db_host_update hu;
    int r;

    memset(&hu, 0, sizeof hu);
    hu.id = (int)scalar(158, "SELECT COALESCE(MAX(id), 0) + 1000 FROM host WHERE id > ?", 0);
    r = db_host_update(ctx.db, &hu);
    TAP_EQ_INT(r, DB_RETRY, "a host update that finds no host row is a conflict, retried");
    TAP_CHECK(strstr(db_error(ctx.db), "is not there") != NULL, "its error says why: %s",
              db_error(ctx.db));
    TAP_EQ_INT(db_commit(ctx.db), DB_RETRY, "and the transaction is not committed");
    db_rollback(ctx.db);
}

/* A statement that overruns the read timeout (db_timeout) is given up by
 * the server too (max_statement_time), not run on beside the statements
 * that the reconnected client sends next: such leftovers piled up until
 * MariaDB refused connections, at the end of a large batch. */
static void server_gives_up_with_client(void)
{
    struct db_params p = ctx.dbp;
    struct db_conn *c;
    char err[256];
    double t0, spent;
    long long left;
    int r, v = 0;
    struct db_val col[] = { DBV_INT(v) };
    struct timespec ts, pause = { 0, 500 * 1000 * 1000 };

    p.timeout = 1;
    c = db_open(&p, err, sizeof err);
    if (!c)
        tu_bail("open a connection with a 1 s timeout", err);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = ts.tv_sec + ts.tv_nsec / 1e9;
    /* 10^10 rows: hours of the server's CPU if nothing stops it (and an
     * error when something does, unlike BENCHMARK()) */
    r = db_query(c, 173, "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b "
                 "WHERE a.seq + b.seq = 7", NULL, 0, col, 1, NULL, NULL, NULL,
                 "overrunning statement");
    clock_gettime(CLOCK_MONOTONIC, &ts);
    spent = ts.tv_sec + ts.tv_nsec / 1e9 - t0;
    TAP_CHECK(r != DB_OK, "a statement longer than the 1 s timeout fails (after %.1f s)", spent);
    TAP_CHECK(spent < 3.0, "... within the timeout, not at the statement's end (%.1f s)", spent);
    nanosleep(&pause, NULL);
    left = scalar(157, "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                       "WHERE INFO LIKE 'SELECT COUNT(*) FROM seq_1_to_100000 a%' AND ID > ?", 0);
    TAP_EQ_INT(left, 0, "the server no longer runs it half a second later");
    db_close(c);
}

int main(void)
{
    char name[64];
    int cursor, batch;

    tu_ctx_open(&ctx);
    buf_init(&reply);
    tu_app(&ctx, NULL);
    batch = tu_generated_locality_batch(&ctx, "txa", 40, 2, name, sizeof name, &cursor);
    TAP_EQ_INT(scalar(169, "SELECT COUNT(*) FROM result WHERE batch = ? AND server_state = 2",
                      batch), 80, "the work generator made the batch's 80 results");

    /* with the sticky-file preference, the files are loaded to order the
     * candidates: before the claim, after the new host's row was written */
    ctx.cfg.locality_file_preference = 1;
    aborted_request("txa-before", batch);
    /* without it, the first load is the one that records the files sent:
     * after the claim */
    ctx.cfg.locality_file_preference = 0;
    aborted_request("txa-after", batch);
    swallowed_error(batch, (int)scalar(171, "SELECT MIN(id) FROM host WHERE id > ?", 0),
                    (int)scalar(172, "SELECT MAX(id) FROM host WHERE id > ?", 0));
    error_after_kept_rows();
    host_row_gone();
    server_gives_up_with_client();

    buf_free(&reply);
    sched_ctx_free(&ctx);
    return tap_done();
}
