/*
 * finish_line.c - a batch's projected end and the rule that keeps its
 * last jobs off hosts that would finish them late (finish_line.h).  Pure.
 */
#include "finish_line.h"

#include <math.h>
#include <stdlib.h>

double finish_line_left(const struct finish_counts *c)
{
    long long open;

    if (!c || c->needed <= 0)
        return 0;
    open = c->needed - c->succeeded;           /* successes still to come */
    if (open <= 0)
        return 0;
    if (c->in_progress < open)
        return (double)(open - c->in_progress) + 0.5 * (double)c->in_progress;
    return 0.5 * (double)open;                 /* more in progress than needed: backups */
}

double finish_line_eta(const struct finish_counts *c)
{
    double rate;

    if (!c || c->recent < FINISH_MIN_SUCCESSES || !(c->window > 0) ||
        !(c->fpops_per_result > 0) || !isfinite(c->fpops_per_result))
        return 0;
    rate = (double)c->recent / c->window;      /* results per second */
    return finish_line_left(c) / rate;
}

double finish_line_eta_capacity(double flops_left, double capacity)
{
    double eta;

    if (!(flops_left > 0) || !(capacity > 0) || !isfinite(flops_left) || !isfinite(capacity))
        return 0;
    eta = flops_left / capacity;
    return isfinite(eta) ? eta : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double finish_line_fast_flops(double *v, int n)
{
    int i, k = 0;
    if (!v || n <= 0)
        return 0;
    for (i = 0; i < n; i++)
        if (v[i] > 0 && isfinite(v[i]))
            v[k++] = v[i];
    if (k == 0)
        return 0;
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    i = (int)floor(FINISH_FAST_QUANTILE * (double)(k - 1) + 0.5);
    return v[i];
}

int finish_line_accepts(double eta_left, double fast_flops, double job_fpops, double start,
                        double wall, double slack)
{
    double bound, fast;

    if (!(slack > 0) || !(eta_left > 0) || !isfinite(eta_left))
        return 1;
    if (!(start >= 0))
        start = 0;
    if (!(wall >= 0) || !isfinite(wall))
        return 0;
    bound = eta_left;
    if (fast_flops > 0 && job_fpops > 0) {
        fast = job_fpops / fast_flops;
        if (isfinite(fast))
            bound += fast;
    }
    return start + wall <= slack * bound;
}

int finish_line_young_accepts(double idle_instances, int accepted, double start)
{
    if (idle_instances > 0 && isfinite(idle_instances) && accepted < ceil(idle_instances))
        return 1;
    return accepted == 0 && !(start > 0);
}
