/*
 * test_estimate.c - unit tests of the runtime estimates and the JC2
 * correction factor (sched/policy/estimate.c).
 *
 * Table-driven: each row gives the inputs, the expected result and why.
 * Every function is also fed NaN and infinities and must return a finite
 * number (never NaN).
 */
#include "estimate.h"
#include "tap.h"

#define INF INFINITY
#define EMIN EST_CORRECTION_MIN
#define EMAX EST_CORRECTION_MAX
#define RMAX EST_RUNTIME_MAX

/* Relative tolerance for results computed with a division. */
static double tol(double want)
{
    return 1e-12 * fmax(fabs(want), 1.0);
}

struct case3 {
    const char *what;
    double a, b, c;
    double want;
};

struct case2 {
    const char *what;
    double a, b;
    double want;
};

static const struct case3 runtime_cases[] = {
    /* 1e12 fpops at 1e9 flops = 1000 s, times the correction. */
    {"formula, correction 1", 1e12, 1e9, 1.0, 1000},
    {"formula, correction 2", 1e12, 1e9, 2.0, 2000},
    {"formula, correction 0.5", 3e12, 2e9, 0.5, 750},
    {"zero fpops: no work", 0, 1e9, 1.0, 0},
    /* The correction is clamped to [0.01, 100]. */
    {"correction 0 clamped to 0.01", 1e12, 1e9, 0, 10},
    {"negative correction clamped to 0.01", 1e12, 1e9, -5, 10},
    {"correction 1000 clamped to 100", 1e12, 1e9, 1000, 1e5},
    /* Unusable inputs: the large finite value. */
    {"flops 0", 1e12, 0, 1.0, RMAX},
    {"negative flops", 1e12, -1e9, 1.0, RMAX},
    {"negative fpops", -1e12, 1e9, 1.0, RMAX},
    {"NaN fpops", NAN, 1e9, 1.0, RMAX},
    {"NaN flops", 1e12, NAN, 1.0, RMAX},
    {"NaN correction", 1e12, 1e9, NAN, RMAX},
    {"infinite fpops", INF, 1e9, 1.0, RMAX},
    {"infinite flops", 1e12, INF, 1.0, RMAX},
    {"infinite correction", 1e12, 1e9, INF, RMAX},
    {"-infinite correction", 1e12, 1e9, -INF, RMAX},
    /* 1e300 / 1e-300 overflows to infinity: capped. */
    {"overflow capped", 1e300, 1e-300, 1.0, RMAX},
    /* 1e20 / 1e9 = 1e11 s > 1e9: capped. */
    {"huge but finite capped", 1e20, 1e9, 1.0, RMAX},
};

static const struct case2 wall_cases[] = {
    /* Wall time = runtime / avail. */
    {"avail 1", 1000, 1.0, 1000},
    {"avail 0.5 doubles", 1000, 0.5, 2000},
    {"avail 0.8", 1000, 0.8, 1250},
    /* avail clamped to [0.01, 1]. */
    {"avail 0 clamped to 0.01", 1000, 0, 1e5},
    {"negative avail clamped to 0.01", 1000, -1, 1e5},
    {"avail 0.001 clamped to 0.01", 1000, 0.001, 1e5},
    {"avail 2 clamped to 1", 1000, 2, 1000},
    {"infinite avail clamped to 1", 1000, INF, 1000},
    {"-infinite avail clamped to 0.01", 1000, -INF, 1e5},
    {"NaN avail: longest (0.01)", 1000, NAN, 1e5},
    {"zero runtime", 0, 0.5, 0},
    /* Unusable runtimes: the large value. */
    {"NaN runtime", NAN, 0.5, RMAX},
    {"infinite runtime", INF, 0.5, RMAX},
    {"negative runtime", -10, 0.5, RMAX},
    /* 1e9 / 0.5 = 2e9: capped at 1e9. */
    {"result capped", RMAX, 0.5, RMAX},
};

