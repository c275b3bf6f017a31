/*
 * test_tail_logic.c - unit tests of a host's rhythm and turnaround, the
 * limit of silence after which it is presumed gone
 * (sched/policy/host_rhythm.c), and the choice of a backup replica in a
 * batch's tail (sched/policy/tail_pick.c).
 */
#include <math.h>
#include <string.h>

#include "host_rhythm.h"
#include "tail_pick.h"
#include "tap.h"

static const struct lost_params LP = { 1.5, 14400, 86400 };

static void test_rhythm(void)
{
    struct host_rhythm h = { 0, 0, 0, 0, 0 };
    int i;

    /* no rhythm yet: the new-host limit */
    TAP_EQ_DBL(rhythm_silence_limit(&h, &LP), 86400, 1e-9, "no rhythm: new_silence");
    TAP_CHECK(!rhythm_presumed_lost(&h, &LP, 86400), "no rhythm: not gone at the limit");
    TAP_CHECK(rhythm_presumed_lost(&h, &LP, 86401), "no rhythm: gone past the limit");

    /* a work fetch's RPCs seconds apart are one contact */
    rhythm_add_gap(&h, 10);
    rhythm_add_gap(&h, -5);
    rhythm_add_gap(&h, NAN);
    TAP_EQ_DBL(h.gap_avg, 0, 0, "gaps under a minute, negative or NaN are ignored");

    /* the first gap sets the mean, half of it the deviation */
    rhythm_add_gap(&h, 7200);
    TAP_EQ_DBL(h.gap_avg, 7200, 1e-9, "first gap: the mean");
    TAP_EQ_DBL(h.gap_dev, 3600, 1e-9, "first gap: half of it as deviation");
    TAP_EQ_DBL(rhythm_silence_limit(&h, &LP), 1.5 * (7200 + 4 * 3600), 1e-6,
               "limit: factor * (mean + 4 deviations)");

    /* a steady host: the deviation shrinks, the mean stays */
    for (i = 0; i < 2000; i++)
        rhythm_add_gap(&h, 7200);
    TAP_EQ_DBL(h.gap_avg, 7200, 1e-6, "steady gaps: the mean");
    TAP_CHECK(h.gap_dev < 100, "steady gaps: the deviation fades (%g)", h.gap_dev);
    TAP_EQ_DBL(rhythm_silence_limit(&h, &LP), 14400, 1e-6, "steady 2-hour gaps: the floor");

    /* a long gap weighs by the time it spans: one 12-hour silence moves the
     * mean more than one 10-minute gap */
    {
        struct host_rhythm a = h, b = h;
        rhythm_add_gap(&a, 43200);
        rhythm_add_gap(&b, 600);
        TAP_CHECK(a.gap_avg - 7200 > 10 * (7200 - b.gap_avg),
                  "a 12-hour gap moves the mean more than a 10-minute one (%g, %g)",
                  a.gap_avg, b.gap_avg);
        TAP_CHECK(rhythm_silence_limit(&a, &LP) > 43200 * 0.5,
                  "after a nightly silence the limit is of its order (%g)",
                  rhythm_silence_limit(&a, &LP));
    }
    /* a host that is off every night keeps a limit above its nights */
    {
        struct host_rhythm n = { 0, 0, 0, 0, 0 };
        int day, k;
        for (day = 0; day < 30; day++) {
            for (k = 0; k < 24; k++)
                rhythm_add_gap(&n, 1800);
            rhythm_add_gap(&n, 12 * 3600);
        }
        TAP_CHECK(rhythm_silence_limit(&n, &LP) > 12 * 3600,
                  "30 days of 30-minute gaps and 12-hour nights: limit %g s > a night",
                  rhythm_silence_limit(&n, &LP));
        TAP_CHECK(rhythm_silence_limit(&n, &LP) < 5 * 86400,
                  "... and well under a deadline of days (%g)", rhythm_silence_limit(&n, &LP));
    }

    /* turnaround: the mean of the first reports, then recency */
    {
        struct host_rhythm t = { 0, 0, 0, 0, 0 };
        rhythm_add_turnaround(&t, 1000);
        rhythm_add_turnaround(&t, 3000);
        TAP_EQ_DBL(t.avg_turnaround, 2000, 1e-9, "two reports: their mean");
        TAP_EQ_INT(t.turnaround_n, 2, "two reports counted");
        rhythm_add_turnaround(&t, -1);
        rhythm_add_turnaround(&t, INFINITY);
        TAP_EQ_INT(t.turnaround_n, 2, "negative or infinite turnarounds are ignored");
        for (i = 0; i < 100; i++)
            rhythm_add_turnaround(&t, 500);
        TAP_EQ_DBL(t.avg_turnaround, 500, 1, "recent reports dominate");
    }
}

