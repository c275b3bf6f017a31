/*
 * test_host_quota.c - unit tests of a host's daily job quota
 * (sched/policy/host_quota.c): the fall on bad results, the climb back on
 * valid ones, the day's limit for CPUs and GPUs, the day boundary and
 * the delay to the next day.
 */
#include <math.h>

#include "host_quota.h"
#include "tap.h"

static void test_per_cpu(void)
{
    TAP_EQ_INT(hq_per_cpu(0, 200), 200, "stored 0: the project's quota");
    TAP_EQ_INT(hq_per_cpu(25, 200), 25, "a reduced quota is the host's");
    TAP_EQ_INT(hq_per_cpu(500, 200), 200, "never above the project's (the setting was lowered)");
    TAP_EQ_INT(hq_per_cpu(-3, 200), 200, "a negative stored value: the project's");
    TAP_EQ_INT(hq_per_cpu(25, 0), 0, "project without a quota: none");
}

static void test_fall_and_climb(void)
{
    int q = 0, n;

    /* a host returning garbage: 200, 100, 50, 25, 12, 6, 3, 1, 1 */
    static const int fall[] = { 100, 50, 25, 12, 6, 3, 1, 1 };
    for (n = 0; n < 8; n++) {
        q = hq_after_bad(q, 200);
        TAP_EQ_INT(q, fall[n], "bad result %d: quota halved, at least 1", n + 1);
    }
    /* repaired: 2, 4, ..., 128, then the project's (stored 0) */
    static const int climb[] = { 2, 4, 8, 16, 32, 64, 128, 0, 0 };
    for (n = 0; n < 9; n++) {
        q = hq_after_valid(q, 200);
        TAP_EQ_INT(q, climb[n], "valid result %d: quota doubled, 0 at the project's", n + 1);
    }
    TAP_EQ_INT(hq_after_valid(0, 200), 0, "a host in good standing stays at the project's");
    TAP_EQ_INT(hq_after_valid(100, 200), 0, "doubling to exactly the project's: 0");
    TAP_EQ_INT(hq_after_valid(100, 201), 200, "doubling just below an odd project's: 200");
    TAP_EQ_INT(hq_after_valid(101, 201), 0, "doubling past an odd project's: 0");
    TAP_EQ_INT(hq_after_valid(99, 201), 198, "below an odd project's: doubled");
    TAP_EQ_INT(hq_after_bad(0, 1), 1, "project quota 1: never below 1");
    TAP_EQ_INT(hq_after_bad(7, 0), 0, "no project quota: nothing stored");
    TAP_EQ_INT(hq_after_valid(7, 0), 0, "no project quota: nothing stored (valid)");
    TAP_EQ_INT(hq_after_bad(900, 200), 100, "stored above the project's: half the project's");
}

static void test_error_rate(void)
{
    double r = 0;
    int i;
    for (i = 0; i < 200; i++)
        r = hq_error_rate(r, 1);
    TAP_CHECK(r > 0.99 && r <= 1.0, "all bad: the rate tends to 1 (%g)", r);
    r = hq_error_rate(0.5, 0);
    TAP_EQ_DBL(r, 0.475, 1e-12, "a good result lowers it by 5%%");
    TAP_EQ_DBL(hq_error_rate(NAN, 1), 0.05, 1e-12, "NaN starts over");
    TAP_EQ_DBL(hq_error_rate(-2, 0), 0, 0, "negative starts over");
    TAP_EQ_DBL(hq_error_rate(7, 0), 0.95, 1e-12, "above 1 is capped");
}

static void test_day_limit(void)
{
    TAP_EQ_INT(hq_day_limit(0, 8, 1, 1), -1, "no quota: no limit");
    TAP_EQ_INT(hq_day_limit(200, 4, 0, 1), 800, "per CPU");
    TAP_EQ_INT(hq_day_limit(200, 0, 0, 1), 200, "no CPU count: one");
    TAP_EQ_INT(hq_day_limit(200, 4, 2, 2.5), 800 + 1000, "GPUs times gpu_multiplier");
    TAP_EQ_INT(hq_day_limit(3, 1, 1, 0), 3, "gpu_multiplier 0: GPUs add nothing");
    TAP_EQ_INT(hq_day_limit(1, 100000, 0, 1), HQ_MAX_INSTANCES, "a hostile CPU count is capped");
    TAP_EQ_INT(hq_day_limit(1, 1, -5, NAN), 1, "negative GPUs and a NaN multiplier count 0");
    TAP_EQ_INT(hq_day_limit(1000000000, 256, 256, 1e9), 1000000000L, "huge: capped at 1e9");
}

static void test_day_boundary(void)
{
    time_t day = 20000L * 86400;
    TAP_EQ_INT(hq_sent_today(7, day + 10, day + 80000), 7, "same UTC day: the count");
    TAP_EQ_INT(hq_sent_today(7, day - 1, day + 5), 0, "last request yesterday: 0");
    TAP_EQ_INT(hq_sent_today(7, 0, day), 0, "never asked: 0");
    TAP_EQ_INT(hq_sent_today(-4, day, day), 0, "a negative count: 0");
    TAP_EQ_INT(hq_delay_to_tomorrow(day + 86400 - 100, 0), 100, "to midnight UTC");
    TAP_EQ_INT(hq_delay_to_tomorrow(day, 3601), 86400 + 1, "spread by host id in the first hour");
    TAP_CHECK(hq_delay_to_tomorrow(day + 5, 123456) <= 86400 + 3599, "never more than a day "
              "and an hour");
}

int main(void)
{
    test_per_cpu();
    test_fall_and_climb();
    test_error_rate();
    test_day_limit();
    test_day_boundary();
    return tap_done();
}
