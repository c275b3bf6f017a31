/*
 * finish_line.h - the last stretch of a batch: send a job only to a host
 * that will finish it by the time the batch is expected to be done.
 * Pure: the transitioner reads the counts and the hosts, has the batch's
 * projection chosen (finish_line_choose) and stores it in the batch row;
 * the scheduler checks each job against it (finish_line_accepts).
 *
 * Why: a client asks for a buffer of work (hours, up to days), and a
 * slow host may take many times longer than a fast one to run one job.
 * While a batch has plenty of work left this is harmless.  In its last
 * stretch, jobs queued deep in a fast host's buffer, or sent to a host
 * that needs a day for one job, finish long after the rest of the hosts
 * ran out of work: that tail, not the volume of work, sets the batch's
 * makespan.  Backups (tail_pick.h) repair such a tail at the price of
 * extra computing; the finish line keeps it from forming, at no price.
 *
 * The projection: the work the batch still needs (results not yet
 * successful, those in progress counted as half done) divided by the rate
 * at which the batch's results have been coming back (successes received
 * in a recent window).  Until that rate is known, the work all active
 * batches still need divided by the speed of the hosts seen in the last
 * day (finish_line_eta_capacity): exact for a batch that has the hosts to
 * itself, later (so milder) when batches share them.
 *
 * A young batch (finish_line_young) with no projection at all yet, before
 * the transitioner's first steps have seen the hosts: a job goes only to
 * an idle instance (finish_line_young_accepts).  Without it, a batch smaller
 * than the hosts' buffers together went out in full buffers to the first
 * hosts that asked, and then waited for the slowest deep queue (5 to 15
 * times the ideal makespan in the emulator).
 *
 * The rule: a job goes to a host only if the host is expected to finish
 * it (the wait before an instance is free, the work already accepted for
 * this reply, then the job itself) within slack times the time left to
 * the projected end, plus what the job takes on a fast host (the quantile
 * FINISH_FAST_QUANTILE of the active hosts' speed per instance; times the
 * slack too when it is above 1).  The projection assumes the work divides
 * perfectly; jobs do not, and the last one started ends up to a job's time
 * later.  The second term also keeps the last jobs moving: a fast host
 * with a free instance always takes them, whatever the slack (with the
 * slack on it, a slack below 1 left the last jobs to hosts faster than the
 * fast quantile, and they waited for the projected end to pass).
 */
#ifndef LOCSCHED_FINISH_LINE_H
#define LOCSCHED_FINISH_LINE_H

/* Which hosts count as "fast": this quantile of speed per instance. */
#define FINISH_FAST_QUANTILE 0.8
/* Seconds of received results that measure a batch's rate (at most). */
#define FINISH_RATE_WINDOW (12 * 3600)
/* The rate is not trusted on fewer successes than this in its window. */
#define FINISH_MIN_SUCCESSES 8

struct finish_counts {
    long long needed;        /* successes the batch needs: jobs x min_quorum */
    long long succeeded;     /* successful results received */
    long long in_progress;   /* results in progress */
    long long recent;        /* successes received in the window */
    double window;           /* seconds the window covers (its start to now) */
    double fpops_per_result; /* mean estimated flops of one result */
};

/*
 * The results the batch still needs, counting those in progress as half
 * done (0 when none or on bad input).
 */
double finish_line_left(const struct finish_counts *c);

/*
 * The batch's projected end, in seconds from now (> 0), or 0 when it has
 * no finish line: rate unknown (too few recent successes), or bad input.
 */
double finish_line_eta(const struct finish_counts *c);

/*
 * The projected end (seconds from now) from the hosts' speed when the rate
 * is unknown: flops_left, the work still needed by the active batches;
 * capacity, the flops per second of the hosts seen lately (instances x
 * speed x availability).  0 when either is unknown.
 */
double finish_line_eta_capacity(double flops_left, double capacity);

