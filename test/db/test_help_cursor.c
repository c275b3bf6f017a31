/*
 * test_help_cursor.c - "no empty reply while work exists" on the real
 * database (doc/locality.md, step 4 of the scheduler): a host whose own
 * cursor has nothing left for it gets the work of another cursor of the
 * batch, and when the neediest cursor (greatest est_time_left) has
 * nothing unsent, because all of its work sits in its members' queues,
 * the host gets the unsent jobs of the next one instead of "no work".
 *
 * Without positions the host helps and stays in its team.  Both ways of
 * finding out that the neediest cursor has nothing are checked: a cursor
 * cache read before it ran dry (its jobs are asked for, none come, the
 * next cursor is tried), and a fresh one that knows it has nothing
 * unsent.  With positions the host moves to the cursor with unsent work
 * and takes a stretch there, which its next request goes on with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_test_util.h"
#include "tap.h"

#define NJOBS 30         /* three cursors of 10 jobs */

static struct sched_ctx ctx;

static void request(struct buf *b, struct buf *reply, struct sched_stats *st, const char *what)
{
    sched_handle(&ctx, b->p, b->len, reply, st);
    if (st->status != 0)
        tu_bail(what, st->outcome);
}

/* A work request of host (seqno) that lists the jobs it holds; returns
 * the statements it took. */
static unsigned long work_request(const char *auth, int host, int seqno, struct buf *reply,
                                  const char *what)
{
    struct sched_stats st;
    struct buf b;
    buf_init(&b);
    tu_recorded_request(&b, "02-hostid-assigned-work-request.xml", auth, host, seqno);
    tu_list_in_progress(&ctx, 174, &b, host);
    request(&b, reply, &st, what);
    buf_free(&b);
    return st.statements;
}

/* Results sent to the host in cursor id, in the database. */
static long long sent_in(int host, int cursor)
{
    return tu_scalar2(&ctx, 165, "SELECT COUNT(*) FROM result WHERE hostid = ? AND "
                                 "server_state = 4 AND cursor_id = ?", host, cursor);
}

/* Jobs of cursor sent to the host that lie in its stretch. */
static long long in_stretch(int host, int cursor)
{
    return tu_scalar2(&ctx, 175, "SELECT COUNT(*) FROM result r JOIN batch_host s ON "
                                 "s.host_id = r.hostid AND s.batch_id = r.batch WHERE "
                                 "r.hostid = ? AND r.cursor_id = ? AND r.server_state = 4 AND "
                                 "r.job_num BETWEEN s.stretch_first AND s.stretch_last",
                      host, cursor);
}

