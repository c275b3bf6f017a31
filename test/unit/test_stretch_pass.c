/*
 * test_stretch_pass.c - the stretch read's counts from one pass over a
 * cursor's unsent results (db/db_stretch_pass.c): hand-built cases, then
 * random states checked against the rules written out one by one, as
 * the statement before the pass computed them (a correlated count per
 * member and per unsent job), and the window when the pass is cut.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "db_stretch_pass.h"
#include "tap.h"

/* A result of the model: the table the pass is read from. */
struct res {
    int id, wu, job;
    int unsent;
    int host, user;
};

#define MAXRES 400
#define MAXMEM 12
#define MAXROWS 4000

static struct res res[MAXRES];
static int nres;
static struct sp_member mem[MAXMEM];
static int nmem;
static struct sp_row rows[MAXROWS];

static void add_res(int wu, int job, int unsent, int host, int user)
{
    struct res *r = &res[nres];
    r->id = ++nres;
    r->wu = wu;
    r->job = job;
    r->unsent = unsent;
    r->host = host;
    r->user = user;
}

static void add_member(int host, int same_user, int first, int last)
{
    mem[nmem].host_id = host;
    mem[nmem].same_user = same_user;
    mem[nmem].first = first;
    mem[nmem].last = last;
    mem[nmem].unsent = -1;
    nmem++;
}

/* The pass as the statement returns it: each unsent result below the
 * frontier with each result of its workunit, in job order, at most cap
 * rows (the order within a job shuffled, as SQL leaves it); *truncated
 * when the cap was reached. */
static int make_rows(int frontier, int user, int cap, int *truncated, unsigned *seed)
{
    int n = 0, i, k, j, lo = 0;
    for (j = 0; j < frontier && n < cap; j++) {
        lo = n;
        for (i = 0; i < nres && n < cap; i++) {
            if (!res[i].unsent || res[i].job != j)
                continue;
            for (k = 0; k < nres && n < cap; k++) {
                if (res[k].wu != res[i].wu)
                    continue;
                rows[n].job_num = j;
                rows[n].result_id = res[i].id;
                rows[n].other_unsent = res[k].unsent;
                rows[n].other_host = res[k].host;
                rows[n].other_user = res[k].user == user;
                n++;
            }
        }
        for (i = n - 1; i > lo; i--) {   /* any order within the job */
            int t = lo + (int)(rand_r(seed) % (unsigned)(i - lo + 1));
            struct sp_row x = rows[i];
            rows[i] = rows[t];
            rows[t] = x;
        }
    }
    *truncated = n >= cap;
    return n;
}

/* The rules one by one, as the statement before the pass computed them. */
static int holds(int wu, int host)
{
    int i;
    for (i = 0; i < nres; i++)
        if (res[i].wu == wu && res[i].host == host)
            return 1;
    return 0;
}

static int expect_unsent(const struct sp_member *m)
{
    int i, k = 0;
    if (m->first < 0)
        return 0;
    for (i = 0; i < nres; i++)
        if (res[i].unsent && m->first <= res[i].job && res[i].job <= m->last)
            k++;
    return k;
}

static int is_open(const struct res *r, int user)
{
    int i, cover = 0, unsent = 0;
    for (i = 0; i < nres; i++)
        if (res[i].wu == r->wu && res[i].user == user)
            return 0;
    for (i = 0; i < nmem; i++)
        if (mem[i].same_user && mem[i].first <= r->job && r->job <= mem[i].last)
            return 0;
    for (i = 0; i < nmem; i++)
        if (mem[i].first >= 0 && mem[i].first <= r->job && r->job <= mem[i].last &&
            !holds(r->wu, mem[i].host_id))
            cover++;
    for (i = 0; i < nres; i++)
        unsent += res[i].wu == r->wu && res[i].unsent;
    return cover < unsent;
}

/* ORDER BY job < near, job LIMIT 1 over the open unsent results below
 * the frontier (and below top, the window, when the pass was cut) */
static int expect_open(int frontier, int near, int user, int top)
{
    int i, best = -1;
    for (i = 0; i < nres; i++) {
        const struct res *r = &res[i];
        if (!r->unsent || r->job >= frontier || r->job >= top || !is_open(r, user))
            continue;
        if (best < 0 || ((r->job < near) < (best < near)) ||
            ((r->job < near) == (best < near) && r->job < best))
            best = r->job;
    }
    return best;
}

static void reset(void)
{
    nres = 0;
    nmem = 0;
}

