/*
 * test_locality_logic.c - the pure parts of locality scheduling: credit
 * arithmetic, host-to-cursor choice (team rules, the 0.5 rule and its
 * hysteresis), the sticky-file ordering of a window, and cutting a batch
 * into cursors.
 */
#include <math.h>
#include <string.h>

#include "credit.h"
#include "cursor_choice.h"
#include "cursor_plan.h"
#include "locality_pick.h"
#include "tap.h"

/* ---- credit ---- */

static void test_credit(void)
{
    double avg = 0, t = 0;
    struct host_speed h;
    int d;

    TAP_EQ_DBL(credit_of_fpops(86400e9), 200, 1e-9, "a GFLOPS-day is 200 credits");
    TAP_EQ_DBL(credit_of_fpops(NAN), 0, 0, "NaN fpops: no credit");
    TAP_EQ_DBL(credit_of_fpops(-5), 0, 0, "negative fpops: no credit");
    TAP_EQ_DBL(credit_decay(100, 1000, 1000 + 604800, 604800), 50, 1e-9,
               "one half-life halves the average");
    TAP_EQ_DBL(credit_decay(100, 1000, 500, 604800), 100, 0, "a clock going back: no change");
    for (d = 1; d <= 200; d++)
        credit_update_average(&avg, &t, 100, d * 86400.0, 604800);
    TAP_EQ_DBL(avg, 100, 1, "100 credits a day converge to a rate of 100/day (got %g)", avg);
    TAP_EQ_DBL(t, 200 * 86400.0, 0, "expavg_time is the last update");

    memset(&h, 0, sizeof h);
    h.p_fpops = 1e9;
    h.p_ncpus = 4;
    h.on_frac = 1;
    h.active_frac = 1;
    TAP_EQ_DBL(host_credit_rate(&h, 0, 604800), 800, 1e-9, "4 GFLOPS bench: 800/day");
    h.on_frac = 0.5;
    TAP_EQ_DBL(host_credit_rate(&h, 0, 604800), 400, 1e-9, "on half the time: 400/day");
    h.gpu_flops = 4e9;
    h.gpu_active_frac = 0.5;
    TAP_EQ_DBL(host_credit_rate(&h, 0, 604800), 600, 1e-9,
               "a GPU of 4 GFLOPS, on half the time and usable half of that: +200/day");
    h.gpu_active_frac = NAN;
    TAP_EQ_DBL(host_credit_rate(&h, 0, 604800), 800, 1e-9, "gpu_active_frac NaN counts as 1");
    h.gpu_flops = -1;
    TAP_EQ_DBL(host_credit_rate(&h, 0, 604800), 400, 1e-9, "negative GPU flops: no GPU");
    h.gpu_flops = INFINITY;
    TAP_EQ_DBL(host_credit_rate(&h, 0, 604800), 400, 1e-9, "infinite GPU flops: no GPU");
    h.gpu_flops = 0;
    h.expavg_credit = 1000;
    h.expavg_time = 100;
    TAP_EQ_DBL(host_credit_rate(&h, 100, 604800), 1000, 1e-9, "a larger average wins");
    h.p_fpops = NAN;
    h.expavg_credit = NAN;
    TAP_EQ_DBL(host_credit_rate(&h, 100, 604800), 0, 0, "NaN inputs: rate 0");
    TAP_EQ_DBL(est_time_left(0, 0), 0, 0, "nothing left: 0");
    TAP_CHECK(isinf(est_time_left(10, 0)), "work left, empty team: infinite");
    TAP_EQ_DBL(est_time_left(100, 50), 2, 1e-12, "100 credits at 50/day: 2 days");
}

/* ---- cursor choice ---- */

static struct cc_params params(void)
{
    struct cc_params p = { 10, 0.5, 3600 };
    return p;
}

static struct cc_cursor cur(double remaining, double rate, int nhosts, int user_in_team)
{
    struct cc_cursor c;
    memset(&c, 0, sizeof c);
    c.remaining_credit = remaining;
    c.expavg_credit = rate;
    c.max_host_credit = nhosts ? rate / nhosts : 0;
    c.nhosts = nhosts;
    c.user_in_team = user_in_team;
    return c;
}