/*
 * The speed per instance (flops) of a fast host: the FINISH_FAST_QUANTILE
 * quantile of v[0..n) (sorted in place; non-positive and non-finite
 * values are ignored).  0 when there is none.
 */
double finish_line_fast_flops(double *v, int n);

/*
 * The hosts seen lately, gathered one at a time (finish_line_add_host)
 * into arrays of cap entries that the caller owns.
 */
struct finish_speeds {
    double *all;         /* speed per instance of every host seen */
    double *busy;        /* ... of those that hold a result in progress */
    int n, nbusy, cap;
    double capacity;     /* flops per second of the hosts that hold work */
};

/*
 * Add one host: p_fpops its CPU speed per instance, ncpus its instances,
 * on_frac and active_frac its availability, busy whether it holds a
 * result in progress.  Every host counts for the fast host of a line from
 * the batch's rate; only a busy one with a usable speed counts for the
 * capacity, and for the fast host of a line from it: hosts attached but
 * not working for the project (gone, "no new tasks", other projects)
 * would make that line too early and too strict.  Returns 1 when the
 * arrays are full (the host is not added), else 0.
 */
int finish_line_add_host(struct finish_speeds *s, double p_fpops, int ncpus, double on_frac,
                         double active_frac, int busy);

/* What the batches' lines need of the hosts (finish_line_hosts). */
struct finish_hosts {
    double capacity;     /* flops per second of the hosts that hold work; 0 none */
    double fast_all;     /* a fast host's speed per instance, of every host seen */
    double fast_busy;    /* ... of the hosts that hold work */
};

/* Sum up the hosts gathered in *s (its arrays are sorted in place). */
void finish_line_hosts(struct finish_speeds *s, struct finish_hosts *out);

/*
 * The work (flops) that the batches of counts c[0..n) still need
 * together; a batch of unusable job size counts for nothing.
 */
double finish_line_flops_left(const struct finish_counts *c, int n);

/* One batch's finish line, as stored (finish_line_choose). */
struct finish_choice {
    int eta;             /* projected end, Unix time; 0: none */
    double fast_flops;   /* a fast host's speed per instance to go with it */
    int from_rate;       /* 1: from the batch's rate; 0: from the hosts' speed, or none */
};

/*
 * The finish line of the batch of counts *c at Unix time now, given
 * flops_left (finish_line_flops_left of all the active batches) and the
 * hosts *h.  The projection from the batch's rate, with the fast host of
 * all hosts seen; but from the hosts' speed (finish_line_eta_capacity),
 * with the fast host of the busy ones, when the batch still needs
 * results and either the rate is unknown, or the rate's window still
 * reaches back to the batch's creation (it trails then: nothing comes
 * back in a job's first run) and the hosts' speed gives the sooner end.
 * No projection (eta 0) when neither is known, or beyond ten years.
 */
void finish_line_choose(const struct finish_counts *c, double flops_left,
                        const struct finish_hosts *h, long now, struct finish_choice *out);

/*
 * May a job go to this host?  eta_left: seconds to the batch's projected
 * end (<= 0: no finish line, always yes); fast_flops: a fast host's speed
 * per instance (<= 0: unknown, the first bound only); job_fpops: the job's
 * estimated flops; start: seconds until the job would start on this host;
 * wall: its wall-clock time there; slack: the setting finish_line_slack
 * (<= 0: the rule is off, always yes).
 */
int finish_line_accepts(double eta_left, double fast_flops, double job_fpops, double start,
                        double wall, double slack);

/*
 * May a job of a young batch with no projection yet go to this host?
 * Only to an idle instance: idle_instances is what the client reported
 * idle (req_instances), accepted the jobs already accepted for this reply
 * on that resource.  A client that reports no idle instances (an old one)
 * gets one job when nothing is queued (start: seconds until an instance
 * is free, <= 0).
 */
int finish_line_young_accepts(double idle_instances, int accepted, double start);

#endif
