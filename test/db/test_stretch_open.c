/*
 * test_stretch_open.c - which jobs a stretch decision calls "open work"
 * (db_stretch_read, doc/locality.md "Positions in the cursor"), on the
 * real database: a job is open when it has more unsent results than the
 * other members who cover it and have no result of it yet.  So the jobs
 * a member moved past, while another member still covers their other
 * replica, are not open (they used to be, and a third host then took
 * them from under the member that works them); an unstaffed lane and the
 * jobs of a member that left are.  And a stretch decision written by the
 * host update (db_host_update with a db_stretch_write), in one statement.
 * And two members deciding at once take turns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_locality.h"
#include "db_test_util.h"
#include "tap.h"

#define NJOBS 10

static struct sched_ctx ctx;

/* A host row for hostid: every host id the test gives results to has one,
 * so that the ids of hosts made later (by the suites run after this one)
 * start past them instead of inheriting the results. */
static void host_row(int hostid, int userid)
{
    struct db_val h[] = { DBV_INT(hostid), DBV_INT(userid) };
    tu_exec(&ctx, 140, "INSERT IGNORE INTO host (id, userid) VALUES (?, ?)", h, 2, "make a host");
}

/* A host of userid with a batch_host row in the cursor, stretch [first, last]. */
static void member(int hostid, int userid, int batch, int cursor, int first, int last)
{
    struct db_val m[] = { DBV_INT(hostid), DBV_INT(batch), DBV_INT(cursor), DBV_INT(userid),
                          DBV_INT(first), DBV_INT(last), DBV_INT(first), DBV_INT(last) };
    host_row(hostid, userid);
    tu_exec(&ctx, 141,
            "INSERT INTO batch_host (host_id, batch_id, cursor_id, userid, stretch_first, "
            "stretch_last) VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE "
            "stretch_first = ?, stretch_last = ?",
            m, 8, "make a member");
}

static void leave(int hostid, int batch)
{
    struct db_val p[] = { DBV_INT(hostid), DBV_INT(batch) };
    tu_exec(&ctx, 142, "DELETE FROM batch_host WHERE host_id = ? AND batch_id = ?", p, 2,
            "remove a member");
}

/* hostid (of userid) was sent one replica of each job in [first, last]. */
static void sent(int hostid, int userid, int cursor, int first, int last)
{
    int j;
    for (j = first; j <= last; j++) {
        struct db_val p[] = { DBV_INT(hostid), DBV_INT(userid), DBV_INT(cursor), DBV_INT(j) };
        tu_exec(&ctx, 143,
                "UPDATE result SET server_state = 4, hostid = ?, userid = ? "
                "WHERE cursor_id = ? AND job_num = ? AND server_state = 2 "
                "ORDER BY id LIMIT 1",
                p, 4, "send a result");
    }
}

static int count_member(void *ctx_, const struct db_stretch_row *r)
{
    (void)r;
    ++*(int *)ctx_;
    return 0;
}

