/*
 * tail_pick.c - the choice of a backup replica in a batch's tail
 * (tail_pick.h).  Pure.
 */
#include "tail_pick.h"

#include <math.h>

double tail_remaining(const struct tail_cand *c, double now)
{
    double t = c->expected_secs > 0 ? c->expected_secs : 0, e = now - c->sent_time, r;
    if (c->host_lost)
        return c->report_deadline - now > 0 ? c->report_deadline - now : 0;
    r = fabs(t - e);
    return r > t / 2 ? r : t / 2;
}

int tail_budget_ample(double left, double job_fpops, int ncands, int complete)
{
    return complete && ncands > 0 && job_fpops > 0 && left >= ncands * job_fpops;
}

int tail_host_reliable(const struct tail_params *p, int turnaround_n)
{
    return turnaround_n >= (p->min_reports > 0 ? p->min_reports : 0);
}

int tail_pick(const struct tail_params *p, const struct tail_cand *c, int n, double now,
              double *deadline)
{
    double best_gain = 0, secs;
    int i, best = -1;

    for (i = 0; i < n; i++) {
        double rem, gain;
        if (!(c[i].backup_secs > 0))
            continue;
        rem = tail_remaining(&c[i], now);
        if (c[i].backup_secs > (c[i].ample ? 1.0 : p->gain_ratio) * rem)
            continue;
        gain = rem - c[i].backup_secs;
        if (best < 0 || gain > best_gain ||
            (gain == best_gain && c[i].sent_time < c[best].sent_time)) {
            best = i;
            best_gain = gain;
        }
    }
    if (best < 0)
        return -1;
    secs = p->deadline_factor * c[best].backup_secs;
    if (secs < TAIL_MIN_DEADLINE)
        secs = TAIL_MIN_DEADLINE;
    if (c[best].delay_bound > 0 && secs > c[best].delay_bound)
        secs = c[best].delay_bound;
    *deadline = now + ceil(secs);
    return best;
}