int main(void)
{
    char name[64], auth[65], other_auth[65];
    struct buf reply;
    int batch, cursors[3], user, other_user, host, other_host, now = (int)time(NULL);
    int own, neediest, helped;

    tu_ctx_open(&ctx);
    ctx.cfg.max_jobs_per_reply = 2;
    ctx.cfg.tail_budget = 0;          /* no backups: only unsent jobs can go */
    ctx.cfg.finish_line_slack = 0;    /* no finish line */
    ctx.cfg.locality_positions = 0;   /* help first; the move at the end */
    tu_app(&ctx, NULL);
    user = tu_user(&ctx, "help", auth);
    other_user = tu_user(&ctx, "help-other", other_auth);
    tu_retire_batches_from(&ctx, 1);
    snprintf(name, sizeof name, "help%ld", (long)time(NULL) % 100000000);
    batch = tu_locality_batch(&ctx, name, NJOBS, 3, 1, 1e12, 2, cursors);
    tu_work_generator_pass();
    own = cursors[0];
    neediest = cursors[1];
    helped = cursors[2];

    /* the host: first contact, asking for no work */
    buf_init(&reply);
    host = tu_first_contact(&ctx, auth, &reply);
    TAP_CHECK(host > 0 && tu_count(reply.p, "<result>") == 0, "first contact: host %d, no job",
              host);

    /* its team is the first cursor, whose jobs (like all of the second
     * cursor's) were sent to another user's host; the second cursor needs
     * help most (a slow team, much work left), the third less */
    other_host = tu_bare_host(&ctx, 166, 167, other_user);
    {
        struct db_val s[] = { DBV_INT(other_host), DBV_INT(other_user), DBV_INT(now),
                              DBV_INT(own), DBV_INT(neediest) };
        tu_member(&ctx, 168, host, batch, own, user, 0, NJOBS / 3 - 1, now);
        tu_exec(&ctx, 169,
                "UPDATE result SET server_state = 4, hostid = ?, userid = ?, sent_time = ? "
                "WHERE cursor_id IN (?, ?) AND server_state = 2",
                s, 5, "send the first two cursors' jobs to the other host");
        tu_exec(&ctx, 170,
                "UPDATE locality_cursor SET next_stretch_job_num = last_job_num + 1, "
                "nhosts = 1, expavg_credit = IF(id = ?, 100, IF(id = ?, 1, 100)), "
                "remaining_credit = IF(id = ?, 100, remaining_credit) WHERE id IN (?, ?, ?)",
                (struct db_val[]){ DBV_INT(own), DBV_INT(neediest), DBV_INT(own), DBV_INT(own),
                                   DBV_INT(neediest), DBV_INT(helped) },
                6, "the teams' rates and frontiers");
    }
    TAP_EQ_INT(tu_scalar2(&ctx, 171, "SELECT COUNT(*) FROM result WHERE cursor_id IN (?, ?) "
                                     "AND server_state = 2", own, neediest),
               0, "the host's cursor and the neediest one have nothing unsent");
    TAP_CHECK(tu_scalar(&ctx, 172, "SELECT COUNT(*) FROM result WHERE cursor_id = ? "
                                   "AND server_state = 2", helped) == NJOBS / 3,
              "the third cursor has all of its jobs unsent");

    /* a work request with the cursor cache read now: it knows that the
     * neediest cursor has nothing unsent, and the next one is helped */
    ctx.apps.cursors_loaded_at = 0;
    work_request(auth, host, 1, &reply, "work request");
    TAP_EQ_INT(tu_count(reply.p, "<result>"), 2, "the reply has 2 jobs");
    TAP_EQ_INT(sent_in(host, helped), 2, "both from the cursor with unsent jobs");
    TAP_EQ_INT(sent_in(host, neediest), 0, "none from the neediest cursor");
    TAP_EQ_INT(tu_scalar2(&ctx, 173, "SELECT COUNT(*) FROM batch_host WHERE host_id = ? "
                                     "AND cursor_id = ?", host, own),
               1, "the host stays in its own team");
    {
        struct db_cursor_row *cached = NULL;
        unsigned long stale_statements, right_statements;
        int i;

        for (i = 0; i < ctx.apps.ncursors; i++)
            if (ctx.apps.cursors[i].id == neediest)
                cached = &ctx.apps.cursors[i];
        TAP_CHECK(cached && cached->has_unsent == 0,
                  "the cache says the neediest cursor has nothing unsent");
        if (!cached)
            tu_bail("cursor cache", "the neediest cursor is not in it");

        /* as if the cache had been read before it ran dry: it is asked
         * first, gives nothing, and the next one is helped */
        cached->has_unsent = 1;
        ctx.apps.cursors_loaded_at = time(NULL);
        stale_statements = work_request(auth, host, 2, &reply, "work request, stale cache");
        TAP_EQ_INT(tu_count(reply.p, "<result>"), 2, "stale cache: the reply has 2 jobs");
        TAP_EQ_INT(sent_in(host, helped), 4, "stale cache: 2 more from the cursor with "
                                             "unsent jobs");
        TAP_EQ_INT(sent_in(host, neediest), 0, "stale cache: none from the neediest cursor");

        /* the same request with the cache right: one statement fewer */
        cached->has_unsent = 0;
        ctx.apps.cursors_loaded_at = time(NULL);
        right_statements = work_request(auth, host, 3, &reply, "work request, cache right");
        TAP_EQ_INT(tu_count(reply.p, "<result>"), 2, "cache right: the reply has 2 jobs");
        TAP_EQ_INT(sent_in(host, helped), 6, "cache right: 2 more from the cursor with "
                                             "unsent jobs");
        TAP_EQ_INT((long long)right_statements, (long long)stale_statements - 1,
                   "cache right: the empty cursor is not asked (one statement fewer)");
    }

    /* with positions, the starved host moves to the cursor with unsent
     * work instead, and its jobs there are a stretch of its own */
    ctx.cfg.locality_positions = 1;
    ctx.apps.cursors_loaded_at = 0;
    work_request(auth, host, 4, &reply, "work request, positions");
    TAP_EQ_INT(tu_count(reply.p, "<result>"), 2, "positions: the reply has 2 jobs");
    TAP_EQ_INT(sent_in(host, helped), 8, "positions: 2 more from the cursor with unsent jobs");
    TAP_EQ_INT(tu_scalar2(&ctx, 173, "SELECT COUNT(*) FROM batch_host WHERE host_id = ? "
                                     "AND cursor_id = ?", host, helped),
               1, "positions: the host moved to the cursor with unsent jobs");
    TAP_EQ_INT(in_stretch(host, helped), 2, "positions: both jobs are in the host's stretch");
    TAP_EQ_INT(tu_scalar(&ctx, 172, "SELECT COUNT(*) FROM result WHERE cursor_id = ? "
                                    "AND server_state = 2", helped),
               2, "positions: two jobs left unsent there");
    work_request(auth, host, 5, &reply, "work request, positions, next");
    TAP_EQ_INT(tu_count(reply.p, "<result>"), 2, "next request: the last 2 jobs");
    TAP_EQ_INT(in_stretch(host, helped), 4, "next request: the host's stretch goes on");

    buf_free(&reply);
    tu_retire_batches_from(&ctx, batch);
    sched_ctx_free(&ctx);
    return tap_done();
}