static struct cc_host new_host(double rate)
{
    struct cc_host h;
    memset(&h, 0, sizeof h);
    h.current = -1;
    h.rate = rate;
    h.now = 100000;
    return h;
}

static struct cc_host member(int current, double rate, long long assign_time)
{
    struct cc_host h = new_host(rate);
    h.current = current;
    h.rate_counted = rate;
    h.assign_time = assign_time;
    return h;
}

static void test_choice_new_host(void)
{
    struct cc_params p = params();
    struct cc_cursor cs[4];
    struct cc_host h = new_host(1);
    struct cc_choice ch;

    cs[0] = cur(100, 0, 0, 0);
    cs[1] = cur(100, 0, 0, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_JOIN, "a new host joins");
    TAP_EQ_INT(ch.cursor, 0, "all teams empty: the first cursor");

    cs[0] = cur(100, 10, 4, 0);    /* est 10 */
    cs[1] = cur(100, 20, 8, 0);    /* est 5 */
    cs[2] = cur(100, 0, 0, 0);     /* est inf */
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.cursor, 1, "the least est_time_left");
    TAP_EQ_INT(ch.violations, 0, "no rule given up");

    cs[1].user_in_team = 1;
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.cursor, 0, "a team with a host of the same user is avoided");

    cs[0].user_in_team = 1;
    cs[2].user_in_team = 1;
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.cursor, 1, "every team has the user: least est again");
    TAP_EQ_INT(ch.violations, CC_VIOL_USER, "and the user rule is reported given up");

    cs[0] = cur(100, 10, 10, 0);   /* full */
    cs[1] = cur(100, 80, 3, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.cursor, 1, "a full team is skipped");
    cs[1] = cur(100, 80, 10, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_JOIN, "all full: still joins one");
    TAP_EQ_INT(ch.violations & CC_VIOL_SIZE, CC_VIOL_SIZE, "with the size rule given up");

    /* speed: two members of rate 1 each; a host of rate 5 would be faster
     * than the two together */
    cs[0] = cur(100, 2, 2, 0);     /* est 50 */
    cs[1] = cur(100, 1, 1, 0);     /* est 100: a team of two is exempt */
    h = new_host(5);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.cursor, 1, "the speed rule sends a fast host elsewhere");
    TAP_EQ_INT(cc_violations(&cs[0], 5, &p), CC_VIOL_SPEED, "rate 5 vs 1+1: speed violated");
    TAP_EQ_INT(cc_violations(&cs[0], 2, &p), 0, "rate 2 vs 1+1: allowed");

    cs[0] = cur(0, 5, 3, 0);
    cs[1] = cur(0, 0, 0, 0);
    h = new_host(1);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_NONE, "every cursor finished: nothing to join");
}

static void test_choice_moves(void)
{
    struct cc_params p = params();
    struct cc_cursor cs[3];
    struct cc_host h;
    struct cc_choice ch;

    /* C: 100 credits at 100/day (est 1) with 4 members; D: 300 at 100/day
     * (est 3) */
    cs[0] = cur(100, 100, 4, 0);
    cs[1] = cur(300, 100, 4, 0);
    h = member(0, 25, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "est(C) 1 < 0.5 * est(D) 3: move");
    TAP_EQ_INT(ch.cursor, 1, "to D");
    TAP_EQ_INT(ch.from, 0, "from C");

    h = member(0, 25, h.now - 10);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "joined 10 s ago: stays (minimum interval)");

    cs[1] = cur(180, 100, 4, 0);   /* est 1.8: not more than twice C's */
    h = member(0, 25, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "est(C) 1 >= 0.5 * est(D) 1.8: stays");

    /* hysteresis: C (2 credits at 2/day, est 1), D (2.5 at 1/day, est 2.5):
     * the 0.5 rule holds, but after the move C (2 at 1/day) would be
     * slower than D (2.5 at 2/day) */
    cs[0] = cur(2, 2, 2, 0);
    cs[1] = cur(2.5, 1, 1, 0);
    h = member(0, 1, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "a move that would make C the slower one is not made");

    /* an empty team elsewhere pulls a member of a team of three */
    cs[0] = cur(100, 30, 3, 0);
    cs[1] = cur(100, 0, 0, 0);
    h = member(0, 10, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "an empty team with work left gets a member");
    /* but the last member of a team does not leave it */
    cs[0] = cur(100, 10, 1, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "the only member of a team stays");

    /* a finished cursor is left at once, whatever the interval */
    cs[0] = cur(0, 30, 3, 0);
    cs[1] = cur(50, 100, 4, 0);
    cs[2] = cur(80, 100, 4, 0);
    h = member(0, 10, h.now - 5);
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "finished cursor: move at once");
    TAP_EQ_INT(ch.cursor, 2, "to the greatest est_time_left");

    cs[1] = cur(50, 100, 10, 0);
    cs[2] = cur(80, 100, 10, 0);
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "finished cursor, all others full: still moves");
    TAP_EQ_INT(ch.cursor, 2, "to the team that needs it most");

    cs[1] = cur(0, 100, 4, 0);
    cs[2] = cur(0, 100, 4, 0);
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_NONE, "everything finished: nowhere to go");

    /* the user rule kept in C is not given up by a move */
    cs[0] = cur(100, 100, 4, 0);
    cs[1] = cur(300, 100, 4, 1);
    h = member(0, 25, 0);
    cursor_choose(cs, 2, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "no move into a team that has the user");
}