static const struct case3 sample_cases[] = {
    /* The estimate was 1e12 / 1e9 = 1000 s; elapsed / estimate. */
    {"took twice as long", 2000, 1e12, 1e9, 2.0},
    {"as estimated", 1000, 1e12, 1e9, 1.0},
    {"took half", 500, 1e12, 1e9, 0.5},
    {"exactly the minimum", 10, 1e12, 1e9, 0.01},
    /* Clamped to [0.01, 100]. */
    {"1/1000 clamped to 0.01", 1, 1e12, 1e9, EMIN},
    {"zero elapsed clamped to 0.01", 0, 1e12, 1e9, EMIN},
    {"1e6 clamped to 100", 1e9, 1e12, 1e9, EMAX},
    {"huge elapsed clamped to 100", 1e300, 1e12, 1e9, EMAX},
    /* Estimate rounds to 0 s (1e-300 / 1e300): any elapsed is "longer". */
    {"estimate underflows to 0", 5, 1e-300, 1e300, EMAX},
    /* Estimate overflows to infinity: elapsed is "shorter". */
    {"estimate overflows", 5, 1e300, 1e-300, EMIN},
    /* Cannot compute: neutral 1.0. */
    {"NaN elapsed", NAN, 1e12, 1e9, 1.0},
    {"infinite elapsed", INF, 1e12, 1e9, 1.0},
    {"negative elapsed", -5, 1e12, 1e9, 1.0},
    {"zero fpops", 1000, 0, 1e9, 1.0},
    {"negative fpops", 1000, -1e12, 1e9, 1.0},
    {"NaN fpops", 1000, NAN, 1e9, 1.0},
    {"zero flops", 1000, 1e12, 0, 1.0},
    {"infinite flops", 1000, 1e12, INF, 1.0},
};

struct update_case {
    const char *what;
    double old;
    long n;
    double sample;
    double want;
};

static const struct update_case update_cases[] = {
    /* First sample is taken as is, whatever old holds. */
    {"n == 0: from 1, a tenth of the way down", 3.0, 0, 0.5, 0.95},
    {"n == 0: from 1, up at once", 0.5, 0, 3.0, 3.0},
    {"n == 0: one very short job moves it little", 1.0, 0, 0.05, 0.905},
    {"n < 0 counts as no history", 3.0, -4, 0.5, 0.95},
    {"n == 0: sample clamped", 1.0, 0, 1e6, EMAX},
    /* Increase: at once. */
    {"increase taken at once", 1.0, 5, 2.0, 2.0},
    {"increase to the bound", 1.0, 5, 500, EMAX},
    /* Decrease: 1 + 0.1 * (0.5 - 1) = 0.95; 2 + 0.1 * (1 - 2) = 1.9. */
    {"decrease smoothed", 1.0, 5, 0.5, 0.95},
    {"decrease smoothed 2", 2.0, 5, 1.0, 1.9},
    {"equal sample: unchanged", 1.5, 5, 1.5, 1.5},
    /* Sample 0 is clamped to 0.01 first: 1 + 0.1 * (0.01 - 1) = 0.901. */
    {"decrease with a clamped sample", 1.0, 5, 0, 0.901},
    /* Old out of range is clamped first: 100 + 0.1 * (50 - 100) = 95. */
    {"old above the bound", 1000, 5, 50, 95},
    {"old below the bound, sample higher", 0.0001, 5, 0.005, EMIN},
    /* Non-finite sample: ignored. */
    {"NaN sample keeps old", 1.5, 5, NAN, 1.5},
    {"infinite sample keeps old", 1.5, 5, INF, 1.5},
    {"-infinite sample keeps old", 1.5, 5, -INF, 1.5},
    {"NaN sample, no history: 1", 1.5, 0, NAN, 1.0},
    {"NaN sample, old above bound", 1000, 5, NAN, EMAX},
    /* Non-finite old: no usable history, from 1. */
    {"NaN old: from 1", NAN, 5, 0.7, 0.97},
    {"infinite old: from 1", INF, 5, 0.7, 0.97},
    {"NaN old and sample: 1", NAN, 5, NAN, 1.0},
};

static const struct case2 avail_cases[] = {
    /* Product of the two fractions. */
    {"0.8 * 0.5", 0.8, 0.5, 0.4},
    {"1 * 1", 1, 1, 1},
    /* Negative means unknown: 1. */
    {"on_frac unknown", -1, 0.5, 0.5},
    {"active unknown", 0.9, -1, 0.9},
    {"both unknown", -1, -1, 1},
    {"NaN is unknown", NAN, 0.9, 0.9},
    /* Each clamped to [0.01, 1]. */
    {"above 1", 2, 0.9, 0.9},
    {"infinite", INF, 0.9, 0.9},
    {"zero fraction: 0.01 * 0.5, kept >= 0.01", 0, 0.5, EST_AVAIL_MIN},
    {"both tiny", 0.001, 0.001, EST_AVAIL_MIN},
    {"0.1 * 0.1 = 0.01", 0.1, 0.1, 0.01},
};

static void check_finite(double v, const char *fn, const char *what)
{
    TAP_CHECK(isfinite(v), "%s(%s): finite result", fn, what);
}

static void test_runtime(void)
{
    size_t i;

    for (i = 0; i < sizeof runtime_cases / sizeof runtime_cases[0]; i++) {
        const struct case3 *c = &runtime_cases[i];
        double v = est_runtime(c->a, c->b, c->c);
        TAP_EQ_DBL(v, c->want, tol(c->want), "est_runtime: %s", c->what);
        check_finite(v, "est_runtime", c->what);
    }
}

