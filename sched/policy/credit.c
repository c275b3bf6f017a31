/*
 * credit.c - credit arithmetic: job credit, host credit rate, decaying
 * averages.  See credit.h for the units.
 */
#include "credit.h"

#include <math.h>

#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif

#define SECONDS_PER_DAY 86400.0

static double finite_nonneg(double x)
{
    return (isfinite(x) && x > 0) ? x : 0;
}

double credit_of_fpops(double fpops)
{
    return finite_nonneg(fpops) / 1e9 / SECONDS_PER_DAY * CREDIT_PER_GFLOPS_DAY;
}

double credit_decay(double avg, double avg_time, double now, double half_life)
{
    double dt;

    avg = finite_nonneg(avg);
    if (avg == 0 || !(avg_time > 0) || !(half_life > 0))
        return avg;
    dt = now - avg_time;
    if (!(dt > 0))
        return avg;
    return avg * exp(-dt * M_LN2 / half_life);
}

void credit_update_average(double *avg, double *avg_time, double work, double now,
                           double half_life)
{
    double a = finite_nonneg(*avg), dt, w;

    work = finite_nonneg(work);
    if (!(half_life > 0))
        half_life = 7 * SECONDS_PER_DAY;
    if (*avg_time > 0) {
        dt = now - *avg_time;
        if (!(dt > 0))
            dt = 0;
        w = exp(-dt * M_LN2 / half_life);
        a *= w;
        /* The new work enters as a rate spread over the interval; when
         * the interval is tiny, use the limit of that expression. */
        if (1 - w > 1e-6)
            a += (1 - w) * work / (dt / SECONDS_PER_DAY);
        else
            a += M_LN2 * work * SECONDS_PER_DAY / half_life;
    } else if (work > 0) {
        /* First credit: count it as one half-life's worth of rate. */
        a = work * M_LN2 * SECONDS_PER_DAY / half_life;
    }
    *avg = finite_nonneg(a);
    *avg_time = now;
}

double host_credit_rate(const struct host_speed *h, double now, double half_life)
{
    double bench, avg, on = h->on_frac, act = h->active_frac, gact = h->gpu_active_frac;
    int ncpus = h->p_ncpus > 0 ? h->p_ncpus : 1;

    if (!(on > 0) || on > 1)
        on = 1;
    if (!(act > 0) || act > 1)
        act = 1;
    if (!(gact > 0) || gact > 1)
        gact = 1;
    bench = finite_nonneg(h->p_fpops) * ncpus * on * act / 1e9 * CREDIT_PER_GFLOPS_DAY;
    bench += finite_nonneg(h->gpu_flops) * on * gact / 1e9 * CREDIT_PER_GFLOPS_DAY;
    avg = credit_decay(h->expavg_credit, h->expavg_time, now, half_life);
    return finite_nonneg(avg > bench ? avg : bench);
}

double est_time_left(double remaining_credit, double expavg_credit)
{
    remaining_credit = finite_nonneg(remaining_credit);
    if (remaining_credit == 0)
        return 0;
    if (!(expavg_credit > 0) || !isfinite(expavg_credit))
        return HUGE_VAL;
    return remaining_credit / expavg_credit;
}
