/*
 * test_file_preference.c - the sticky-file preference on the real
 * database (doc/locality.md, "Sticky preference"): a member of a locality
 * team whose stretch has nothing left for it, and which lists sticky files
 * as client 7.20 does (top-level <file_info> with name, nbytes and status),
 * gets the unsent jobs whose files it all holds, from elsewhere in its
 * cursor, and no others.  Until the held files were matched to the batches of the
 * cursor cache, they were matched before the request's teams were chosen,
 * matched nothing, and the host got the next stretch instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_test_util.h"
#include "tap.h"

#define NJOBS 60
#define STRETCH_LAST 9   /* the member's stretch is jobs 0..9, all sent */
#define HELD_FIRST 50    /* it holds files 50..53: jobs 50, 51, 52 use only those */
#define FAILED 30        /* and lists file 30 as failed */

static struct sched_ctx ctx;

/* Send request body b; the reply is in *reply. */
static void request(struct buf *b, struct buf *reply, const char *what)
{
    struct sched_stats st;
    sched_handle(&ctx, b->p, b->len, reply, &st);
    if (st.status != 0)
        tu_bail(what, st.outcome);
}

/* In b, the work request of host (seqno) listing, as client 7.20 lists
 * sticky files, files HELD_FIRST..HELD_FIRST + 3 of batch name, a file of
 * no batch, and file FAILED as failed to download. */
static void sticky_request(struct buf *b, const char *name, const char *auth, int host,
                           int seqno)
{
    struct buf files, nb;
    const char *at;
    int i;

    buf_init(b);
    tu_recorded_request(b, "02-hostid-assigned-work-request.xml", auth, host, seqno);
    at = strstr(b->p, "<app_versions>");
    if (!at)
        tu_bail("request template", "no <app_versions>");
    buf_init(&files);
    for (i = HELD_FIRST; i <= HELD_FIRST + 3; i++)
        buf_printf(&files, "    <file_info>\n        <name>%s_f%d</name>\n"
                           "        <nbytes>1000.000000</nbytes>\n"
                           "        <status>1</status>\n    </file_info>\n", name, i);
    buf_printf(&files, "    <file_info>\n        <name>%s_gone</name>\n"
                       "        <nbytes>1000.000000</nbytes>\n"
                       "        <status>1</status>\n    </file_info>\n", name);
    buf_printf(&files, "    <file_info>\n        <name>%s_f%d</name>\n"
                       "        <nbytes>0.000000</nbytes>\n"
                       "        <status>-161</status>\n    </file_info>\n", name, FAILED);
    buf_init(&nb);
    buf_put(&nb, b->p, (size_t)(at - b->p));
    buf_puts(&nb, files.p);
    buf_puts(&nb, at);
    buf_free(&files);
    buf_free(b);
    *b = nb;
}

