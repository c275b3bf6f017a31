/*
 * test_finish_choice.c - unit tests of how the transitioner picks a
 * batch's finish line (sched/policy/finish_line.c): the hosts' tally
 * (capacity and fast hosts), the work all batches still need, and the
 * choice between the projection from the batch's rate and the one from
 * the hosts' speed, with the fast host that goes with each.
 */
#include <math.h>

#include "finish_line.h"
#include "tap.h"

#define NOW 1800000000L
#define MAXH 32

static double all_v[MAXH], busy_v[MAXH];

static void speeds_init(struct finish_speeds *s, int cap)
{
    s->all = all_v;
    s->busy = busy_v;
    s->n = s->nbusy = 0;
    s->cap = cap;
    s->capacity = 0;
}

/* The hosts' tally of speeds (n hosts of speed v[i], ncpus each, all
 * fully available, busy when busy[i]). */
static void hosts_of(struct finish_hosts *h, const double *v, const int *busy, int n, int ncpus)
{
    struct finish_speeds s;
    int i;

    speeds_init(&s, MAXH);
    for (i = 0; i < n; i++)
        finish_line_add_host(&s, v[i], ncpus, 1, 1, busy[i]);
    finish_line_hosts(&s, h);
}

static void test_tally(void)
{
    struct finish_speeds s;
    struct finish_hosts h;
    const double ten[] = { 5, 1, 4, 2, 3, 10, 6, 7, 8, 9, 100, 200 };
    const int ten_busy[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 };

    hosts_of(&h, NULL, NULL, 0, 4);
    TAP_CHECK(h.capacity == 0 && h.fast_all == 0 && h.fast_busy == 0, "no host: all unknown");

    hosts_of(&h, (const double[]){ 3e9 }, (const int[]){ 1 }, 1, 4);
    TAP_EQ_DBL(h.capacity, 12e9, 0, "one busy host: its instances times its speed");
    TAP_EQ_DBL(h.fast_all, 3e9, 0, "one host: the fast host of all is that one");
    TAP_EQ_DBL(h.fast_busy, 3e9, 0, "one busy host: the fast busy host is that one");

    hosts_of(&h, (const double[]){ 3e9 }, (const int[]){ 0 }, 1, 4);
    TAP_CHECK(h.capacity == 0 && h.fast_busy == 0, "one idle host: no capacity, no busy host");
    TAP_EQ_DBL(h.fast_all, 3e9, 0, "one idle host: still the fast host of all");

    /* busy 1..10: the 0.8 quantile is the 8th (index 7.2 -> 7); with the
     * two idle fast hosts, of 12 values index 8.8 -> 9: 10 */
    hosts_of(&h, ten, ten_busy, 12, 2);
    TAP_EQ_DBL(h.fast_busy, 8, 0, "many hosts: the 80th percentile of the busy ones");
    TAP_EQ_DBL(h.fast_all, 10, 0, "many hosts: the 80th percentile of all of them");
    TAP_EQ_DBL(h.capacity, 2 * 55, 0, "many hosts: only the busy ones make the capacity");

    speeds_init(&s, 2);
    TAP_EQ_INT(finish_line_add_host(&s, 1e9, 1, 1, 1, 1), 0, "room: added");
    TAP_EQ_INT(finish_line_add_host(&s, 1e9, 1, 1, 1, 1), 0, "room for the second");
    TAP_EQ_INT(finish_line_add_host(&s, 1e9, 1, 1, 1, 1), 1, "full: not added");
    TAP_EQ_INT(s.n, 2, "full: two hosts");

    speeds_init(&s, MAXH);
    finish_line_add_host(&s, 4e9, 1, 0.5, 0.5, 1);
    TAP_EQ_DBL(s.busy[0], 1e9, 1e-3, "speed times the on and active fractions");
    finish_line_add_host(&s, 1e9, 100000, 1, 1, 1);
    TAP_EQ_DBL(s.capacity, 1e9 + 1024 * 1e9, 1e-3, "a host counts 1024 instances at most");
    finish_line_add_host(&s, 1e9, 0, 1, 1, 1);
    finish_line_add_host(&s, NAN, 4, 1, 1, 1);
    finish_line_add_host(&s, -1e9, 4, 1, 1, 1);
    finish_line_add_host(&s, INFINITY, 4, 1, 1, 1);
    TAP_EQ_INT(s.nbusy, 2, "no instances, NaN, negative or infinite speed: not busy hosts");
    TAP_EQ_INT(s.n, 6, "... but seen");
    finish_line_hosts(&s, &h);
    TAP_CHECK(isfinite(h.capacity) && isfinite(h.fast_all) && h.fast_all > 0,
              "bad speeds leave the tally finite");
}

