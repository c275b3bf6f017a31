/*
 * test_team_join.c - joining a locality team is conditional on what the
 * choice read (db_cursor_adjust): a team filled, or a frontier taken, by
 * another scheduler since the read makes the join fail and change
 * nothing, so the scheduler reads again and chooses again.
 *
 * First the statement itself, one connection, with stale figures.  Then
 * new hosts arriving at once: 8 processes, each with its own connection,
 * bring 10 hosts each to a batch of 8 cursors with room for 10 hosts a
 * team.  Before the join was conditional, processes that read a team
 * with room at the same moment all joined it: the benchmark's 5,000
 * hosts made teams of 35 on 145 of 250 cursors, with a limit of 20.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_locality.h"
#include "db_test_util.h"
#include "tap.h"

#define NPROC 8
#define HOSTS_PER_PROC 10
#define NCURSORS 8
#define TEAM_MAX 10              /* as in the HAVING of check_arrivals */
#define NUSERS (NPROC * HOSTS_PER_PROC)

static struct sched_ctx ctx;
static char auths[NUSERS][65];

/* A column of a cursor's row (each column its own statement slot). */
static long long cursor_col(const char *col, int cursor)
{
    static const char *const cols[] = { "next_stretch_job_num", "nhosts", "ROUND(expavg_credit)" };
    static const int slots[] = { 140, 150, 151 };
    char sql[160];
    int i;
    for (i = 0; i < 3 && strcmp(cols[i], col) != 0; i++)
        ;
    if (i == 3)
        tu_bail("cursor_col", col);
    snprintf(sql, sizeof sql, "SELECT %s FROM locality_cursor WHERE id = ?", col);
    return tu_scalar(&ctx, slots[i], sql, cursor);
}