/* The first open job for hostid of userid, near job 0. */
static int first_open(int cursor, int hostid, int userid, int *nmembers)
{
    int open = -2, frontier = -2;
    *nmembers = 0;
    if (db_stretch_read(ctx.db, cursor, hostid, userid, 0, count_member, nmembers, &open,
                        &frontier) != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        tu_bail("db_stretch_read", db_error(ctx.db));
    return open;
}

static long long stretch_of(int hostid, int batch)
{
    return tu_scalar2(&ctx, 152,
                      "SELECT stretch_first * 1000 + stretch_last FROM batch_host "
                      "WHERE host_id = ? AND batch_id = ?",
                      hostid, batch);
}

/* One host update of hostid with stretch w (and corrections havs[0..nhavs)),
 * committed; returns the statements it took. */
static unsigned long update_with(int hostid, const struct db_stretch_write *w,
                                 const struct db_hav_row *havs, int nhavs)
{
    struct db_host_update hu;
    unsigned long st;
    memset(&hu, 0, sizeof hu);
    hu.id = hostid;
    hu.rpc_time = (int)time(NULL);
    hu.rpc_seqno = 7;
    hu.stretch = w;
    hu.havs = havs;
    hu.nhavs = nhavs;
    st = db_statement_count(ctx.db);
    if (db_host_update(ctx.db, &hu) != DB_OK || db_commit(ctx.db) != DB_OK) {
        fprintf(stderr, "test_stretch_open: host update: %s\n", db_error(ctx.db));
        exit(2);
    }
    return db_statement_count(ctx.db) - st - 1;
}

/* The host update writes the stretch a request decided: the host's, the
 * victim's of a take-over only while it is what the decision read, the
 * frontier only upwards; with corrections too; one statement each time. */
static void check_stretch_write(int batch, int cursor, int hx, int ux, int hy, int uy)
{
    struct db_stretch_write w;
    struct db_hav_row hav = { 0 };
    long long frontier0;

    member(hx, ux, batch, cursor, -1, -1);
    member(hy, uy, batch, cursor, 2, 9);
    frontier0 = tu_scalar(&ctx, 153,
                          "SELECT next_stretch_job_num FROM locality_cursor WHERE id = ?", cursor);

    memset(&w, 0, sizeof w);
    w.batch_id = batch;
    w.first = 6;
    w.last = 9;
    w.victim_host = hy;
    w.victim_first = 2;
    w.victim_last = 9;
    w.victim_new_last = 5;
    TAP_EQ_INT((int)update_with(hx, &w, NULL, 0), 1, "a take-over written with the host: "
                                                      "one statement");
    TAP_EQ_INT((int)stretch_of(hx, batch), 6009, "the host's stretch is 6..9");
    TAP_EQ_INT((int)stretch_of(hy, batch), 2005, "the victim's ends at 5");
    TAP_EQ_INT((int)tu_scalar(&ctx, 154, "SELECT rpc_seqno FROM host WHERE id = ?", hx), 7,
               "the host row is written too");

    /* the victim's stretch changed since the decision read it: untouched */
    w.first = 4;
    w.last = 5;
    w.victim_first = 2;
    w.victim_last = 9;
    w.victim_new_last = 3;
    update_with(hx, &w, NULL, 0);
    TAP_EQ_INT((int)stretch_of(hy, batch), 2005, "a victim whose stretch changed meanwhile "
                                                 "keeps it");
    TAP_EQ_INT((int)stretch_of(hx, batch), 4005, "the host's stretch is written all the same");

    /* the frontier rises, never falls */
    memset(&w, 0, sizeof w);
    w.batch_id = batch;
    w.first = (int)frontier0 + 10;
    w.last = (int)frontier0 + 11;
    w.frontier = (int)frontier0 + 12;
    update_with(hx, &w, NULL, 0);
    TAP_EQ_INT((int)tu_scalar(&ctx, 153,
                              "SELECT next_stretch_job_num FROM locality_cursor WHERE id = ?",
                              cursor), (int)frontier0 + 12, "a stretch at the frontier moves it");
    w.frontier = (int)frontier0 + 1;
    update_with(hx, &w, NULL, 0);
    TAP_EQ_INT((int)tu_scalar(&ctx, 153,
                              "SELECT next_stretch_job_num FROM locality_cursor WHERE id = ?",
                              cursor), (int)frontier0 + 12, "... and never back");

    /* with a runtime correction: both in the one statement */
    {
        struct db_val p[] = { DBV_INT(hx) };
        tu_exec(&ctx, 155,
                "INSERT IGNORE INTO host_app_version (host_id, app_version_id, et_n, correction) "
                "VALUES (?, 424242, 1, 1)", p, 1, "a correction row");
    }
    hav.app_version_id = 424242;
    hav.et_n = 5;
    hav.correction = 1.5;
    w.first = 1;
    w.last = 3;
    w.frontier = 0;
    TAP_EQ_INT((int)update_with(hx, &w, &hav, 1), 1, "stretch and correction: one statement");
    TAP_EQ_INT((int)stretch_of(hx, batch), 1003, "the stretch is written");
    TAP_EQ_INT((int)tu_scalar(&ctx, 156,
                              "SELECT et_n FROM host_app_version WHERE host_id = ? "
                              "AND app_version_id = 424242", hx), 5,
               "the correction is written");
    {
        struct db_val p[] = { DBV_INT(hx) };
        tu_exec(&ctx, 157, "DELETE FROM host_app_version WHERE host_id = ?", p, 1,
                "the correction row goes");
    }
}

/* Two members deciding at once take turns: while one decision holds the
 * cursor's row (until its commit), another member's stretch read gets no
 * frontier at once, without waiting for the lock (it may hold claimed
 * rows the first one's claim waits for); after the commit it gets the
 * frontier the first one wrote.  Without the lock both read the same
 * frontier and took the same stretch. */
static void check_turns(int batch, int cursor, int hx, int ux, int hy, int uy)
{
    struct sched_ctx other;
    struct db_stretch_write w;
    struct timespec t0, t1;
    int open, frontier_x = -2, frontier_y = -2, n = 0;
    double waited;

    tu_ctx_open(&other);
    if (db_stretch_read(ctx.db, cursor, hx, ux, 0, count_member, &n, &open, &frontier_x) !=
        DB_OK)
        tu_bail("db_stretch_read (x)", db_error(ctx.db));
    TAP_CHECK(frontier_x >= 0, "the first member's read gets the frontier");

    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (db_stretch_read(other.db, cursor, hy, uy, 0, count_member, &n, &open, &frontier_y) !=
        DB_OK)
        tu_bail("db_stretch_read (y, busy)", db_error(other.db));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    TAP_EQ_INT(frontier_y, -1, "a second member reading at the same moment gets none (busy)");
    TAP_CHECK(waited < 2.0, "... at once, not after a lock wait (%.3f s; a wait would end "
              "in an error after db_lock_wait_timeout, 3 s)", waited);
    if (db_commit(other.db) != DB_OK)
        tu_bail("commit (y)", db_error(other.db));

    /* X takes a stretch at the frontier, written by its host update */
    memset(&w, 0, sizeof w);
    w.batch_id = batch;
    w.first = frontier_x;
    w.last = frontier_x + 2;
    w.frontier = frontier_x + 3;
    update_with(hx, &w, NULL, 0);

    if (db_stretch_read(other.db, cursor, hy, uy, 0, count_member, &n, &open, &frontier_y) !=
            DB_OK ||
        db_commit(other.db) != DB_OK)
        tu_bail("db_stretch_read (y)", db_error(other.db));
    TAP_EQ_INT(frontier_y, frontier_x + 3, "after the commit: the frontier the first one wrote");
    sched_ctx_free(&other);
}

int main(void)
{
    char name[64], auth[65];
    int cursor, batch, ux, uy, uz, n, unsent;
    int hx = 900001, hy = 900002, hz = 900003;

    tu_ctx_open(&ctx);
    tu_app(&ctx, NULL);
    ux = tu_user(&ctx, "stretch-x", auth);
    uy = tu_user(&ctx, "stretch-y", auth);
    uz = tu_user(&ctx, "stretch-z", auth);
    batch = tu_generated_locality_batch(&ctx, "so", NJOBS, 2, name, sizeof name, &cursor);
    unsent = (int)tu_scalar(&ctx, 144,
                            "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND server_state = 2",
                            cursor);
    TAP_EQ_INT(unsent, 2 * NJOBS, "the work generator made R = 2 results of each job");
    {   /* the whole cursor is cut into stretches: the frontier is past its end */
        struct db_val p[] = { DBV_INT(cursor) };
        tu_exec(&ctx, 145,
                "UPDATE locality_cursor SET next_stretch_job_num = last_job_num + 1 "
                "WHERE id = ?",
                p, 1, "move the frontier");
    }

    /* 1. X covers the whole cursor, nothing sent: the second lane is open */
    member(hx, ux, batch, cursor, 0, NJOBS - 1);
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), 0, "an unstaffed lane is open work");
    TAP_EQ_INT(n, 1, "the read lists the other member");

    /* 2. Y staffs it: nothing is open */
    member(hy, uy, batch, cursor, 0, NJOBS - 1);
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), -1, "two lanes staffed: nothing open");

    /* 3. X sends all its replicas and moves past them (a stretch elsewhere):
     * Y still covers the other replicas, so they are not open (before, one
     * member covering against R = 2 made them open) */
    sent(hx, ux, cursor, 0, NJOBS - 1);
    member(hx, ux, batch, cursor, NJOBS + 5, NJOBS + 9);
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), -1,
               "jobs a member moved past, whose other replica a member still covers, are "
               "not open");

    /* 4. X back on the range, with its results: it does not count, since it
     * cannot take a second replica; Y covers them: still nothing open */
    member(hx, ux, batch, cursor, 0, NJOBS - 1);
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), -1, "a member holding a job's result plus one "
                                                   "that does not: the one unsent is staffed");

    /* 5. Y leaves: X holds results of all of them, so their last replicas are
     * orphans, open work */
    leave(hy, batch);
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), 0,
               "a member that left: its jobs are open, though the other lane's member "
               "still covers them");

    /* 6. ...but not for a host of X's user, which holds a replica of each */
    TAP_EQ_INT(first_open(cursor, hz, ux, &n), -1, "not open to the user holding a replica");

    /* 7. Y comes back on the upper half, sends job 5: open work starts at 0,
     * and jobs 5..9 are staffed or sent */
    member(hy, uy, batch, cursor, 5, NJOBS - 1);
    sent(hy, uy, cursor, 5, 5);
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), 0, "the lower half, unstaffed, is open");
    host_row(hz + 1, uz);
    sent(hz + 1, uz, cursor, 0, 4);   /* another host of Z's user takes 0..4 */
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), -1,
               "nothing open once the lower half is sent and the upper is staffed");

    check_stretch_write(batch, cursor, hx, ux, hy, uy);
    check_turns(batch, cursor, hx, ux, hy, uy);

    tu_retire_batches_from(&ctx, batch);
    sched_ctx_free(&ctx);
    return tap_done();
}