static void test_wall(void)
{
    size_t i;

    for (i = 0; i < sizeof wall_cases / sizeof wall_cases[0]; i++) {
        const struct case2 *c = &wall_cases[i];
        double v = est_wall(c->a, c->b);
        TAP_EQ_DBL(v, c->want, tol(c->want), "est_wall: %s", c->what);
        check_finite(v, "est_wall", c->what);
    }
}

static void test_sample(void)
{
    size_t i;

    for (i = 0; i < sizeof sample_cases / sizeof sample_cases[0]; i++) {
        const struct case3 *c = &sample_cases[i];
        double v = est_correction_sample(c->a, c->b, c->c);
        TAP_EQ_DBL(v, c->want, tol(c->want), "est_correction_sample: %s", c->what);
        TAP_CHECK(v >= EMIN && v <= EMAX, "est_correction_sample(%s): within bounds", c->what);
    }
}

static void test_update(void)
{
    size_t i;
    double c, prev;
    int k, monotone = 1;

    for (i = 0; i < sizeof update_cases / sizeof update_cases[0]; i++) {
        const struct update_case *u = &update_cases[i];
        double v = est_correction_update(u->old, u->n, u->sample);
        TAP_EQ_DBL(v, u->want, tol(u->want), "est_correction_update: %s", u->what);
        TAP_CHECK(v >= EMIN && v <= EMAX, "est_correction_update(%s): within bounds", u->what);
    }

    /* Repeated samples of 1.0 after a correction of 2.0: the factor falls
     * smoothly, 2 -> 1.9 -> 1.81 -> ..., i.e. 1 + 0.9^k, never below 1. */
    c = 2.0;
    for (k = 1; k <= 50; k++) {
        prev = c;
        c = est_correction_update(c, k, 1.0);
        if (!(c < prev && c > 1.0))
            monotone = 0;
    }
    TAP_CHECK(monotone, "decrease: strictly falling, stays above the sample");
    TAP_EQ_DBL(c, 1.0 + pow(0.9, 50), 1e-12, "decrease: 1 + 0.9^50 after 50 samples");
    /* One higher sample brings it straight back up. */
    TAP_EQ_DBL(est_correction_update(c, 51, 2.0), 2.0, 0, "increase after decay: at once");
}

static void test_avail(void)
{
    size_t i;

    for (i = 0; i < sizeof avail_cases / sizeof avail_cases[0]; i++) {
        const struct case2 *c = &avail_cases[i];
        double cpu = est_cpu_avail(c->a, c->b);
        double gpu = est_gpu_avail(c->a, c->b);
        TAP_EQ_DBL(cpu, c->want, tol(c->want), "est_cpu_avail: %s", c->what);
        TAP_EQ_DBL(gpu, c->want, tol(c->want), "est_gpu_avail: %s", c->what);
        TAP_CHECK(cpu >= EST_AVAIL_MIN && cpu <= 1, "est_cpu_avail(%s): in [0.01, 1]", c->what);
    }
}

/* Every function on every combination of awkward values: finite, never
 * NaN, and inside the documented range. */
static void test_awkward_grid(void)
{
    static const double vals[] = {NAN, INF, -INF, 0.0, -0.0, -1.0, 1e-300, 1e300,
                                  0.5, 1.0, 1e9, 1e12, 5e-324};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    int a, b, c, bad = 0, calls = 0;

    for (a = 0; a < nv; a++) {
        for (b = 0; b < nv; b++) {
            double v;

            v = est_wall(vals[a], vals[b]);
            bad += !(isfinite(v) && v >= 0 && v <= RMAX);
            v = est_cpu_avail(vals[a], vals[b]);
            bad += !(isfinite(v) && v >= EST_AVAIL_MIN && v <= 1);
            v = est_gpu_avail(vals[a], vals[b]);
            bad += !(isfinite(v) && v >= EST_AVAIL_MIN && v <= 1);
            calls += 3;
            for (c = 0; c < nv; c++) {
                v = est_runtime(vals[a], vals[b], vals[c]);
                bad += !(isfinite(v) && v >= 0 && v <= RMAX);
                v = est_correction_sample(vals[a], vals[b], vals[c]);
                bad += !(isfinite(v) && v >= EMIN && v <= EMAX);
                v = est_correction_update(vals[a], (long)c - 2, vals[b]);
                bad += !(isfinite(v) && v >= EMIN && v <= EMAX);
                calls += 3;
            }
        }
    }
    TAP_EQ_INT(bad, 0, "awkward inputs: %d calls, all results finite and in range", calls);
}

int main(void)
{
    test_runtime();
    test_wall();
    test_sample();
    test_update();
    test_avail();
    test_awkward_grid();
    return tap_done();
}