static void test_flops_left(void)
{
    struct finish_counts c[3] = {
        { 1000, 600, 100, 0, 0, 1e13 },      /* 350 results left */
        { 10, 0, 0, 0, 0, 2e12 },            /* 10 left */
        { 10, 0, 0, 0, 0, NAN },             /* unusable size */
    };

    TAP_EQ_DBL(finish_line_flops_left(c, 3), 350 * 1e13 + 10 * 2e12, 1, "the batches' work left");
    c[2].fpops_per_result = -1;
    TAP_EQ_DBL(finish_line_flops_left(c, 3), 350 * 1e13 + 10 * 2e12, 1, "negative size: none");
    c[2].fpops_per_result = INFINITY;
    TAP_EQ_DBL(finish_line_flops_left(c, 3), 350 * 1e13 + 10 * 2e12, 1, "infinite size: none");
    TAP_EQ_DBL(finish_line_flops_left(c, 0), 0, 0, "no batch: nothing");
    TAP_EQ_DBL(finish_line_flops_left(NULL, 3), 0, 0, "no counts: nothing");
}

static void test_choose(void)
{
    /* 350 results left (300 not begun, 100 in progress), 120 successes in
     * 12 hours; the hosts do 1e12 flops/s: 3,500 s from them */
    struct finish_counts c = { 1000, 600, 100, 120, FINISH_RATE_WINDOW, 1e13 };
    struct finish_hosts h = { 1e12, 3e9, 2e9 };
    struct finish_hosts idle = { 0, 3e9, 0 };
    struct finish_choice fc;
    const double flops = 350 * 1e13;
    int by_rate = (int)NOW + (int)ceil(350.0 / (120.0 / FINISH_RATE_WINDOW));

    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, by_rate, "rate known over the whole window: the rate, though later");
    TAP_CHECK(fc.from_rate && fc.fast_flops == 3e9, "... with the fast host of all hosts");

    c.recent = FINISH_MIN_SUCCESSES - 1;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, (int)NOW + 3500, "rate unknown: the hosts' speed");
    TAP_CHECK(!fc.from_rate && fc.fast_flops == 2e9, "... with the fast host of the busy ones");

    /* a young batch: 120 successes in its first hour (10,500 s from them) */
    c.recent = 120;
    c.window = 3600;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, (int)NOW + 3500, "young batch, the hosts' speed sooner: it");
    TAP_CHECK(!fc.from_rate && fc.fast_flops == 2e9, "... with the fast busy host");
    h.capacity = 1e11;                       /* 35,000 s from the hosts */
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, (int)NOW + (int)ceil(350.0 / (120.0 / 3600)),
               "young batch, its rate sooner: the rate");
    TAP_CHECK(fc.from_rate && fc.fast_flops == 3e9, "... with the fast host of all");
    h.capacity = 1e12;

    /* capacity unknown: no host holds work */
    finish_line_choose(&c, flops, &idle, NOW, &fc);
    TAP_CHECK(fc.from_rate && fc.eta > NOW, "no busy host, rate known: the rate");
    c.recent = 0;
    finish_line_choose(&c, flops, &idle, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "no busy host, rate unknown: no line");
    TAP_CHECK(!fc.from_rate && fc.fast_flops == 3e9, "... the fast host of all is still stored");
    finish_line_choose(&c, flops, NULL, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "no hosts at all: no line");

    /* nothing left of this batch: other batches' work makes no line for it */
    c.succeeded = 1000;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "batch done, rate unknown: no line from the hosts");
    c.succeeded = 600;

    /* bad and huge inputs */
    finish_line_choose(&c, NAN, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "NaN work left: no line");
    finish_line_choose(&c, -flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "negative work left: no line");
    h.capacity = -1e12;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "negative capacity: no line");
    h.capacity = NAN;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "NaN capacity: no line");
    h.capacity = 1e12;
    finish_line_choose(&c, 1e30, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "more than ten years away: no line");
    finish_line_choose(&c, 3650.0 * 86400 * 1e12 - 1e12, &h, NOW, &fc);
    TAP_CHECK(fc.eta > NOW, "just under ten years: a line");
    c.recent = 120;
    c.window = NAN;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, (int)NOW + 3500, "NaN window: no rate, the hosts' speed");
    c.window = -5;
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, (int)NOW + 3500, "negative window: no rate, the hosts' speed");
    c.window = FINISH_RATE_WINDOW;
    c.recent = 1000000000;                   /* an absurd rate: the line is now */
    finish_line_choose(&c, flops, &h, NOW, &fc);
    TAP_CHECK(fc.from_rate && fc.eta == (int)NOW + 1, "a huge rate: the line in a second");
    finish_line_choose(NULL, flops, &h, NOW, &fc);
    TAP_EQ_INT(fc.eta, 0, "no counts: no line");
}

int main(void)
{
    test_tally();
    test_flops_left();
    test_choose();
    return tap_done();
}