/* One db_cursor_adjust, committed; returns *lost. */
static int adjust(int to, double rate, int from, double from_rate, int frontier, int max_nhosts,
                  int expect_frontier)
{
    int lost = -1;
    if (db_cursor_adjust(ctx.db, to, rate, from, from_rate, frontier, max_nhosts,
                         expect_frontier, &lost) != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        tu_bail("db_cursor_adjust", db_error(ctx.db));
    return lost;
}

static void check_statement(const int *cur)
{
    struct db_val p[] = { DBV_INT(cur[0]) };
    long long f0, n1, e1;

    tu_exec(&ctx, 141, "UPDATE locality_cursor SET nhosts = 2, expavg_credit = 20 WHERE id = ?",
            p, 1, "two members in cursor 0");
    f0 = cursor_col("next_stretch_job_num", cur[0]);

    TAP_EQ_INT(adjust(cur[0], 10, 0, 0, (int)f0 + 3, 3, (int)f0), 0,
               "a join into a team with room, at the frontier it read, holds");
    TAP_EQ_INT(cursor_col("nhosts", cur[0]), 3, "the team has its third member");
    TAP_EQ_INT(cursor_col("next_stretch_job_num", cur[0]), f0 + 3, "and the frontier moved");

    TAP_EQ_INT(adjust(cur[0], 10, 0, 0, (int)f0 + 3, 3, -1), 1,
               "a join into the team, full since it was read, fails");
    TAP_EQ_INT(cursor_col("nhosts", cur[0]), 3, "the full team keeps 3 members");
    TAP_EQ_INT(cursor_col("ROUND(expavg_credit)", cur[0]), 30, "and its credit rate");

    TAP_EQ_INT(adjust(cur[0], 10, 0, 0, (int)f0 + 6, INT_MAX, (int)f0), 1,
               "a join whose first stretch starts at a frontier taken since fails");
    TAP_EQ_INT(cursor_col("next_stretch_job_num", cur[0]), f0 + 3,
               "and the frontier stays where the other join left it");

    TAP_EQ_INT(adjust(cur[0], 10, 0, 0, 0, INT_MAX, -1), 0,
               "a join that gave up the size rule (every team full) holds");
    TAP_EQ_INT(cursor_col("nhosts", cur[0]), 4, "the team has 4 members");

    n1 = cursor_col("nhosts", cur[1]);
    e1 = cursor_col("ROUND(expavg_credit)", cur[1]);
    {
        struct db_val q[] = { DBV_INT(cur[1]) };
        tu_exec(&ctx, 142,
                "UPDATE locality_cursor SET nhosts = nhosts + 1, expavg_credit = expavg_credit + 7 "
                "WHERE id = ?",
                q, 1, "a member in cursor 1");
    }
    TAP_EQ_INT(adjust(cur[0], 7, cur[1], 7, 0, 4, -1), 1,
               "a move into a team that is full fails");
    TAP_EQ_INT(cursor_col("nhosts", cur[1]), n1 + 1, "the team it would leave keeps the member");
    TAP_EQ_INT(cursor_col("ROUND(expavg_credit)", cur[1]), e1 + 7, "and its credit rate");
    TAP_EQ_INT(cursor_col("nhosts", cur[0]), 4, "the full team is unchanged");

    TAP_EQ_INT(adjust(cur[0], 7, cur[1], 7, 0, 5, -1), 0, "a move into a team with room holds");
    TAP_EQ_INT(cursor_col("nhosts", cur[0]) * 100 + cursor_col("nhosts", cur[1]),
               500 + n1, "both teams' sizes changed");
}

static void child(int p, const char *tmpl)
{
    struct sched_ctx c;
    struct buf req, reply;
    int h, bad = 0;

    tu_ctx_open(&c);
    c.cfg.team_size_max = TEAM_MAX;
    c.cfg.team_size_min = 1;
    buf_init(&reply);
    for (h = 0; h < HOSTS_PER_PROC; h++) {
        struct sched_stats st;
        buf_init(&req);
        buf_puts(&req, tmpl);
        tu_set_elem(&req, "authenticator", auths[p * HOSTS_PER_PROC + h]);
        tu_set_elem(&req, "hostid", "0");
        tu_set_elem(&req, "rpc_seqno", "0");
        sched_handle(&c, req.p, req.len, &reply, &st);
        buf_free(&req);
        if (strcmp(st.outcome, "ok") != 0)
            bad++;
    }
    buf_free(&reply);
    sched_ctx_free(&c);
    exit(bad ? 1 : 0);
}

static void check_arrivals(int batch)
{
    char *tmpl;
    pid_t pids[NPROC];
    int pipefd[2], i;
    long long over, members, mismatch, maxteam;

    tmpl = tu_read_file(tu_src_path("recorded/02-hostid-assigned-work-request.xml"), NULL);
    if (pipe(pipefd) != 0)
        tu_bail("pipe", "failed");
    for (i = 0; i < NPROC; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            char c;
            close(pipefd[1]);
            /* all start together, when the parent closes the pipe */
            if (read(pipefd[0], &c, 1) < 0)
                exit(3);
            child(i, tmpl);
        }
    }
    close(pipefd[0]);
    close(pipefd[1]);
    for (i = 0; i < NPROC; i++) {
        int status;
        waitpid(pids[i], &status, 0);
        TAP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "process %d: every request answered", i);
    }
    free(tmpl);

    members = tu_scalar(&ctx, 143, "SELECT COUNT(*) FROM batch_host WHERE batch_id = ?", batch);
    TAP_EQ_INT(members, NUSERS, "every new host joined a team");
    maxteam = tu_scalar(&ctx, 144,
                        "SELECT MAX(n) FROM (SELECT COUNT(*) n FROM batch_host "
                        "WHERE batch_id = ? GROUP BY cursor_id) x",
                        batch);
    over = tu_scalar(&ctx, 145,
                     "SELECT COUNT(*) FROM (SELECT cursor_id FROM batch_host WHERE batch_id = ? "
                     "GROUP BY cursor_id HAVING COUNT(*) > 10) x",
                     batch);
    TAP_EQ_INT(over, 0, "no team has more than %d members (the largest: %lld)", TEAM_MAX,
               maxteam);
    mismatch = tu_scalar(&ctx, 146,
                         "SELECT COUNT(*) FROM locality_cursor c WHERE c.batch_id = ? AND "
                         "c.nhosts <> (SELECT COUNT(*) FROM batch_host b "
                         "WHERE b.cursor_id = c.id)",
                         batch);
    TAP_EQ_INT(mismatch, 0, "every cursor's nhosts counts its members");
    TAP_EQ_INT(tu_scalar(&ctx, 147,
                         "SELECT COUNT(DISTINCT cursor_id) FROM batch_host WHERE batch_id = ?",
                         batch),
               NCURSORS, "the %d hosts fill all %d teams", NUSERS, NCURSORS);
}

int main(void)
{
    char name[64];
    int cur[NCURSORS], batch, i;

    tu_ctx_open(&ctx);
    tu_app(&ctx, NULL);
    tu_retire_batches_from(&ctx, 1);
    for (i = 0; i < NUSERS; i++)
        (void)tu_user(&ctx, "join", auths[i]);

    snprintf(name, sizeof name, "joinst%ld", (long)time(NULL) % 100000000);
    batch = tu_locality_batch(&ctx, name, 40, 2, 1, 1e12, 2, cur);
    check_statement(cur);
    tu_retire_batches_from(&ctx, batch);

    snprintf(name, sizeof name, "joinrace%ld", (long)time(NULL) % 100000000);
    batch = tu_locality_batch(&ctx, name, 80, NCURSORS, 1, 1e12, 2, cur);
    check_arrivals(batch);
    tu_retire_batches_from(&ctx, batch);
    sched_ctx_free(&ctx);
    return tap_done();
}
