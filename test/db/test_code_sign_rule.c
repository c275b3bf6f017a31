/*
 * test_code_sign_rule.c - the scheduler without a code-signing key, on the
 * real database, in the admin guide's order: Apache (and so the
 * scheduler) starts before keys/code_sign_public is in place.  Until the
 * key appears the scheduler sends no app version and no job, but a
 * message the client shows, and claims nothing; once the file appears it
 * is picked up within CODE_SIGN_KEY_RECHECK seconds, without a restart,
 * and work goes out with the key.  The batch is aborted at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_admin.h"
#include "db_batch.h"
#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static struct buf reply;
static time_t fake_now;

static time_t test_clock(void)
{
    return fake_now;
}

static void send_req(const char *file, const char *auth, int hostid, int seqno,
                     struct sched_stats *st)
{
    struct buf b;
    buf_init(&b);
    tu_recorded_request(&b, file, auth, hostid, seqno);
    sched_handle(&ctx, b.p, b.len, &reply, st);
    buf_free(&b);
}

int main(void)
{
    struct sched_stats st;
    char auth[65], key_dir[256], key_path[300], batch_name[64], src[CONFIG_STR_MAX + 64];
    char *key_text;
    int hostid, first_batch;
    long long claimed;
    FILE *f;

    tu_ctx_open(&ctx);
    buf_init(&reply);
    snprintf(src, sizeof src, "%s/code_sign_public", ctx.cfg.key_dir);
    key_text = tu_read_file(src, NULL);
    tu_app(&ctx, NULL);
    tu_user(&ctx, "nokey", auth);
    snprintf(batch_name, sizeof batch_name, "nokey%ld", (long)time(NULL) % 100000000);
    first_batch = tu_batch(&ctx, batch_name, 20, 1, 3.6e12, 4, 7 * 86400);
    db_commit(ctx.db);

    /* the scheduler of a project whose keys/ has no code_sign_public yet */
    snprintf(key_dir, sizeof key_dir, "%s/csr.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(key_dir)) {
        printf("Bail out! mkdtemp failed\n");
        return 1;
    }
    snprintf(key_path, sizeof key_path, "%s/code_sign_public", key_dir);
    fake_now = time(NULL);
    ctx.clock = test_clock;
    code_sign_key_init(&ctx.code_sign_watch, key_dir, ctx.code_sign_key,
                       sizeof ctx.code_sign_key, fake_now);
    TAP_EQ_STR(ctx.code_sign_key, "", "no key file: the scheduler has no key");

    send_req("01-first-contact-attach.xml", auth, 0, 0, &st);
    TAP_EQ_STR(st.outcome, "ok", "first contact handled without a key");
    hostid = (int)tu_elem_ll(reply.p, "hostid");
    TAP_CHECK(hostid > 0, "the host still gets its id (%d)", hostid);
    send_req("02-hostid-assigned-work-request.xml", auth, hostid, 0, &st);
    TAP_EQ_STR(st.outcome, "ok", "work request handled without a key");
    TAP_EQ_INT(st.jobs_sent, 0, "no job sent without a key");
    TAP_EQ_INT(tu_count(reply.p, "<app_version>"), 0, "no app version sent");
    TAP_EQ_INT(tu_count(reply.p, "<file_signature>"), 0, "no signed file sent");
    TAP_EQ_INT(tu_count(reply.p, "<code_sign_key>"), 0, "no key sent");
    TAP_CHECK(strstr(reply.p, "<message priority=\"notice\">") != NULL &&
              strstr(reply.p, "no code-signing key") != NULL,
              "a <message> the client shows says why");
    claimed = tu_scalar(&ctx, 157, "SELECT COUNT(*) FROM result WHERE hostid = ?", hostid);
    TAP_EQ_INT(claimed, 0, "nothing claimed for the host");

    /* the administrator copies the key in; no restart */
    f = fopen(key_path, "w");
    if (!f || fputs(key_text, f) < 0 || fclose(f) != 0) {
        printf("Bail out! cannot write %s\n", key_path);
        return 1;
    }
    fake_now += CODE_SIGN_KEY_RECHECK;
    send_req("02-hostid-assigned-work-request.xml", auth, hostid, 1, &st);
    TAP_EQ_STR(st.outcome, "ok", "work request handled after the key appeared");
    TAP_EQ_STR(ctx.code_sign_key, key_text, "the key file was picked up within %d s",
               CODE_SIGN_KEY_RECHECK);
    TAP_CHECK(st.jobs_sent > 0, "jobs sent once the key is there (%d)", st.jobs_sent);
    TAP_EQ_INT(tu_count(reply.p, "<code_sign_key>"), 1, "the key is sent with them");
    TAP_EQ_INT(tu_count(reply.p, "<app_version>"), 1, "and the app version");
    TAP_CHECK(strstr(reply.p, "no code-signing key") == NULL, "no message about the key");

    /* abort the batch, as abort_batch does: its unsent jobs are cancelled
     * (no new replica is made), and no later test gets them */
    {
        struct db_abort_counts ac;
        if (db_batch_abort_jobs(ctx.db, first_batch, (int)time(NULL), &ac) != DB_OK ||
            db_batch_set_state(ctx.db, first_batch, BS_ABORTED) != DB_OK ||
            db_commit(ctx.db) != DB_OK) {
            printf("Bail out! cannot abort batch %d: %s\n", first_batch, db_error(ctx.db));
            return 1;
        }
    }
    unlink(key_path);
    rmdir(key_dir);
    free(key_text);
    buf_free(&reply);
    sched_ctx_free(&ctx);
    return tap_done();
}
