/*
 * test_stretch_pass.c - the stretch read (db_stretch_read) on the real
 * database against the statement it replaced, which counted each
 * member's unsent results and searched the first open job with
 * correlated subqueries (kept here as the reference): the same members,
 * counts, frontier and first open job in the states of
 * test_stretch_open, in random states of members, stretches and sent
 * replicas, and in a cursor larger than the read's pass, where the pass
 * stops (doc/locality.md, "Positions in the cursor").  It also prints
 * and bounds the index entries each form reads (the session's handler
 * counters).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_locality.h"
#include "db_test_util.h"
#include "tap.h"

#define NJOBS 40
#define NHOSTS 8                  /* hosts 910001.., of users 1 + i % 4 */
#define MAXM 32

static struct sched_ctx ctx;
static int users[4];

struct member_row {
    int host_id, unsent;
};

struct read {
    struct member_row m[MAXM];
    int n, first_open, frontier;
};

/* ---- the reference: the statement before the one-pass read ---- */

static struct db_stretch_row ref_r;
static struct read *ref_out;

static int ref_row(void *x)
{
    (void)x;
    if (ref_r.host_id == 0) {
        ref_out->frontier = ref_r.first;
        ref_out->first_open = ref_r.last;
    } else if (ref_out->n < MAXM) {
        ref_out->m[ref_out->n].host_id = ref_r.host_id;
        ref_out->m[ref_out->n].unsent = ref_r.unsent;
        ref_out->n++;
    }
    return 0;
}

