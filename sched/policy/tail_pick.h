/*
 * tail_pick.h - which in-progress result of a batch's tail gets a backup
 * replica on the host asking for work, and its deadline.  Pure: the
 * scheduler's tail source (job_source_tail.c) reads the candidates and
 * writes what this decides.
 *
 * A candidate is a result in progress whose job has every result sent.
 * Its expected remaining time: T is its host's average turnaround (or,
 * without one, its estimated runtime on that host) and e the time since
 * it was sent; |T - e|, at least T / 2: turnarounds vary (queues, off
 * periods), so a result near its expected time may well take half as
 * long again, and one overdue by x is expected to take about x more (the
 * later a host is, the more likely it is off, slow or gone).  A result
 * whose host is presumed gone has until its deadline.
 *
 * The backup goes to the candidate with the greatest gain (expected
 * remaining time of the original minus the backup's expected time on this
 * host), among those where the backup's time is at most gain_ratio times
 * the original's remaining time; ties go to the oldest.  The ratio guards
 * the budget: a backup only a little faster than its original may win
 * the race, but a scarce budget is better kept for the results that are
 * far behind.  When the budget left covers a backup of every candidate of
 * the batch (ample), there is nothing to keep it for, and the bar is
 * only that the backup be expected to finish first (ratio 1).  Its deadline is
 * deadline_factor times the backup's expected time from now, at least
 * TAIL_MIN_DEADLINE and at most the job's delay_bound: a short deadline
 * also makes the client run it before its other work.
 *
 * Only a host with a turnaround history (min_reports successful reports)
 * gets backups: one that has never returned a result is not reliable.
 */
#ifndef LOCSCHED_TAIL_PICK_H
#define LOCSCHED_TAIL_PICK_H

#define TAIL_MIN_DEADLINE 3600.0

struct tail_params {
    double gain_ratio;             /* tail_gain_ratio */
    double deadline_factor;        /* tail_deadline_factor */
    int min_reports;               /* tail_min_reports */
};

struct tail_cand {
    double sent_time;
    double expected_secs;          /* T: its expected turnaround on its host */
    int host_lost;                 /* its host is presumed gone */
    double report_deadline;
    double backup_secs;            /* the backup's expected time on the asking host;
                                    * <= 0: this host cannot run it */
    int ample;                     /* its batch's budget left covers a backup of each of
                                    * its candidates (tail_budget_ample) */
    int delay_bound;
};

/*
 * Does a batch's budget cover a backup of each of its candidates?  left:
 * flops the budget still has; job_fpops: one backup's; ncands: the
 * batch's candidates; complete: those are all of them (the candidates'
 * read was not cut by its limit).
 */
int tail_budget_ample(double left, double job_fpops, int ncands, int complete);

/* The original's expected remaining time at now. */
double tail_remaining(const struct tail_cand *c, double now);

/* May a host with n successful reports get backups? */
int tail_host_reliable(const struct tail_params *p, int turnaround_n);

/* The index of the candidate to back up, or -1; *deadline gets the
 * backup's report deadline (absolute). */
int tail_pick(const struct tail_params *p, const struct tail_cand *c, int n, double now,
              double *deadline);

#endif