static int run(int frontier, int near, int user, int r, int cap)
{
    struct sp_cursor c;
    int truncated, n;
    unsigned seed = 7;
    n = make_rows(frontier, user, cap, &truncated, &seed);
    c.frontier = frontier;
    c.replication = r;
    c.near_job = near;
    c.truncated = truncated;
    return stretch_pass(rows, n, &c, mem, nmem);
}

/* Jobs 0..njobs-1, one workunit each, with R unsent results. */
static void fresh(int njobs, int r)
{
    int j, k;
    for (j = 0; j < njobs; j++)
        for (k = 0; k < r; k++)
            add_res(100 + j, j, 1, 0, 0);
}

/* The first unsent result of job j goes to host of user. */
static void send(int j, int host, int user)
{
    int i;
    for (i = 0; i < nres; i++)
        if (res[i].job == j && res[i].unsent) {
            res[i].unsent = 0;
            res[i].host = host;
            res[i].user = user;
            return;
        }
}

static void test_cases(void)
{
    /* the cases of test/db/test_stretch_open: 10 jobs, R = 2, hosts X (1,
     * user 11), Y (2, user 12); the deciding host is of user 13 */
    int j;
    reset();
    fresh(10, 2);
    add_member(1, 0, 0, 9);
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), 0, "an unstaffed lane is open work");
    TAP_EQ_INT(mem[0].unsent, 20, "the member's stretch holds all 20 unsent results");
    add_member(2, 0, 0, 9);
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), -1, "two lanes staffed: nothing open");
    for (j = 0; j < 10; j++)
        send(j, 1, 11);
    mem[0].first = 15;
    mem[0].last = 19;
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), -1, "jobs a member moved past, whose other replica "
                                            "a member still covers, are not open");
    TAP_EQ_INT(mem[0].unsent, 0, "a stretch past the cursor's jobs has no unsent result");
    TAP_EQ_INT(mem[1].unsent, 10, "the other member's stretch: one unsent result per job");
    mem[0].first = 0;
    mem[0].last = 9;
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), -1, "a member holding a job's result plus one that "
                                            "does not: the one unsent is staffed");
    nmem = 1;                      /* Y leaves */
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), 0, "a member that left: its jobs are open");
    TAP_EQ_INT(run(10, 0, 11, 2, 1000), -1, "not open to the user holding a replica");
    add_member(2, 0, 5, 9);
    send(5, 2, 12);
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), 0, "the lower half, unstaffed, is open");
    for (j = 0; j < 5; j++)
        send(j, 4, 13);
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), -1,
               "nothing open once the lower half is sent and the upper is staffed");

    /* near_job, the frontier, the own user's members */
    reset();
    fresh(10, 2);
    add_member(1, 0, 0, 9);
    TAP_EQ_INT(run(10, 6, 13, 2, 1000), 6, "the first open job at or after near_job");
    TAP_EQ_INT(run(10, 12, 13, 2, 1000), 0, "none after near_job: the lowest");
    TAP_EQ_INT(run(4, 6, 13, 2, 1000), 0, "only jobs below the frontier");
    TAP_EQ_INT(mem[0].unsent, 8, "a count is of the pass: the unsent results below the frontier");
    add_member(3, 1, -1, -1);
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), 0, "a member of the user without a stretch covers "
                                           "nothing");
    mem[1].first = 0;
    mem[1].last = 3;
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), 4, "jobs a member of the user covers are not open");
    TAP_EQ_INT(mem[1].unsent, 8, "a member of the user is counted too");
    mem[1].first = -1;
    mem[1].last = 3;
    TAP_EQ_INT(run(10, 0, 13, 2, 1000), 4, "a member of the user covers its range even "
                                           "without a stretch_first, as the statement did");
    TAP_EQ_INT(mem[1].unsent, 0, "...but has no unsent count without a stretch");

    /* a cut pass: 10 fresh jobs of 4 rows each, cap 18 rows: jobs 0..3
     * read whole, job 4 cut, so the window is jobs 0..3 */
    reset();
    fresh(10, 2);
    add_member(1, 0, 0, 9);
    add_member(2, 0, 0, 3);
    add_member(3, 0, 6, 9);
    TAP_EQ_INT(run(10, 0, 13, 2, 18), -1, "the window is staffed twice: nothing open in it");
    TAP_EQ_INT(mem[0].unsent, 8 + 6 * 2, "beyond the window, R unsent results per job");
    TAP_EQ_INT(mem[1].unsent, 8, "a stretch inside the window is counted");
    TAP_EQ_INT(mem[2].unsent, 4 * 2, "a stretch beyond the window: R per job");
    TAP_EQ_INT(run(10, 5, 13, 2, 18), -1, "open work past the window is not looked for");
    mem[1].last = 1;
    TAP_EQ_INT(run(10, 5, 13, 2, 18), 2, "open work in the window: the lowest, when "
                                         "near_job is past it");
    TAP_EQ_INT(run(10, 0, 13, 2, 16), 2, "a cap at the end of a job: that job is cut too");
    TAP_EQ_INT(mem[0].unsent, 6 + 7 * 2, "...and counted as beyond the window");
    TAP_EQ_INT(run(10, 0, 13, 2, 3), -1, "a pass shorter than one job: no window");
    TAP_EQ_INT(mem[0].unsent, 20, "...every job of a stretch at R");
}

