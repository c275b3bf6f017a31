/*
 * test_gpu_rate.c - the credit rate with which the scheduler puts a host
 * in a locality team counts the host's GPUs only while the project has an
 * app version for their type (doc/locality.md, "Words and units"), as
 * the app cache knows it: a version added, or deprecated, while the
 * scheduler process runs counts from the cache's next reload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "credit.h"
#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static struct buf reply;
static time_t clock_now;

static time_t test_clock(void)
{
    return clock_now;
}

/* A new host of a new user sends the NVIDIA host's work request; the
 * rate with which it joined the batch's team (rounded). */
static long long gpu_host_joins(const char *tag)
{
    struct sched_stats st;
    struct buf b;
    char auth[65];
    int host;

    tu_user(&ctx, tag, auth);
    buf_init(&b);
    tu_recorded_request(&b, "synthetic-nvidia-gpu.xml", auth, 0, 0);
    sched_handle(&ctx, b.p, b.len, &reply, &st);
    buf_free(&b);
    if (st.status != 0)
        tu_bail(tag, st.outcome);
    host = (int)tu_elem_ll(reply.p, "hostid");
    return tu_scalar(&ctx, 140, "SELECT COALESCE(MAX(ROUND(credit_rate)), -1) FROM batch_host "
                                "WHERE host_id = ?", host);
}

/* The NVIDIA versions active before the test (an earlier test's, such
 * as the emulator's): set aside, deprecated, and restored at the end. */
static int others[64], nothers, other_id;

static int other_row(void *vctx)
{
    (void)vctx;
    if (nothers < (int)(sizeof others / sizeof others[0]))
        others[nothers++] = other_id;
    return 0;
}

static void set_deprecated(int id, int deprecated)
{
    struct db_val p[] = { DBV_INT(deprecated), DBV_INT(id) };
    tu_exec(&ctx, 143, "UPDATE app_version SET deprecated = ? WHERE id = ?", p, 2,
            "set an NVIDIA version aside");
}

static void set_others_aside(void)
{
    int zero = 0, i;
    struct db_val p[] = { DBV_INT(zero) };
    struct db_val col[] = { DBV_INT(other_id) };
    if (db_query(ctx.db, 144, "SELECT id FROM app_version WHERE coproc_type = 'NVIDIA' AND "
                              "deprecated = ? ORDER BY id",
                 p, 1, col, 1, other_row, NULL, NULL, "the active NVIDIA versions") != DB_OK)
        tu_bail("the active NVIDIA versions", db_error(ctx.db));
    db_commit(ctx.db);
    for (i = 0; i < nothers; i++)
        set_deprecated(others[i], 1);
}

int main(void)
{
    char name[64];
    int cursor, batch, i;
    /* the request's host: 4 CPUs of 1 GFLOPS and an NVIDIA GPU of 12,740
     * GFLOPS, on and usable all the time */
    double cpu, gpu;

    tu_ctx_open(&ctx);
    buf_init(&reply);
    clock_now = time(NULL);
    ctx.clock = test_clock;
    cpu = 4 * 1e9 / 1e9 * CREDIT_PER_GFLOPS_DAY;
    gpu = 12740e9 * ctx.cfg.gpu_flops_scale / 1e9 * CREDIT_PER_GFLOPS_DAY;
    tu_app_name = "tgrate";
    tu_app(&ctx, NULL);
    set_others_aside();
    TAP_EQ_INT(tu_scalar(&ctx, 141, "SELECT COUNT(*) FROM app_version WHERE coproc_type = "
                                    "'NVIDIA' AND deprecated = ?", 0),
               0, "no NVIDIA app version to start with (%d set aside)", nothers);
    batch = tu_generated_locality_batch(&ctx, "gr", 40, 1, name, sizeof name, &cursor);

    TAP_EQ_INT(gpu_host_joins("grate-a"), (long long)cpu,
               "no NVIDIA version: the host joins at its CPUs' rate");

    /* an NVIDIA version appears; the process sees it at its cache's reload */
    tu_app(&ctx, "NVIDIA");
    clock_now += APP_CACHE_TTL + 1;
    TAP_EQ_INT(gpu_host_joins("grate-b"), (long long)(cpu + gpu),
               "an NVIDIA version: the next host's GPU counts");

    /* and is deprecated: the GPU no longer counts after the next reload */
    {
        int zero = 0;
        struct db_val p[] = { DBV_INT(zero) };
        if (db_exec(ctx.db, 142, "UPDATE app_version SET deprecated = 1 WHERE coproc_type = "
                                 "'NVIDIA' AND deprecated = ?", p, 1, NULL,
                    "deprecate the NVIDIA version") != DB_OK ||
            db_commit(ctx.db) != DB_OK)
            tu_bail("deprecate the NVIDIA version", db_error(ctx.db));
    }
    clock_now += APP_CACHE_TTL + 1;
    TAP_EQ_INT(gpu_host_joins("grate-c"), (long long)cpu,
               "the NVIDIA version deprecated: the next host's GPU does not count");

    for (i = 0; i < nothers; i++)
        set_deprecated(others[i], 0);
    tu_retire_batches_from(&ctx, batch);
    buf_free(&reply);
    sched_ctx_free(&ctx);
    return tap_done();
}
