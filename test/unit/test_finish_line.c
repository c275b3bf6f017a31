/*
 * test_finish_line.c - unit tests of a batch's finish line
 * (sched/policy/finish_line.c): the projected end (from the batch's rate,
 * or from the hosts' speed), a fast host's speed, the rule that keeps a
 * batch's last jobs off late hosts, and the rule for a young batch.
 */
#include <math.h>

#include "finish_line.h"
#include "tap.h"

static void test_eta(void)
{
    struct finish_counts c = { 1000, 600, 100, 120, 43200, 1e13 };

    /* 300 not begun + half of 100 in progress, at 120 per 12 hours */
    TAP_EQ_DBL(finish_line_eta(&c), 350.0 / (120.0 / 43200), 1e-6, "work left over the rate");
    c.recent = FINISH_MIN_SUCCESSES - 1;
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "too few recent successes: no finish line");
    c.recent = 120;
    c.in_progress = 500;
    TAP_EQ_DBL(finish_line_eta(&c), 200.0 / (120.0 / 43200), 1e-6,
               "more in progress than needed (backups): half of what is open");
    c.succeeded = 1000;
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "all succeeded: none");
    c.succeeded = 1200;
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "more successes than needed: none");
    c.succeeded = 600;
    c.window = 0;
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "empty window: none");
    c.window = 43200;
    c.fpops_per_result = NAN;
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "NaN job size: none");
    c.fpops_per_result = 1e13;
    c.needed = 0;
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "nothing needed: none");
    TAP_EQ_DBL(finish_line_eta(NULL), 0, 0, "no counts: none");
}

static void test_left_and_capacity(void)
{
    struct finish_counts c = { 1000, 600, 100, 0, 0, 1e13 };

    TAP_EQ_DBL(finish_line_left(&c), 350, 0, "300 not begun + half of 100 in progress");
    TAP_EQ_DBL(finish_line_eta(&c), 0, 0, "no success yet: no rate, no eta from it");
    c.in_progress = 500;
    TAP_EQ_DBL(finish_line_left(&c), 200, 0, "more in progress than open: half of it");
    c.succeeded = 1000;
    TAP_EQ_DBL(finish_line_left(&c), 0, 0, "all succeeded: nothing left");
    TAP_EQ_DBL(finish_line_left(NULL), 0, 0, "no counts: nothing");

    /* 350 results of 1e13 flops on 100 hosts of 4 x 2.5e9 flops: 3,500 s */
    TAP_EQ_DBL(finish_line_eta_capacity(350 * 1e13, 100 * 4 * 2.5e9), 3500, 1e-6,
               "capacity: work left over the hosts' speed");
    TAP_EQ_DBL(finish_line_eta_capacity(350 * 1e13, 0), 0, 0, "no hosts seen: none");
    TAP_EQ_DBL(finish_line_eta_capacity(0, 1e12), 0, 0, "no work left: none");
    TAP_EQ_DBL(finish_line_eta_capacity(NAN, 1e12), 0, 0, "NaN work: none");
    TAP_EQ_DBL(finish_line_eta_capacity(1e13, INFINITY), 0, 0, "infinite speed: none");
    TAP_EQ_DBL(finish_line_eta_capacity(-1e13, 1e12), 0, 0, "negative work: none");
    TAP_EQ_DBL(finish_line_eta_capacity(1e308, 1e-300), 0, 0, "overflow: none");
}

static void test_young(void)
{
    TAP_CHECK(finish_line_young_accepts(2, 0, 3600), "two idle instances: the first job");
    TAP_CHECK(finish_line_young_accepts(2, 1, 3600), "two idle instances: the second job");
    TAP_CHECK(!finish_line_young_accepts(2, 2, 3600), "two idle instances: not a third");
    TAP_CHECK(finish_line_young_accepts(0.5, 0, 0), "half an idle instance rounds up");
    TAP_CHECK(!finish_line_young_accepts(0, 0, 3600), "no idle instance, work queued: no");
    TAP_CHECK(finish_line_young_accepts(0, 0, 0), "nothing queued (an old client): one job");
    TAP_CHECK(!finish_line_young_accepts(0, 1, 0), "an old client: only one");
    TAP_CHECK(finish_line_young_accepts(0, 0, NAN), "NaN start counts as nothing queued");
    TAP_CHECK(!finish_line_young_accepts(NAN, 0, 10), "NaN idle instances: none idle");
    TAP_CHECK(!finish_line_young_accepts(INFINITY, 5, 10), "infinite idle instances: none idle");
}

