/*
 * test_stretch_open.c - which jobs a stretch decision calls "open work"
 * (db_stretch_read, doc/locality.md "Positions in the cursor"), on the
 * real database: a job is open when it has more unsent results than the
 * other members who cover it and have no result of it yet.  So the jobs
 * a member moved past, while another member still covers their other
 * replica, are not open (they used to be, and a third host then took
 * them from under the member that works them); an unstaffed lane and the
 * jobs of a member that left are.  And the files of a batch's jobs as the
 * scheduler process keeps them (app_cache_batch_jobs), which place the
 * cuts between stretches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app_cache.h"
#include "db_locality.h"
#include "db_test_util.h"
#include "tap.h"

#define NJOBS 10

static struct sched_ctx ctx;

/* A host of userid with a batch_host row in the cursor, stretch [first, last]. */
static void member(int hostid, int userid, int batch, int cursor, int first, int last)
{
    struct db_val h[] = { DBV_INT(hostid), DBV_INT(userid) };
    struct db_val m[] = { DBV_INT(hostid), DBV_INT(batch), DBV_INT(cursor), DBV_INT(userid),
                          DBV_INT(first), DBV_INT(last), DBV_INT(first), DBV_INT(last) };
    tu_exec(&ctx, 140, "INSERT IGNORE INTO host (id, userid) VALUES (?, ?)", h, 2, "make a host");
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

/* The run of the cached jobs that holds job j, or NULL. */
static const struct sc_job_run *run_at(const struct sc_jobs *jobs, int j)
{
    int i;
    for (i = jobs->nruns - 1; i >= 0; i--)
        if (jobs->runs[i].job <= j)
            return j < jobs->njobs ? &jobs->runs[i] : NULL;
    return NULL;
}

/* The cache of a batch's jobs against batch_job. */
static void check_job_cache(int batch)
{
    struct app_cache ac;
    const struct sc_jobs *jobs = NULL;
    const struct sc_job_run *run;
    unsigned long st;
    int j, ok = 1;
    time_t now = time(NULL);

    memset(&ac, 0, sizeof ac);
    if (app_cache_batch_jobs(&ac, ctx.db, batch, now, &jobs) != DB_OK || db_commit(ctx.db))
        tu_bail("app_cache_batch_jobs", db_error(ctx.db));
    TAP_EQ_INT(jobs->njobs, NJOBS, "the cache describes every job");
    TAP_EQ_INT(jobs->nruns, NJOBS, "one run per job when each starts at its own file");
    for (j = 0; j < NJOBS; j++) {
        run = run_at(jobs, j);
        ok = ok && run &&
             run->first_file == tu_scalar2(&ctx, 146,
                                           "SELECT first_file_num FROM batch_job "
                                           "WHERE batch_id = ? AND job_num = ?",
                                           batch, j) &&
             run->nfiles == tu_scalar2(&ctx, 147,
                                       "SELECT nfiles FROM batch_job "
                                       "WHERE batch_id = ? AND job_num = ?",
                                       batch, j);
    }
    TAP_CHECK(ok, "each job's files as in batch_job");
    st = db_statement_count(ctx.db);
    if (app_cache_batch_jobs(&ac, ctx.db, batch, now + 1, &jobs) != DB_OK)
        tu_bail("app_cache_batch_jobs", db_error(ctx.db));
    TAP_EQ_INT(db_statement_count(ctx.db) - st, 0, "asked again: no statement");
    app_cache_free(&ac);

    {   /* four jobs per file: one run per file */
        struct db_val p[] = { DBV_INT(batch) };
        tu_exec(&ctx, 148,
                "UPDATE batch_job SET first_file_num = job_num DIV 4 WHERE batch_id = ?", p, 1,
                "four jobs per file");
    }
    if (app_cache_batch_jobs(&ac, ctx.db, batch, now, &jobs) != DB_OK || db_commit(ctx.db))
        tu_bail("app_cache_batch_jobs", db_error(ctx.db));
    TAP_EQ_INT(jobs->nruns, 3, "jobs with the same files make one run (0-3, 4-7, 8-9)");
    run = run_at(jobs, 6);
    TAP_CHECK(run && run->job == 4 && run->first_file == 1 && run->nfiles == 2,
              "job 6 in the run of jobs 4.. on files 1-2");
    app_cache_free(&ac);

    {   /* a gap: only the jobs before it are described */
        struct db_val p[] = { DBV_INT(batch) };
        tu_exec(&ctx, 149,
                "UPDATE batch_job SET job_num = job_num + 100 WHERE batch_id = ? AND job_num = 6",
                p, 1, "move a job away");
    }
    if (app_cache_batch_jobs(&ac, ctx.db, batch, now, &jobs) != DB_OK || db_commit(ctx.db))
        tu_bail("app_cache_batch_jobs", db_error(ctx.db));
    TAP_EQ_INT(jobs->njobs, 6, "jobs after a gap are not described");
    TAP_EQ_INT(jobs->nruns, 2, "nor their runs");
    app_cache_free(&ac);
    {   /* the batch as it was */
        struct db_val p[] = { DBV_INT(batch) };
        tu_exec(&ctx, 150,
                "UPDATE batch_job SET job_num = job_num - 100 WHERE batch_id = ? AND job_num = 106",
                p, 1, "move the job back");
        tu_exec(&ctx, 151, "UPDATE batch_job SET first_file_num = job_num WHERE batch_id = ?", p, 1,
                "one job per file again");
    }
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
    sent(hz + 1, uz, cursor, 0, 4);   /* another host of Z's user takes 0..4 */
    TAP_EQ_INT(first_open(cursor, hz, uz, &n), -1,
               "nothing open once the lower half is sent and the upper is staffed");

    check_job_cache(batch);

    tu_retire_batches_from(&ctx, batch);
    sched_ctx_free(&ctx);
    return tap_done();
}
