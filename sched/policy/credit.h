/*
 * credit.h - credit arithmetic shared by the scheduler, the daemons and
 * the tools: the credit of a job, a host's credit rate, and the
 * exponentially decaying average (expavg_credit) with BOINC's half-life.
 *
 * Units: credit is the cobblestone (200 credits per day of a 1 GFLOPS
 * machine); rates (expavg_credit, locality_cursor.expavg_credit) are
 * credit per day; est_time_left is in days.  Pure functions, no I/O.
 */
#ifndef LOCSCHED_CREDIT_H
#define LOCSCHED_CREDIT_H

/* Credits for one day of 1e9 floating-point operations per second. */
#define CREDIT_PER_GFLOPS_DAY 200.0

/* Credit of a job estimated at fpops floating-point operations. */
double credit_of_fpops(double fpops);

/* avg decayed from avg_time to now with the given half-life (seconds). */
double credit_decay(double avg, double avg_time, double now, double half_life);

/*
 * Add work (credit) earned at now to the average *avg last updated at
 * *avg_time (0: never), BOINC-style: the old average decays by the
 * half-life and the new work enters as a rate per day.  Both are updated.
 */
void credit_update_average(double *avg, double *avg_time, double work, double now,
                           double half_life);

/* What the locality scheduler counts for one host. */
struct host_speed {
    double p_fpops;        /* per CPU, flops */
    int p_ncpus;
    double on_frac, active_frac;
    double expavg_credit;  /* credit per day */
    double expavg_time;    /* when expavg_credit was last updated */
    double gpu_flops;      /* flops the host's GPUs achieve for the batch's app, all
                            * instances together (0: none, or no GPU version) */
    double gpu_active_frac;
};

/*
 * A host's credit rate (credit per day): the larger of its decayed
 * expavg_credit and what its benchmarks predict (p_fpops * p_ncpus *
 * on_frac * active_frac, plus gpu_flops * on_frac * gpu_active_frac).
 * The estimate carries new hosts, whose average takes weeks to build up;
 * without the GPUs a GPU host's would stay a fraction of its speed for
 * the whole of a batch.  Never negative, never NaN.
 */
double host_credit_rate(const struct host_speed *h, double now, double half_life);

/*
 * est_time_left of a cursor, in days: remaining / rate.  0 when nothing
 * remains; HUGE_VAL when work remains and the team is empty.
 */
double est_time_left(double remaining_credit, double expavg_credit);

#endif