/* Random states: exact against the rules when the pass is whole; when it
 * is cut, exact inside the window and R per job above it. */
static void test_random(void)
{
    unsigned seed = 12345;
    int round, bad_open = 0, bad_count = 0, cut = 0, whole = 0, opens = 0;

    for (round = 0; round < 3000; round++) {
        int njobs = 1 + (int)(rand_r(&seed) % 25), r = 1 + (int)(rand_r(&seed) % 3);
        int frontier = (int)(rand_r(&seed) % (unsigned)(njobs + 3));
        int near = (int)(rand_r(&seed) % (unsigned)(njobs + 2));
        int user = 1 + (int)(rand_r(&seed) % 4), i, j, k, got, want, n, truncated, top;
        int cap = rand_r(&seed) % 3 == 0 ? 1 + (int)(rand_r(&seed) % 60) : MAXROWS;
        struct sp_cursor c;
        unsigned shuffle = seed;

        reset();
        for (j = 0; j < njobs; j++)
            for (k = 0; k < r + (int)(rand_r(&seed) % 2); k++) {
                int state = (int)(rand_r(&seed) % 3);   /* unsent, sent, sent to a member */
                int host = state == 0 ? 0 : 1 + (int)(rand_r(&seed) % 10);
                add_res(1000 + j, j, state == 0, host, host ? 1 + host % 4 : 0);
            }
        for (i = (int)(rand_r(&seed) % MAXMEM); i > 0; i--) {
            int host = 1 + (int)(rand_r(&seed) % 10), first = -1, last = -1;
            if (rand_r(&seed) % 5) {
                first = (int)(rand_r(&seed) % (unsigned)(njobs + 2));
                last = first + (int)(rand_r(&seed) % 8) - 1;
            }
            add_member(host, 1 + host % 4 == user, first, last);
        }
        n = make_rows(frontier, user, cap, &truncated, &shuffle);
        c.frontier = frontier;
        c.replication = r;
        c.near_job = near;
        c.truncated = truncated;
        top = INT_MAX;
        if (truncated) {
            for (i = 0, top = -1; i < n; i++)
                top = rows[i].job_num > top ? rows[i].job_num : top;
            cut++;
        } else {
            whole++;
        }
        got = stretch_pass(rows, n, &c, mem, nmem);
        want = expect_open(frontier, near, user, top);
        opens += want >= 0;
        if (got != want && bad_open++ < 5)
            printf("# round %d: first open %d, want %d\n", round, got, want);
        for (i = 0; i < nmem; i++) {
            struct sp_member w = mem[i];
            long long beyond = 0;
            if (w.first >= 0 && w.last >= top) {
                /* above the window, up to the frontier: R each; the rest exact */
                int lo = w.first > top ? w.first : top;
                int hi = w.last < frontier - 1 ? w.last : frontier - 1;
                beyond = hi >= lo ? (long long)(hi - lo + 1) * r : 0;
                w.last = top - 1;
            }
            if (w.first >= 0 && w.last >= frontier)
                w.last = frontier - 1;   /* the pass is below the frontier */
            want = expect_unsent(&w) + (int)beyond;
            if (mem[i].unsent != want && bad_count++ < 5)
                printf("# round %d: member %d counts %d, want %d\n", round, i, mem[i].unsent,
                       want);
        }
    }
    TAP_CHECK(whole > 1000 && cut > 200 && opens > 500 && opens < round - 500,
              "random states: %d whole passes, %d cut, %d with an open job", whole, cut, opens);
    TAP_EQ_INT(bad_open, 0, "the first open job is the rules' in every random state");
    TAP_EQ_INT(bad_count, 0, "the members' counts are the rules' in every random state");
}

int main(void)
{
    test_cases();
    test_random();
    return tap_done();
}
