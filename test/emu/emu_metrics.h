/*
 * emu_metrics.h - the paper's four metrics (seed 003, section 4), over a
 * host population.  Pure.
 *
 * Over all hosts, in flops (an instance's speed times the seconds it is
 * on; off time does not count):
 *   idleness        = flops left idle / flops available;
 *   waste           = flops of jobs that missed their deadline (or were
 *                     abandoned) / flops available.
 * Per host, then averaged over the hosts attached to more than one
 * project (0 when there are none):
 *   share violation = sum over projects of |used_p - U * s_p| / U, U the
 *                     flops used, s_p the share fraction, divided by its
 *                     largest possible value 2 * (1 - min s_p) so that
 *                     0 is best and 1 worst;
 *   monotony        = X / (1 + X), X = mean over projects of the RMS of
 *                     "time since the project last ran" over time on,
 *                     divided by (scheduling period * projects): 0 when
 *                     every project runs all the time, towards 1 when a
 *                     project waits long; X = 1 is round-robin on one CPU.
 * Each is in [0, 1].
 *
 * The one-range bound on hosts per file (emu_range_bound): hosts per
 * file if each host had been sent one contiguous range of the batch's
 * jobs, in job order, of as many jobs as it was sent; a lower bound, in
 * the mean over where such ranges can start, for any policy that gives
 * each host that many jobs (doc/emulator.md, "How far 1.5 R is").
 *
 * Idleness over time (struct emu_timeline): the flops available and
 * left idle in each hour of a run, so that a run's idleness can be split
 * into the start of a batch, its middle and its tail.
 */
#ifndef LOCSCHED_EMU_METRICS_H
#define LOCSCHED_EMU_METRICS_H

#include "emu_client.h"

double emu_share_violation(const double *used, const double *share, int n);
double emu_monotony(const double *idle_sumsq, int n, double on_time, double sched_period);

struct emu_metrics {
    double avail_flops, idle_flops, wasted_flops, used_flops;
    double gpu_avail_flops, gpu_idle_flops;
    double sv_sum, mono_sum;
    int nmulti;                    /* hosts with more than one project */
    long jobs_finished, jobs_late, jobs_aborted;
};

void emu_metrics_init(struct emu_metrics *m);

/*
 * The one-range bound.  Job j (in job order) reads files first[j] ..
 * first[j] + nfiles[j] - 1, as a workunit does; host h was sent
 * host_jobs[h] of the jobs.  A range of k jobs reads the files of those
 * k jobs; its count is averaged over the njobs - k + 1 places where the
 * range can start (every file the batch reads when k > njobs, none when
 * k = 0).  Returns the sum of those counts over the hosts divided by the
 * files the batch reads (0 when it reads none), or -1 when a count is
 * negative or memory runs out.
 */
double emu_range_bound(const int *first, const int *nfiles, int njobs, const int *host_jobs,
                       int nhosts);

/* Hours of a run kept one by one; later hours add to the last slot. */
#define EMU_TIMELINE_SLOTS 2400
#define EMU_TIMELINE_SLOT_SECS 3600.0

struct emu_timeline {
    double avail[EMU_TIMELINE_SLOTS];
    double idle[EMU_TIMELINE_SLOTS];
};

/* Add flops available and idle at `secs` seconds into the run. */
void emu_timeline_add(struct emu_timeline *tl, double secs, double avail, double idle);

/* Flops left idle in [from, to) seconds into the run (a slot cut by a
 * bound counts in proportion), over all the flops available in the run:
 * the shares of consecutive spans add up to the run's idleness. */
double emu_timeline_idle_share(const struct emu_timeline *tl, double from, double to);

/* Add one host's figures (when it leaves, or at the end of the run). */
void emu_metrics_add(struct emu_metrics *m, const struct emu_client *c);

double emu_idleness(const struct emu_metrics *m);
/* Idleness of the CPUs alone and of the GPUs alone. */
double emu_cpu_idleness(const struct emu_metrics *m);
double emu_gpu_idleness(const struct emu_metrics *m);
double emu_waste(const struct emu_metrics *m);
double emu_mean_share_violation(const struct emu_metrics *m);
double emu_mean_monotony(const struct emu_metrics *m);

#endif