/* A cursor with nothing unsent is no target; a starved host moves at once
 * to the neediest cursor that has unsent work, or stays. */
static void test_choice_starved(void)
{
    struct cc_params p = params();
    struct cc_cursor cs[3];
    struct cc_host h;
    struct cc_choice ch;

    /* C est 1, D est 3 with nothing unsent, E est 2.5 */
    cs[0] = cur(100, 100, 4, 0);
    cs[1] = cur(300, 100, 4, 0);
    cs[1].nothing_unsent = 1;
    cs[2] = cur(250, 100, 4, 0);
    h = member(0, 25, 0);
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "the 0.5 rule moves the host");
    TAP_EQ_INT(ch.cursor, 2, "to the neediest cursor with unsent work, not D");

    /* starved: at once, whatever the interval and the 0.5 rule */
    cs[2] = cur(150, 100, 4, 0);   /* est 1.5: not twice C's */
    h = member(0, 25, h.now - 10);
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "not starved: stays");
    h.starved = 1;
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "starved: moves at once");
    TAP_EQ_INT(ch.cursor, 2, "to the cursor with unsent work");

    cs[2] = cur(150, 100, 10, 1);  /* full, and has the user */
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "starved: moves to a full team with work");
    TAP_EQ_INT(ch.cursor, 2, "the only one with unsent work");

    cs[2].nothing_unsent = 1;
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_STAY, "starved, no cursor with unsent work: stays");
    TAP_EQ_INT(ch.cursor, 0, "in its own");

    /* a finished cursor is still left when no cursor has unsent work */
    cs[0] = cur(0, 100, 4, 0);
    h.starved = 0;
    cursor_choose(cs, 3, &h, &p, &ch);
    TAP_EQ_INT(ch.action, CC_MOVE, "finished, nothing unsent anywhere: moves");
    TAP_EQ_INT(ch.cursor, 1, "to the neediest");
}

/* ---- sticky preference ---- */

struct fake_files {
    int held[64];
    double size[64];
};

static int fake_held(void *ctx, int batch_id, int file_num)
{
    (void)batch_id;
    return ((struct fake_files *)ctx)->held[file_num];
}

static double fake_size(void *ctx, int batch_id, int file_num)
{
    (void)batch_id;
    return ((struct fake_files *)ctx)->size[file_num];
}

