/*
 * emu_metrics.c - idleness, waste, share violation, monotony, the
 * one-range bound on hosts per file (emu_metrics.h).
 */
#include "emu_metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double clamp01(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

double emu_share_violation(const double *used, const double *share, int n)
{
    double total = 0, shares = 0, sum = 0, min_s = 1;
    int p;
    if (n < 2)
        return 0;
    for (p = 0; p < n; p++) {
        total += used[p];
        shares += share[p];
    }
    if (total <= 0 || shares <= 0)
        return 0;
    for (p = 0; p < n; p++) {
        double s = share[p] / shares;
        sum += fabs(used[p] - total * s);
        if (s < min_s)
            min_s = s;
    }
    if (min_s >= 1)
        return 0;
    return clamp01(sum / total / (2 * (1 - min_s)));
}

double emu_monotony(const double *idle_sumsq, int n, double on_time, double sched_period)
{
    double sum = 0, x;
    int p;
    if (n < 1 || on_time <= 0 || sched_period <= 0)
        return 0;
    for (p = 0; p < n; p++)
        sum += sqrt(idle_sumsq[p] / on_time);
    x = sum / n / (sched_period * n);
    return clamp01(x / (1 + x));
}

void emu_metrics_init(struct emu_metrics *m)
{
    memset(m, 0, sizeof *m);
}

void emu_metrics_add(struct emu_metrics *m, const struct emu_client *c)
{
    double used[EMU_MAX_PROJ], share[EMU_MAX_PROJ], sumsq[EMU_MAX_PROJ];
    int p;

    m->avail_flops += c->avail_flops;
    m->idle_flops += c->idle_flops;
    m->gpu_avail_flops += c->gpu_avail_flops;
    m->gpu_idle_flops += c->gpu_idle_flops;
    m->wasted_flops += c->wasted_flops;
    m->used_flops += c->used_flops;
    m->jobs_finished += c->jobs_finished;
    m->jobs_late += c->jobs_late;
    m->jobs_aborted += c->jobs_aborted;
    if (c->nproj < 2 || c->on_time <= 0)
        return;
    for (p = 0; p < c->nproj; p++) {
        used[p] = c->proj[p].used_flops;
        share[p] = c->proj[p].share;
        sumsq[p] = c->proj[p].idle_sumsq;
    }
    m->sv_sum += emu_share_violation(used, share, c->nproj);
    m->mono_sum += emu_monotony(sumsq, c->nproj, c->on_time, c->par.sched_period);
    m->nmulti++;
}

double emu_idleness(const struct emu_metrics *m)
{
    return m->avail_flops > 0 ? clamp01(m->idle_flops / m->avail_flops) : 0;
}

double emu_cpu_idleness(const struct emu_metrics *m)
{
    double a = m->avail_flops - m->gpu_avail_flops;
    return a > 0 ? clamp01((m->idle_flops - m->gpu_idle_flops) / a) : 0;
}

double emu_gpu_idleness(const struct emu_metrics *m)
{
    return m->gpu_avail_flops > 0 ? clamp01(m->gpu_idle_flops / m->gpu_avail_flops) : 0;
}

double emu_waste(const struct emu_metrics *m)
{
    return m->avail_flops > 0 ? clamp01(m->wasted_flops / m->avail_flops) : 0;
}

double emu_mean_share_violation(const struct emu_metrics *m)
{
    return m->nmulti ? m->sv_sum / m->nmulti : 0;
}

double emu_mean_monotony(const struct emu_metrics *m)
{
    return m->nmulti ? m->mono_sum / m->nmulti : 0;
}

static int timeline_slot(double secs)
{
    double k = secs / EMU_TIMELINE_SLOT_SECS;
    if (!(k >= 0))
        return 0;
    return k >= EMU_TIMELINE_SLOTS - 1 ? EMU_TIMELINE_SLOTS - 1 : (int)k;
}

void emu_timeline_add(struct emu_timeline *tl, double secs, double avail, double idle)
{
    int k = timeline_slot(secs);
    tl->avail[k] += avail;
    tl->idle[k] += idle;
}