static void ref_read(int cursor, int hostid, int userid, int near, struct read *out)
{
    static const char sql[] =
        "SELECT bh.host_id, bh.userid = ?, bh.credit_rate, bh.stretch_first, bh.stretch_last, "
        "  (SELECT COUNT(*) FROM result r WHERE r.cursor_id = bh.cursor_id "
        "   AND r.server_state = 2 AND r.job_num BETWEEN bh.stretch_first AND bh.stretch_last), "
        "  IFNULL(h.rpc_time, 0), IFNULL(h.lost_time, 0), IFNULL(h.rpc_gap_avg, 0), "
        "  IFNULL(h.rpc_gap_dev, 0), IFNULL(h.rpc_gap_n, 0) "
        "FROM batch_host bh LEFT JOIN host h ON h.id = bh.host_id "
        "WHERE bh.cursor_id = ? AND bh.host_id <> ? AND bh.stretch_first >= 0 "
        "UNION ALL "
        "SELECT 0, 0, 0, c.next_stretch_job_num, COALESCE(("
        "  SELECT r.job_num FROM result r "
        "  LEFT JOIN result o ON o.workunitid = r.workunitid AND o.userid = ? "
        "  WHERE r.cursor_id = c.id AND r.server_state = 2 AND o.id IS NULL "
        "    AND r.job_num < c.next_stretch_job_num "
        "    AND (SELECT COUNT(*) FROM batch_host b2 WHERE b2.cursor_id = c.id "
        "         AND b2.host_id <> ? AND b2.stretch_first >= 0 "
        "         AND r.job_num BETWEEN b2.stretch_first AND b2.stretch_last "
        "         AND NOT EXISTS (SELECT 1 FROM result o2 WHERE o2.workunitid = r.workunitid "
        "                         AND o2.hostid = b2.host_id)) "
        "      < (SELECT COUNT(*) FROM result u WHERE u.workunitid = r.workunitid "
        "         AND u.server_state = 2) "
        "    AND NOT EXISTS (SELECT 1 FROM batch_host b3 WHERE b3.cursor_id = c.id "
        "         AND b3.userid = ? AND b3.host_id <> ? "
        "         AND r.job_num BETWEEN b3.stretch_first AND b3.stretch_last) "
        "  ORDER BY r.job_num < ?, r.job_num LIMIT 1), -1), 0, 0, 0, 0, 0, 0 "
        "FROM locality_cursor c WHERE c.id = ?";
    struct db_val params[] = { DBV_INT(userid), DBV_INT(cursor), DBV_INT(hostid),
                               DBV_INT(userid), DBV_INT(hostid), DBV_INT(userid),
                               DBV_INT(hostid), DBV_INT(near), DBV_INT(cursor) };
    struct db_val cols[] = { DBV_INT(ref_r.host_id), DBV_INT(ref_r.same_user),
                             DBV_DBL(ref_r.credit_rate), DBV_INT(ref_r.first),
                             DBV_INT(ref_r.last), DBV_INT(ref_r.unsent),
                             DBV_INT(ref_r.rpc_time), DBV_INT(ref_r.lost_time),
                             DBV_DBL(ref_r.rpc_gap_avg), DBV_DBL(ref_r.rpc_gap_dev),
                             DBV_INT(ref_r.rpc_gap_n) };
    memset(out, 0, sizeof *out);
    out->first_open = out->frontier = -2;
    ref_out = out;
    if (db_query(ctx.db, 146, sql, params, 9, cols, 11, ref_row, NULL, NULL,
                 "the reference stretch read") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        tu_bail("the reference stretch read", db_error(ctx.db));
}

/* ---- the read under test ---- */

static int new_row(void *x, const struct db_stretch_row *r)
{
    struct read *out = x;
    if (out->n < MAXM) {
        out->m[out->n].host_id = r->host_id;
        out->m[out->n].unsent = r->unsent;
        out->n++;
    }
    return 0;
}

static void new_read(int cursor, int hostid, int userid, int near, struct read *out)
{
    memset(out, 0, sizeof *out);
    if (db_stretch_read(ctx.db, cursor, hostid, userid, near, new_row, out, &out->first_open,
                        &out->frontier) != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        tu_bail("db_stretch_read", db_error(ctx.db));
}

static int by_host(const void *a, const void *b)
{
    const struct member_row *x = a, *y = b;
    return (x->host_id > y->host_id) - (x->host_id < y->host_id);
}

/* Do the two reads agree for this deciding host?  Says why not (once). */
static int same(int cursor, int hostid, int userid, int near, const char *state)
{
    struct read a, b;
    int i, ok;
    ref_read(cursor, hostid, userid, near, &a);
    new_read(cursor, hostid, userid, near, &b);
    qsort(a.m, (size_t)a.n, sizeof a.m[0], by_host);
    qsort(b.m, (size_t)b.n, sizeof b.m[0], by_host);
    ok = a.n == b.n && a.first_open == b.first_open && a.frontier == b.frontier;
    for (i = 0; ok && i < a.n; i++)
        ok = a.m[i].host_id == b.m[i].host_id && a.m[i].unsent == b.m[i].unsent;
    if (!ok) {
        printf("# %s, host %d of user %d near %d: reference %d members, open %d, frontier %d;"
               " read %d members, open %d, frontier %d\n", state, hostid, userid, near, a.n,
               a.first_open, a.frontier, b.n, b.first_open, b.frontier);
        for (i = 0; i < a.n || i < b.n; i++)
            printf("#   member %d: reference host %d unsent %d; read host %d unsent %d\n", i,
                   i < a.n ? a.m[i].host_id : 0, i < a.n ? a.m[i].unsent : 0,
                   i < b.n ? b.m[i].host_id : 0, i < b.n ? b.m[i].unsent : 0);
    }
    return ok;
}

/* ---- states ---- */

static int host_of(int i)
{
    return 910001 + i;
}

static int user_of(int i)
{
    return users[i % 4];
}

static void member(int i, int batch, int cursor, int first, int last)
{
    int hostid = host_of(i), userid = user_of(i);
    struct db_val h[] = { DBV_INT(hostid), DBV_INT(userid) };
    struct db_val m[] = { DBV_INT(hostid), DBV_INT(batch), DBV_INT(cursor), DBV_INT(userid),
                          DBV_INT(first), DBV_INT(last), DBV_INT(cursor), DBV_INT(first),
                          DBV_INT(last) };
    tu_exec(&ctx, 140, "INSERT IGNORE INTO host (id, userid) VALUES (?, ?)", h, 2, "make a host");
    tu_exec(&ctx, 147,
            "INSERT INTO batch_host (host_id, batch_id, cursor_id, userid, stretch_first, "
            "stretch_last) VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE cursor_id = ?, "
            "stretch_first = ?, stretch_last = ?",
            m, 9, "make a member");
}

static void leave(int i, int batch)
{
    int hostid = host_of(i);
    struct db_val p[] = { DBV_INT(hostid), DBV_INT(batch) };
    tu_exec(&ctx, 142, "DELETE FROM batch_host WHERE host_id = ? AND batch_id = ?", p, 2,
            "remove a member");
}

/* Host i is sent an unsent replica of job j, unless its user has one. */
static void send_job(int i, int cursor, int j)
{
    int hostid = host_of(i), userid = user_of(i);
    struct db_val p[] = { DBV_INT(hostid), DBV_INT(userid), DBV_INT(cursor), DBV_INT(j),
                          DBV_INT(userid) };
    tu_exec(&ctx, 148,
            "UPDATE result r SET r.server_state = 4, r.hostid = ?, r.userid = ? "
            "WHERE r.cursor_id = ? AND r.job_num = ? AND r.server_state = 2 "
            "AND NOT EXISTS (SELECT 1 FROM result o WHERE o.workunitid = r.workunitid "
            "                AND o.userid = ?) "
            "ORDER BY r.id LIMIT 1",
            p, 5, "send a result");
}

/* The result of job j that host i holds becomes over (reported). */
static void report_job(int i, int cursor, int j)
{
    int hostid = host_of(i);
    struct db_val p[] = { DBV_INT(cursor), DBV_INT(j), DBV_INT(hostid) };
    tu_exec(&ctx, 149,
            "UPDATE result SET server_state = 5 WHERE cursor_id = ? AND job_num = ? "
            "AND hostid = ? AND server_state = 4",
            p, 3, "report a result");
}

static void set_frontier(int cursor, int frontier)
{
    struct db_val p[] = { DBV_INT(frontier), DBV_INT(cursor) };
    tu_exec(&ctx, 145, "UPDATE locality_cursor SET next_stretch_job_num = ? WHERE id = ?", p, 2,
            "move the frontier");
}

/* Every deciding host and a few near jobs: the number of disagreements. */
static int compare_all(int cursor, const char *state)
{
    static const int nears[] = { 0, 7, 15, 29, 40 };
    int i, k, bad = 0;
    for (i = 0; i < NHOSTS + 1; i++)
        for (k = 0; k < 5; k++)
            bad += !same(cursor, host_of(i), user_of(i), nears[k], state);
    return bad;
}

/* ---- handler counters of this connection ---- */

static long long status_of(const char *name)
{
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT CAST(VARIABLE_VALUE AS SIGNED) + 0 * ? FROM information_schema.SESSION_STATUS "
             "WHERE VARIABLE_NAME = '%s'", name);
    return tu_scalar(&ctx, strcmp(name, "HANDLER_READ_KEY") == 0 ? 150 : 151, sql, 0);
}

/* Index entries (read_key + read_next) a call of read() costs. */
static long long index_reads(void (*read)(int, int, int, int, struct read *), int cursor,
                             int hostid, int userid)
{
    struct read r;
    long long k0, n0, k1, n1, k2, n2;
    k0 = status_of("HANDLER_READ_KEY");
    n0 = status_of("HANDLER_READ_NEXT");
    k1 = status_of("HANDLER_READ_KEY");    /* what reading the counters costs */
    n1 = status_of("HANDLER_READ_NEXT");
    read(cursor, hostid, userid, 0, &r);
    k2 = status_of("HANDLER_READ_KEY");
    n2 = status_of("HANDLER_READ_NEXT");
    return (k2 - k1) + (n2 - n1) - ((k1 - k0) + (n1 - n0));
}

int main(void)
{
    char name[64], auth[65];
    int cursor, batch, i, round, bad;
    unsigned seed = 4242;

    tu_ctx_open(&ctx);
    tu_app(&ctx, NULL);
    for (i = 0; i < 4; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "stretch-pass-%d", i);
        users[i] = tu_user(&ctx, tag, auth);
    }
    batch = tu_generated_locality_batch(&ctx, "sp", NJOBS, 2, name, sizeof name, &cursor);
    TAP_EQ_INT(tu_scalar(&ctx, 144,
                         "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND server_state = 2",
                         cursor),
               2 * NJOBS, "the work generator made R = 2 results of each job");
    set_frontier(cursor, NJOBS);

    /* the states of test_stretch_open (hosts 0, 1 of users 0, 1; 2 of user 2) */
    member(0, batch, cursor, 0, NJOBS - 1);
    TAP_EQ_INT(compare_all(cursor, "an unstaffed lane"), 0, "an unstaffed lane: the same");
    member(1, batch, cursor, 0, NJOBS - 1);
    TAP_EQ_INT(compare_all(cursor, "two lanes"), 0, "two lanes staffed: the same");
    for (i = 0; i < NJOBS; i++)
        send_job(0, cursor, i);
    member(0, batch, cursor, NJOBS + 5, NJOBS + 9);
    TAP_EQ_INT(compare_all(cursor, "moved past"), 0, "a member moved past its jobs: the same");
    member(0, batch, cursor, 0, NJOBS - 1);
    TAP_EQ_INT(compare_all(cursor, "back"), 0, "a member back on jobs it holds: the same");
    leave(1, batch);
    TAP_EQ_INT(compare_all(cursor, "left"), 0, "a member that left: the same");
    member(1, batch, cursor, 15, NJOBS - 1);
    send_job(1, cursor, 15);
    TAP_EQ_INT(compare_all(cursor, "upper half"), 0, "the upper half staffed: the same");
    for (i = 0; i < 15; i++)
        send_job(6, cursor, i);
    TAP_EQ_INT(compare_all(cursor, "lower half sent"), 0, "the lower half sent: the same");
    {
        struct read r;
        new_read(cursor, host_of(2), user_of(2), 0, &r);
        TAP_EQ_INT(r.first_open, -1, "...and nothing open, as test_stretch_open has it");
    }

    /* random states: members join, move and leave, replicas go out and
     * come back, the frontier moves back to job 20 half way (stretches
     * stay below it, as the scheduler cuts them) */
    bad = 0;
    for (round = 0; round < 60; round++) {
        int op = (int)(rand_r(&seed) % 10), h = (int)(rand_r(&seed) % NHOSTS);
        int j = (int)(rand_r(&seed) % NJOBS), top = round < 30 ? NJOBS : 25;
        char state[64];
        if (round == 30) {
            set_frontier(cursor, top);
            for (i = 0; i < NHOSTS; i++)
                member(i, batch, cursor, i * 2, i * 2 + 4 < top ? i * 2 + 4 : top - 1);
        }
        if (op < 4) {
            int first = (int)(rand_r(&seed) % (unsigned)top), len = (int)(rand_r(&seed) % 12);
            member(h, batch, cursor, first, first + len < top ? first + len : top - 1);
        } else if (op < 5) {
            member(h, batch, cursor, -1, -1);
        } else if (op < 6) {
            leave(h, batch);
        } else if (op < 9) {
            int k;
            for (k = 0; k < 2 && j + k < NJOBS; k++)
                send_job(h, cursor, j + k);
        } else {
            report_job(h, cursor, j);
        }
        snprintf(state, sizeof state, "random round %d (op %d)", round, op);
        bad += compare_all(cursor, state);
    }
    TAP_EQ_INT(bad, 0, "60 random states, 9 deciding hosts and 5 near jobs each: the same");
    printf("# %lld of %d results left unsent by the random states\n",
           tu_scalar(&ctx, 144,
                     "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND server_state = 2",
                     cursor),
           2 * NJOBS);
    tu_retire_batches_from(&ctx, batch);

    /* the index entries each form reads: a fresh cursor of 100 jobs, a
     * team of 8 in two lanes of four stretches, each 10 jobs into them */
    batch = tu_generated_locality_batch(&ctx, "spmid", 100, 2, name, sizeof name, &cursor);
    set_frontier(cursor, 100);
    for (i = 0; i < NHOSTS; i++) {
        int k;
        member(i, batch, cursor, (i % 4) * 25, (i % 4) * 25 + 24);
        for (k = 0; k < 10; k++)
            send_job(i, cursor, (i % 4) * 25 + k);
    }
    {
        long long old_reads = index_reads(ref_read, cursor, host_of(NHOSTS), user_of(0));
        long long new_reads = index_reads(new_read, cursor, host_of(NHOSTS), user_of(0));
        long long unsent = tu_scalar(&ctx, 144,
                                     "SELECT COUNT(*) FROM result WHERE cursor_id = ? "
                                     "AND server_state = 2",
                                     cursor), low, low_reads, members;
        TAP_CHECK(same(cursor, host_of(NHOSTS), user_of(0), 0, "a team of 8"),
                  "a team of 8 on 100 jobs: the same");
        printf("# index entries read (read_key + read_next): %lld by the correlated "
               "statement, %lld by the pass (%lld unsent results, %d members)\n",
               old_reads, new_reads, unsent, NHOSTS);
        /* the pass: per unsent result below the frontier, its entry, a key
         * and the R entries of its workunit's results; the team: its
         * entries and its hosts' keys, or the whole of batch_host when
         * MariaDB takes the primary key for host_id <> ? (on a small
         * table, as it did for the replaced statement) */
        members = tu_scalar(&ctx, 157, "SELECT COUNT(*) + 0 * ? FROM batch_host", 0);
        TAP_CHECK(new_reads <= 4 * unsent + 2 * members + 4 * NHOSTS + 20,
                  "the pass reads at most 4 index entries per unsent result, and the team "
                  "(%lld, %lld rows in batch_host)", new_reads, members);
        TAP_CHECK(new_reads * 2 < old_reads,
                  "less than half of the correlated statement's (%lld)", old_reads);
        /* with the frontier at job 30, nothing above it is read */
        set_frontier(cursor, 30);
        low = tu_scalar(&ctx, 155,
                        "SELECT COUNT(*) FROM result WHERE cursor_id = ? AND server_state = 2 "
                        "AND job_num < 30",
                        cursor);
        low_reads = index_reads(new_read, cursor, host_of(NHOSTS), user_of(0));
        TAP_CHECK(low_reads <= 4 * low + 2 * members + 4 * NHOSTS + 20,
                  "frontier at 30: %lld entries for the %lld unsent results below it",
                  low_reads, low);
        {
            /* a stretch reaching past the frontier (the scheduler cuts none:
             * a test state) is counted below it, where the pass reads */
            struct read a, b;
            int k, ka;
            ref_read(cursor, host_of(NHOSTS), user_of(0), 0, &a);
            new_read(cursor, host_of(NHOSTS), user_of(0), 0, &b);
            for (k = 0; k < b.n && b.m[k].host_id != host_of(1); k++)
                ;
            TAP_CHECK(k < b.n && b.m[k].unsent == (int)tu_scalar(&ctx, 156,
                                  "SELECT COUNT(*) FROM result WHERE cursor_id = ? "
                                  "AND server_state = 2 AND job_num BETWEEN 25 AND 29",
                                  cursor),
                      "frontier at 30: a stretch of jobs 25..49 counts the unsent results "
                      "of jobs 25..29");
            for (k = 0; k < b.n && b.m[k].host_id != host_of(0); k++)
                ;
            for (ka = 0; ka < a.n && a.m[ka].host_id != host_of(0); ka++)
                ;
            TAP_CHECK(k < b.n && ka < a.n && b.m[k].unsent == a.m[ka].unsent,
                      "...and one of jobs 0..24 all of them");
            TAP_EQ_INT(b.first_open, a.first_open, "...and the same first open job");
        }
    }
    tu_retire_batches_from(&ctx, batch);

    /* a cursor larger than the pass (2,000 rows: 500 jobs of R = 2 never
     * sent, so jobs 0..498 are the window): the counts are the same (R per
     * job above the window is exact for jobs never sent); open work is
     * looked for in the window only.  Members 0..3 cover jobs 0..99,
     * 400..499, 0..549 and 100..299: for host 7, whose user is member 3's,
     * jobs 300..399 and 500..549 are open */
    {
        int big = 550, c2, b2;
        struct read r;
        b2 = tu_generated_locality_batch(&ctx, "spbig", big, 2, name, sizeof name, &c2);
        set_frontier(c2, big);
        tu_work_generator_pass();
        tu_work_generator_pass();
        TAP_EQ_INT(tu_scalar(&ctx, 144,
                             "SELECT COUNT(*) FROM result WHERE cursor_id = ? "
                             "AND server_state = 2",
                             c2),
                   2 * big, "the big cursor has all its jobs generated");
        member(0, b2, c2, 0, 99);
        member(1, b2, c2, 400, 499);
        member(2, b2, c2, 0, big - 1);
        member(3, b2, c2, 100, 299);
        TAP_CHECK(same(c2, host_of(7), user_of(7), 0, "big cursor"),
                  "a cut pass: the same counts and first open job near job 0");
        TAP_CHECK(same(c2, host_of(7), user_of(7), 350, "big cursor"),
                  "...and near job 350, inside the window");
        new_read(c2, host_of(7), user_of(7), 0, &r);
        TAP_EQ_INT(r.first_open, 300, "(which is job 300)");
        new_read(c2, host_of(7), user_of(7), 520, &r);
        TAP_EQ_INT(r.first_open, 300, "near job 520, past the window: the lowest open job in it");
        ref_read(c2, host_of(7), user_of(7), 520, &r);
        TAP_EQ_INT(r.first_open, 520, "(the correlated statement found 520)");
        tu_retire_batches_from(&ctx, b2);
    }

    sched_ctx_free(&ctx);
    return tap_done();
}