static void test_fast(void)
{
    double v[] = { 5, 1, 4, 2, 3, -1, NAN, INFINITY, 0, 10, 6, 7, 8, 9 };
    double one[] = { 3e9 };
    double bad[] = { -1, 0, NAN };

    /* 1..10 left: the 0.8 quantile of 10 values is the 8th (index 7.2 -> 7) */
    TAP_EQ_DBL(finish_line_fast_flops(v, 14), 8, 0, "quantile of the valid speeds");
    TAP_EQ_DBL(finish_line_fast_flops(one, 1), 3e9, 0, "one host: its speed");
    TAP_EQ_DBL(finish_line_fast_flops(bad, 3), 0, 0, "no valid speed: 0");
    TAP_EQ_DBL(finish_line_fast_flops(NULL, 0), 0, 0, "no host: 0");
}

static void test_accepts(void)
{
    /* 10 hours left; a fast host runs the job in 2 hours (1e13 at 1.39e9):
     * the line is 1.25 x 12 hours = 54000 s */
    const double left = 36000, fast = 1e13 / 7200, job = 1e13;

    TAP_CHECK(finish_line_accepts(0, fast, job, 1e6, 1e6, 1.25), "no finish line: yes");
    TAP_CHECK(finish_line_accepts(left, fast, job, 1e6, 1e6, 0), "rule off: yes");
    TAP_CHECK(finish_line_accepts(left, fast, job, 0, 54000, 1.25),
              "within slack x (left + a fast host's time)");
    TAP_CHECK(!finish_line_accepts(left, fast, job, 0, 54001, 1.25), "just past it: no");
    TAP_CHECK(!finish_line_accepts(left, fast, job, 40000, 20000, 1.25),
              "queued work counts: start + wall past the line");
    TAP_CHECK(finish_line_accepts(left, fast, job, -5, 54000, 1.25), "negative start is 0");
    TAP_CHECK(!finish_line_accepts(left, fast, job, 0, NAN, 1.25), "NaN wall: no");
    TAP_CHECK(!finish_line_accepts(left, fast, job, 0, INFINITY, 1.25), "infinite wall: no");
    /* the last minutes: a fast host with a free instance still gets it */
    TAP_CHECK(finish_line_accepts(60, fast, job, 0, 7200, 1.25), "as fast as a fast host");
    TAP_CHECK(finish_line_accepts(60, fast, job, 0, 9075, 1.25), "within slack of it");
    TAP_CHECK(!finish_line_accepts(60, fast, job, 0, 9076, 1.25), "slower: no");
    TAP_CHECK(!finish_line_accepts(60, 0, job, 0, 7200, 1.25), "no fast speed known: the line");
    TAP_CHECK(finish_line_accepts(NAN, fast, job, 0, 1e9, 1.25), "NaN line: none");
    /* slack below 1: the time left shrinks, a fast host's time does not */
    TAP_CHECK(finish_line_accepts(left, fast, job, 0, 0.75 * 36000 + 7200, 0.75),
              "slack 0.75: 0.75 x left + a fast host's time");
    TAP_CHECK(!finish_line_accepts(left, fast, job, 0, 0.75 * 36000 + 7201, 0.75),
              "slack 0.75: just past it: no");
    TAP_CHECK(finish_line_accepts(60, fast, job, 0, 7200, 0.75),
              "slack 0.75, the last minutes: a fast host still gets it");
    TAP_CHECK(!finish_line_accepts(60, fast, job, 0, 7300, 0.75),
              "slack 0.75, the last minutes: a slower host does not");
}

int main(void)
{
    test_eta();
    test_left_and_capacity();
    test_young();
    test_fast();
    test_accepts();
    return tap_done();
}
