/*
 * finish_line.c - a batch's projected end and the rule that keeps its
 * last jobs off hosts that would finish them late (finish_line.h).  Pure.
 */
#include "finish_line.h"

#include <math.h>
#include <stdlib.h>

#include "estimate.h"

/* Instances of one host counted for the capacity, at most. */
#define FINISH_MAX_NCPUS 1024
/* A projection further away than this is none. */
#define FINISH_MAX_ETA (3650.0 * 86400)

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

int finish_line_add_host(struct finish_speeds *s, double p_fpops, int ncpus, double on_frac,
                         double active_frac, int busy)
{
    double per_instance;

    if (s->n >= s->cap)
        return 1;
    per_instance = p_fpops * est_cpu_avail(on_frac, active_frac);
    s->all[s->n++] = per_instance;     /* finish_line_fast_flops skips unusable ones */
    if (busy && ncpus > 0 && per_instance > 0 && isfinite(per_instance)) {
        s->capacity += per_instance * (ncpus > FINISH_MAX_NCPUS ? FINISH_MAX_NCPUS : ncpus);
        s->busy[s->nbusy++] = per_instance;
    }
    return 0;
}

void finish_line_hosts(struct finish_speeds *s, struct finish_hosts *out)
{
    out->capacity = s->capacity;
    out->fast_all = finish_line_fast_flops(s->all, s->n);
    out->fast_busy = finish_line_fast_flops(s->busy, s->nbusy);
}

double finish_line_flops_left(const struct finish_counts *c, int n)
{
    double flops = 0;
    int i;

    for (i = 0; c && i < n; i++)
        if (c[i].fpops_per_result > 0 && isfinite(c[i].fpops_per_result))
            flops += finish_line_left(&c[i]) * c[i].fpops_per_result;
    return flops;
}

void finish_line_choose(const struct finish_counts *c, double flops_left,
                        const struct finish_hosts *h, long now, struct finish_choice *out)
{
    static const struct finish_hosts no_hosts;
    double left = finish_line_eta(c), capacity_eta;

    if (!h)
        h = &no_hosts;
    capacity_eta = finish_line_eta_capacity(flops_left, h->capacity);

    out->from_rate = left > 0;
    out->fast_flops = h->fast_all;
    if ((!out->from_rate || c->window < FINISH_RATE_WINDOW) && capacity_eta > 0 &&
        (!out->from_rate || capacity_eta < left) && finish_line_left(c) > 0) {
        left = capacity_eta;
        out->from_rate = 0;
        out->fast_flops = h->fast_busy;
    }
    out->eta = left > 0 && left < FINISH_MAX_ETA ? (int)now + (int)ceil(left) : 0;
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
    bound = slack * eta_left;
    if (fast_flops > 0 && job_fpops > 0) {
        fast = job_fpops / fast_flops;
        if (isfinite(fast))
            bound += (slack > 1 ? slack : 1) * fast;
    }
    return start + wall <= bound;
}

int finish_line_young_accepts(double idle_instances, int accepted, double start)
{
    if (idle_instances > 0 && isfinite(idle_instances) && accepted < ceil(idle_instances))
        return 1;
    return accepted == 0 && !(start > 0);
}