static void test_tail(void)
{
    const struct tail_params p = { 0.5, 3, 1 };
    struct tail_cand c[4];
    double dl = 0, now = 100000;
    int i;

    TAP_CHECK(!tail_host_reliable(&p, 0), "a host without reports gets no backup");
    TAP_CHECK(tail_host_reliable(&p, 1), "a host with a report may get one");

    memset(c, 0, sizeof c);                  /* budgets not ample */
    for (i = 0; i < 4; i++) {
        c[i].sent_time = now - 3600;
        c[i].expected_secs = 36000;          /* 10 hours: 9 left */
        c[i].host_lost = 0;
        c[i].report_deadline = now + 300000;
        c[i].backup_secs = 3600;
        c[i].delay_bound = 345600;
    }
    TAP_EQ_DBL(tail_remaining(&c[0], now), 32400, 1e-9, "remaining: expected minus elapsed");
    c[1].sent_time = now - 36000 - 7200;     /* 2 hours overdue */
    TAP_EQ_DBL(tail_remaining(&c[1], now), 18000, 1e-9,
               "overdue by 2 h: at least half of its expected time");
    c[1].sent_time = now - 36000 - 12 * 3600; /* 12 hours overdue */
    TAP_EQ_DBL(tail_remaining(&c[1], now), 43200, 1e-9, "overdue by 12 h: 12 h more");
    c[1].sent_time = now - 3600;
    c[2].host_lost = 1;
    TAP_EQ_DBL(tail_remaining(&c[2], now), 300000, 1e-9, "host gone: until the deadline");

    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), 2, "the greatest gain: the lost host's job");
    TAP_EQ_DBL(dl, now + 3 * 3600, 1e-9, "deadline: 3 times the backup's time");
    c[2].host_lost = 0;
    c[2].sent_time = c[1].sent_time = c[0].sent_time = now - 7200;   /* older than 3 */
    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), 3, "3, sent later, has more left");
    c[3].sent_time = now - 7200;
    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), 0, "equal gains: the first of the oldest");

    /* no gain worth it */
    for (i = 0; i < 4; i++) {
        c[i].sent_time = now - 30000;        /* 6000 s left, at least 18000 (T / 2) */
        c[i].backup_secs = 9500;             /* more than half of it */
        c[i].host_lost = 0;
    }
    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), -1, "backup not twice as fast: none");
    c[1].backup_secs = 2000;
    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), 1, "the one the backup beats by half");
    TAP_EQ_DBL(dl, now + 6000, 1e-9, "deadline: 3 x 2000 s");
    c[1].backup_secs = 100;
    tail_pick(&p, c, 4, now, &dl);
    TAP_EQ_DBL(dl, now + TAIL_MIN_DEADLINE, 1e-9, "deadline: at least an hour");
    c[1].backup_secs = 0;
    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), -1, "cannot run it here: none");
    c[0].host_lost = 1;
    c[0].backup_secs = 200000;
    c[0].delay_bound = 100000;
    c[0].report_deadline = now + 500000;
    TAP_EQ_INT(tail_pick(&p, c, 4, now, &dl), 0, "long backup of a gone host's job");
    TAP_EQ_DBL(dl, now + 100000, 1e-9, "deadline: at most the delay bound");
    TAP_EQ_INT(tail_pick(&p, c, 0, now, &dl), -1, "no candidate: none");
}

/* An ample budget lowers the bar to "expected to finish first". */
static void test_ample(void)
{
    const struct tail_params p = { 0.5, 3, 1 };
    struct tail_cand c;
    double dl = 0, now = 100000;

    TAP_CHECK(tail_budget_ample(4e13, 1e13, 4, 1), "budget for each of 4 candidates: ample");
    TAP_CHECK(!tail_budget_ample(3.9e13, 1e13, 4, 1), "a little short: not ample");
    TAP_CHECK(!tail_budget_ample(4e13, 1e13, 4, 0), "more candidates than read: not ample");
    TAP_CHECK(!tail_budget_ample(4e13, 1e13, 0, 1), "no candidate: not ample");
    TAP_CHECK(!tail_budget_ample(4e13, 0, 4, 1), "jobs of unknown size: not ample");
    TAP_CHECK(!tail_budget_ample(-1, 1e13, 1, 1), "a budget overdrawn: not ample");

    memset(&c, 0, sizeof c);
    c.sent_time = now - 5 * 3600;            /* expected at 6 h: 3 h left (T / 2) */
    c.expected_secs = 6 * 3600;
    c.report_deadline = now + 300000;
    c.delay_bound = 345600;
    c.backup_secs = 2 * 3600;                /* faster, but not twice as fast */
    TAP_EQ_INT(tail_pick(&p, &c, 1, now, &dl), -1, "scarce budget: the bar is half");
    c.ample = 1;
    TAP_EQ_INT(tail_pick(&p, &c, 1, now, &dl), 0, "ample budget: faster is enough");
    c.backup_secs = 3 * 3600 + 1;
    TAP_EQ_INT(tail_pick(&p, &c, 1, now, &dl), -1, "ample budget: a slower backup still not");
}

int main(void)
{
    test_rhythm();
    test_tail();
    test_ample();
    return tap_done();
}