static void test_pick(void)
{
    struct fake_files ff;
    struct lp_files f = { fake_held, fake_size, &ff };
    struct lp_job jobs[4];
    int order[4], i;

    memset(&ff, 0, sizeof ff);
    for (i = 0; i < 64; i++)
        ff.size[i] = 1000;
    for (i = 0; i < 4; i++) {
        jobs[i].batch_id = 1;
        jobs[i].job_num = 10 + i;
        jobs[i].first_file = 10 + 3 * i;
        jobs[i].nfiles = 3;
    }
    TAP_EQ_INT(locality_pick(jobs, 4, &f, order), 0, "pick runs");
    TAP_CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2 && order[3] == 3,
              "nothing held: job order");

    ff.held[19] = ff.held[20] = ff.held[21] = 1;   /* the files of job 13 */
    locality_pick(jobs, 4, &f, order);
    TAP_EQ_INT(order[0], 3, "the job whose files are held comes first");
    TAP_EQ_INT(order[1], 0, "then job order");

    memset(ff.held, 0, sizeof ff.held);
    /* overlapping jobs: 0 uses 10-12, 1 uses 11-13, 2 uses 40-42 (big) */
    jobs[1].first_file = 11;
    jobs[2].first_file = 40;
    ff.size[40] = 1e6;
    jobs[3].first_file = 12;
    locality_pick(jobs, 4, &f, order);
    TAP_EQ_INT(order[0], 0, "first the lowest job");
    TAP_EQ_INT(order[1], 1, "then the job sharing most of its files");
    TAP_EQ_INT(order[2], 3, "files picked earlier count as free");
    TAP_EQ_INT(order[3], 2, "the job with a large new file last");
}

/* ---- cutting a batch ---- */

static void test_plan(void)
{
    double fpops[100];
    int first[100], nf[100], starts[11], i, k;

    TAP_EQ_INT(cursor_count(50, 10, 10, 400), 5, "50 hosts, teams of 10: 5 cursors");
    TAP_EQ_INT(cursor_count(300, 10, 20, 4000), 20, "300 hosts, teams of 10-20: 20 cursors");
    TAP_EQ_INT(cursor_count(0, 10, 10, 400), 1, "no host yet: 1 cursor");
    TAP_EQ_INT(cursor_count(500, 10, 10, 60), 3, "few jobs: each team keeps 20 jobs");
    TAP_EQ_INT(cursor_count(500, 10, 10, 5), 1, "very few jobs: 1 cursor");

    for (i = 0; i < 100; i++) {
        fpops[i] = 1;
        first[i] = i;
        nf[i] = 1;
    }
    k = cursor_plan(fpops, first, nf, 100, 4, starts);
    TAP_EQ_INT(k, 4, "4 ranges");
    TAP_CHECK(starts[0] == 0 && starts[1] == 25 && starts[2] == 50 && starts[3] == 75 &&
              starts[4] == 100, "equal work: equal ranges (%d %d %d %d %d)", starts[0],
              starts[1], starts[2], starts[3], starts[4]);

    for (i = 0; i < 50; i++)
        fpops[i] = 3;
    k = cursor_plan(fpops, first, nf, 100, 4, starts);
    TAP_EQ_INT(k, 4, "4 ranges of uneven jobs");
    TAP_CHECK(starts[1] - starts[0] < starts[4] - starts[3],
              "heavy jobs make shorter ranges (%d vs %d jobs)", starts[1] - starts[0],
              starts[4] - starts[3]);

    /* jobs of 3 files with stride 1 share files, except before job 27 */
    for (i = 0; i < 100; i++) {
        fpops[i] = 1;
        first[i] = i < 27 ? i : i + 10;
        nf[i] = 3;
    }
    k = cursor_plan(fpops, first, nf, 100, 4, starts);
    TAP_EQ_INT(starts[1], 27, "a cut moves to a nearby clean boundary (got %d)", starts[1]);
    TAP_EQ_INT(starts[4], 100, "the last range ends at the last job");
    for (i = 0; i < k; i++)
        TAP_CHECK(starts[i] < starts[i + 1], "range %d is not empty", i);
    TAP_EQ_INT(cursor_last_file(first, nf, 0, 26), 28, "last file of jobs 0..26");
    TAP_EQ_INT(cursor_plan(fpops, first, nf, 0, 4, starts), -1, "no jobs: error");
    k = cursor_plan(fpops, first, nf, 3, 10, starts);
    TAP_EQ_INT(k, 3, "more cursors than jobs: one job each");
}

int main(void)
{
    test_credit();
    test_choice_new_host();
    test_choice_moves();
    test_choice_starved();
    test_pick();
    test_plan();
    return tap_done();
}
