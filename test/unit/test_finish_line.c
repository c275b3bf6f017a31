/*
 * test_finish_line.c - unit tests of a batch's finish line
 * (sched/policy/finish_line.c): the projected end, a fast host's speed
 * and the rule that keeps a batch's last jobs off late hosts.
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
}

int main(void)
{
    test_eta();
    test_fast();
    test_accepts();
    return tap_done();
}
