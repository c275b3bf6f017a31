/*
 * host_rhythm.h - what the server learns about how a host behaves, and
 * when it presumes the host gone.  Pure: no I/O, no clock.
 *
 * Rhythm: the seconds between a host's RPCs.  RPCs closer than
 * RHYTHM_MIN_GAP are one contact (a client's work fetch can take several
 * RPCs in a minute).  Each gap moves an exponentially weighted mean and
 * mean absolute deviation, with the larger of two weights: 1 / n for the
 * n-th gap (the first few make a plain mean, so a new host's rhythm is
 * known after a few contacts) and 1 - exp(-gap / RHYTHM_MEMORY), which
 * grows with the gap's length: a gap stands for the time it spans, so a
 * host's nightly 12-hour silence weighs as much as half a day of short
 * gaps, and what the host did RHYTHM_MEMORY ago fades.  The first gap
 * sets the mean to the gap and the deviation to half of it.  (The
 * scheduler asks hosts that hold its results to call back within
 * next_rpc_delay, so that an alive host's gaps stay short while it is on.)
 *
 * Turnaround (BOINC's host.avg_turnaround): seconds from sending a result
 * to its successful report, weighted mean with weight 1/n for the first
 * few reports and TURNAROUND_WEIGHT afterwards.
 *
 * Presumed gone: silent for more than
 *     max(min_silence, gap_factor * (rpc_gap_avg + 4 * rpc_gap_dev))
 * seconds; a host whose rhythm is not known yet (no gap counted: one
 * contact) after new_silence seconds.  The 4 deviations are the margin (as in
 * TCP's retransmission timeout); min_silence is the floor.
 */
#ifndef LOCSCHED_HOST_RHYTHM_H
#define LOCSCHED_HOST_RHYTHM_H

#define RHYTHM_MIN_GAP 60.0
#define RHYTHM_MEMORY 86400.0
#define TURNAROUND_WEIGHT 0.2

struct host_rhythm {
    double gap_avg;                /* seconds; 0: not learned yet */
    double gap_dev;
    int gap_n;                     /* gaps counted */
    double avg_turnaround;         /* seconds; meaningful when turnaround_n > 0 */
    int turnaround_n;
};

struct lost_params {
    double gap_factor;             /* lost_host_gap_factor */
    double min_silence;            /* lost_host_min_silence, seconds */
    double new_silence;            /* lost_host_new_silence, seconds */
};

/* A new RPC gap_secs after the previous one (ignored below RHYTHM_MIN_GAP,
 * or when not finite). */
void rhythm_add_gap(struct host_rhythm *h, double gap_secs);

/* A successful report turnaround_secs after the result was sent (ignored
 * when negative or not finite). */
void rhythm_add_turnaround(struct host_rhythm *h, double turnaround_secs);

/* Seconds of silence after which the host is presumed gone. */
double rhythm_silence_limit(const struct host_rhythm *h, const struct lost_params *p);

/* 1 when a host silent for silent_secs is presumed gone. */
int rhythm_presumed_lost(const struct host_rhythm *h, const struct lost_params *p,
                         double silent_secs);

#endif