int main(void)
{
    char name[64], auth[65], other_auth[65];
    struct buf b, reply;
    int batch, cursor, user, other_user, host, other_host;

    tu_ctx_open(&ctx);
    ctx.cfg.max_jobs_per_reply = 3;   /* as many as the held files have jobs */
    ctx.cfg.tail_budget = 0;
    ctx.cfg.locality_file_preference = 1;
    ctx.cfg.locality_positions = 1;
    tu_app(&ctx, NULL);
    user = tu_user(&ctx, "fpref", auth);
    other_user = tu_user(&ctx, "fpref-other", other_auth);
    batch = tu_generated_locality_batch(&ctx, "fp", NJOBS, 1, name, sizeof name, &cursor);
    TAP_EQ_INT(tu_scalar(&ctx, 140, "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND "
                                    "server_state = 2", cursor),
               NJOBS, "the work generator made one result of each job");

    /* the host: first contact, asking for no work */
    buf_init(&b);
    buf_init(&reply);
    host = tu_first_contact(&ctx, auth, &reply);
    TAP_CHECK(host > 0 && tu_count(reply.p, "<result>") == 0, "first contact: host %d, no job",
              host);

    /* its team: the cursor, stretch 0..STRETCH_LAST, whose jobs another
     * user's host was sent (so that nothing of the stretch is left) */
    other_host = tu_bare_host(&ctx, 141, 142, other_user);
    {
        int first = 0, last = STRETCH_LAST, now = (int)time(NULL);
        struct db_val c[] = { DBV_INT(cursor) };
        struct db_val s[] = { DBV_INT(other_host), DBV_INT(other_user), DBV_INT(now),
                              DBV_INT(cursor), DBV_INT(last) };
        tu_member(&ctx, 143, host, batch, cursor, user, first, last, now);
        tu_exec(&ctx, 144, "UPDATE locality_cursor SET nhosts = 1 WHERE id = ?", c, 1,
                "count the member");
        tu_exec(&ctx, 145,
                "UPDATE result SET server_state = 4, hostid = ?, userid = ?, sent_time = ? "
                "WHERE cursor_id = ? AND job_num <= ? AND server_state = 2",
                s, 5, "send the stretch's jobs to the other host");
    }
    TAP_EQ_INT(tu_scalar2(&ctx, 146,
                          "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND job_num <= ? "
                          "AND server_state = 2",
                          cursor, STRETCH_LAST),
               0, "nothing of the member's stretch is unsent");

    /* the work request, listing four sticky files of jobs far from the
     * stretch, as client 7.20 lists them (job j uses files j and j + 1) */
    sticky_request(&b, name, auth, host, 1);
    request(&b, &reply, "work request with sticky files");
    buf_free(&b);

    TAP_EQ_INT(tu_count(reply.p, "<result>"), 3, "the reply has 3 jobs");
    TAP_EQ_INT(tu_scalar(&ctx, 147, "SELECT COUNT(*) FROM result WHERE hostid = ? AND "
                                    "server_state = 4", host),
               3, "the host was sent 3 jobs in the database");
    TAP_EQ_INT(tu_scalar2(&ctx, 148,
                          "SELECT COUNT(*) FROM result WHERE hostid = ? AND server_state = 4 "
                          "AND ABS(job_num - ?) <= 1",
                          host, HELD_FIRST + 1),
               3, "they are the jobs of its files (%d..%d), not the next stretch's", HELD_FIRST,
               HELD_FIRST + 2);
    {
        char del[160];
        TAP_EQ_INT(tu_count(reply.p, "<delete_file_info>"), 2, "two files are to be deleted");
        snprintf(del, sizeof del, "<delete_file_info>%s_gone</delete_file_info>", name);
        TAP_CHECK(strstr(reply.p, del) != NULL, "the file of no batch");
        snprintf(del, sizeof del, "<delete_file_info>%s_f%d</delete_file_info>", name, FAILED);
        TAP_CHECK(strstr(reply.p, del) != NULL, "and the one that failed to download");
    }
    TAP_EQ_INT(tu_scalar2(&ctx, 149,
                          "SELECT COUNT(*) FROM batch_host WHERE host_id = ? AND "
                          "stretch_first = 0 AND stretch_last = ?",
                          host, STRETCH_LAST),
               1, "the member keeps its stretch (the held files' jobs were enough)");

    /* the same request once the host has its daily quota (2 CPUs, 1 job
     * each; 3 sent today): no job, and no held file is to be deleted, since
     * no team was read to say which its cursor no longer needs; the jobs
     * it runs need them */
    ctx.cfg.daily_result_quota = 1;
    sticky_request(&b, name, auth, host, 2);
    tu_list_in_progress(&ctx, 150, &b, host);
    request(&b, &reply, "work request at the daily quota");
    buf_free(&b);
    TAP_EQ_INT(tu_count(reply.p, "<result>"), 0, "at its daily quota: no job");
    TAP_CHECK(strstr(reply.p, "daily quota") != NULL, "the reply says why");
    TAP_EQ_INT(tu_count(reply.p, "<delete_file_info>"), 0,
               "at its daily quota: no file is to be deleted");

    /* a request for no work that does not list the host's jobs: they are
     * sent again, and no file is to be deleted (deletions go in replies to
     * work requests), the files of the jobs sent again least of all */
    sticky_request(&b, name, auth, host, 3);
    tu_set_elem(&b, "work_req_seconds", "0");
    tu_set_elem(&b, "cpu_req_secs", "0");
    tu_set_elem(&b, "cpu_req_instances", "0");
    request(&b, &reply, "request for no work");
    buf_free(&b);
    TAP_EQ_INT(tu_count(reply.p, "<result>"), 3, "no work asked for: its 3 jobs sent again");
    TAP_EQ_INT(tu_count(reply.p, "<delete_file_info>"), 0,
               "no work asked for: no file is to be deleted");

    buf_free(&reply);
    tu_retire_batches_from(&ctx, batch);
    sched_ctx_free(&ctx);
    return tap_done();
}