double emu_timeline_idle_share(const struct emu_timeline *tl, double from, double to)
{
    double total = 0, idle = 0;
    int k;

    for (k = 0; k < EMU_TIMELINE_SLOTS; k++) {
        double lo = k * EMU_TIMELINE_SLOT_SECS, hi = lo + EMU_TIMELINE_SLOT_SECS, part;
        total += tl->avail[k];
        if (k == EMU_TIMELINE_SLOTS - 1)
            hi = INFINITY;         /* the last slot holds everything later */
        if (hi <= from || lo >= to)
            continue;
        if (isinf(hi))
            part = lo >= from && to >= hi ? 1 : 0;
        else
            part = ((to < hi ? to : hi) - (from > lo ? from : lo)) / EMU_TIMELINE_SLOT_SECS;
        idle += tl->idle[k] * part;
    }
    return total > 0 ? idle / total : 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Add (delta 1) or take away (-1) job j's files in the window's counts;
 * *distinct follows the files with a count above 0. */
static void window_move(int *count, int lo, const int *first, const int *nfiles, int j,
                        int delta, long *distinct)
{
    int f;
    for (f = first[j]; f < first[j] + nfiles[j]; f++) {
        int *c = &count[f - lo];
        if (delta > 0 && (*c)++ == 0)
            (*distinct)++;
        else if (delta < 0 && --(*c) == 0)
            (*distinct)--;
    }
}

/* Files read by k consecutive jobs (1 <= k <= njobs), summed over the
 * njobs - k + 1 places where they can start: one window slid over the
 * jobs.  count[] has room for every file, from lo, and is left zeroed. */
static double window_files(int *count, int lo, const int *first, const int *nfiles, int njobs,
                           int k)
{
    long distinct = 0;
    double total;
    int j;
    for (j = 0; j < k; j++)
        window_move(count, lo, first, nfiles, j, 1, &distinct);
    total = (double)distinct;
    for (j = k; j < njobs; j++) {
        window_move(count, lo, first, nfiles, j - k, -1, &distinct);
        window_move(count, lo, first, nfiles, j, 1, &distinct);
        total += (double)distinct;
    }
    for (j = njobs - k; j < njobs; j++)
        window_move(count, lo, first, nfiles, j, -1, &distinct);
    return total;
}

double emu_range_bound(const int *first, const int *nfiles, int njobs, const int *host_jobs,
                       int nhosts)
{
    int lo = 0, hi = -1, j, h, end, *count = NULL, *sorted = NULL;
    long files = 0;
    double sum = 0;

    for (h = 0; h < nhosts; h++)
        if (host_jobs[h] < 0)
            return -1;
    for (j = 0; j < njobs; j++) {
        if (nfiles[j] <= 0)
            continue;
        if (hi < lo || first[j] < lo)
            lo = first[j];
        if (first[j] + nfiles[j] - 1 > hi)
            hi = first[j] + nfiles[j] - 1;
    }
    if (hi < lo)
        return 0;
    count = calloc((size_t)(hi - lo + 1), sizeof *count);
    sorted = malloc(sizeof *sorted * (size_t)(nhosts > 0 ? nhosts : 1));
    if (!count || !sorted) {
        free(count);
        free(sorted);
        return -1;
    }
    /* the files the batch reads: one window over all its jobs */
    for (j = 0; j < njobs; j++)
        window_move(count, lo, first, nfiles, j, 1, &files);
    memset(count, 0, sizeof *count * (size_t)(hi - lo + 1));
    /* each distinct range length once, times the hosts of that length */
    memcpy(sorted, host_jobs, sizeof *sorted * (size_t)nhosts);
    qsort(sorted, (size_t)nhosts, sizeof *sorted, cmp_int);
    for (h = 0; h < nhosts; h = end) {
        int k = sorted[h];
        double mean;
        for (end = h; end < nhosts && sorted[end] == k; end++)
            ;
        if (k == 0)
            mean = 0;
        else if (k > njobs)
            mean = (double)files;
        else
            mean = window_files(count, lo, first, nfiles, njobs, k) / (njobs - k + 1);
        sum += mean * (end - h);
    }
    free(count);
    free(sorted);
    return sum / (double)files;
}
