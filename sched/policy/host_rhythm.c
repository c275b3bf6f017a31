/*
 * host_rhythm.c - a host's RPC rhythm and turnaround, and when it is
 * presumed gone (host_rhythm.h).  Pure.
 */
#include "host_rhythm.h"

#include <math.h>

void rhythm_add_gap(struct host_rhythm *h, double gap)
{
    double w, dev;
    if (!isfinite(gap) || gap < RHYTHM_MIN_GAP)
        return;
    if (!(h->gap_avg > 0) || h->gap_n <= 0) {
        h->gap_avg = gap;
        h->gap_dev = gap / 2;
        h->gap_n = 1;
        return;
    }
    if (h->gap_n < 1000000)
        h->gap_n++;
    w = 1 - exp(-gap / RHYTHM_MEMORY);
    if (w < 1.0 / h->gap_n)
        w = 1.0 / h->gap_n;
    dev = fabs(gap - h->gap_avg);
    h->gap_avg += w * (gap - h->gap_avg);
    h->gap_dev += w * (dev - h->gap_dev);
}

void rhythm_add_turnaround(struct host_rhythm *h, double t)
{
    double w;
    if (!isfinite(t) || t < 0)
        return;
    if (h->turnaround_n < 0 || !(h->avg_turnaround >= 0))
        h->turnaround_n = 0;
    w = 1.0 / (h->turnaround_n + 1);
    if (w < TURNAROUND_WEIGHT)
        w = TURNAROUND_WEIGHT;
    h->avg_turnaround = h->turnaround_n == 0 ? t : h->avg_turnaround + w * (t - h->avg_turnaround);
    if (h->turnaround_n < 1000000)
        h->turnaround_n++;
}

double rhythm_silence_limit(const struct host_rhythm *h, const struct lost_params *p)
{
    double limit;
    if (!(h->gap_avg > 0) || h->gap_n <= 0)
        return p->new_silence > p->min_silence ? p->new_silence : p->min_silence;
    limit = p->gap_factor * (h->gap_avg + 4 * (h->gap_dev > 0 ? h->gap_dev : 0));
    return limit > p->min_silence ? limit : p->min_silence;
}

int rhythm_presumed_lost(const struct host_rhythm *h, const struct lost_params *p,
                         double silent_secs)
{
    return silent_secs > rhythm_silence_limit(h, p);
}
