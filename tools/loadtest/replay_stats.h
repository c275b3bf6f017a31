/*
 * replay_stats.h - the load replay's figures: latency samples and their
 * percentiles, and the counters of what happened (requests, jobs,
 * reports, errors by kind, notices, the reasons for no work).  Pure: no
 * I/O, no clock.
 */
#ifndef LOCSCHED_REPLAY_STATS_H
#define LOCSCHED_REPLAY_STATS_H

#include <stddef.h>

/* Latency samples in milliseconds, in arrival order until summarised. */
struct lat_samples {
    double *ms;
    size_t n, cap;
    int oom;                 /* a sample could not be stored */
};

struct lat_summary {
    size_t n;
    double p50, p90, p99, max, mean;
};

/* Add one sample.  Returns 0, or -1 when out of memory (counted in oom). */
int lat_add(struct lat_samples *s, double ms);

/* Sort the samples (in place) and fill sum.  All zero for no samples. */
void lat_summarize(struct lat_samples *s, struct lat_summary *sum);

/* Nearest-rank percentile p (0 < p <= 100) of n sorted values: the
 * smallest value with at least p% of the values at or below it.
 * Returns 0 for n == 0. */
double lat_percentile(const double *sorted, size_t n, double p);

void lat_free(struct lat_samples *s);

/* Kinds of errors the replay counts. */
enum replay_err {
    RE_TRANSPORT = 0,   /* no HTTP reply: connect, reset, timeout */
    RE_HTTP,            /* HTTP status other than 200 */
    RE_UNPARSEABLE,     /* not a well-formed <scheduler_reply> */
    RE_MESSAGE,         /* an error reply: the request was refused, not handled */
    RE_PROTOCOL,        /* reply inconsistent with the request: a report not
                           acknowledged, no hostid for a new host, ... */
    RE_DOUBLE_SEND,     /* a result sent to a second host (or twice) */
    RE_NKINDS
};

/* Short name of an error kind ("transport", "http", ...). */
const char *replay_err_name(enum replay_err e);

/* Distinct no-work reasons counted by name, at most (then "other"). */
#define REPLAY_MAX_REASONS 16

/* How often each reason for no work was given (per resource). */
struct reason_counts {
    char name[REPLAY_MAX_REASONS][32];
    unsigned long n[REPLAY_MAX_REASONS];
    int count;                     /* names in use */
    unsigned long other;           /* reasons past the table, or too long */
};

/* Count one reason (an empty one counts as "none given"). */
void reason_add(struct reason_counts *t, const char *reason);

struct replay_counts {
    unsigned long requests;        /* replies received (any outcome) */
    unsigned long ok;              /* replies without error */
    unsigned long jobs;            /* results received by hosts */
    unsigned long reported;        /* results reported (and acknowledged) */
    unsigned long with_jobs;       /* replies carrying at least one job */
    unsigned long asked_work;      /* requests that asked for work */
    unsigned long no_work;         /* work requests answered without a job */
    unsigned long notices;         /* handled replies with a notice (not errors) */
    struct reason_counts reasons;  /* the reasons given for no work */
    unsigned long bytes_sent;
    unsigned long bytes_received;
    unsigned long errors[RE_NKINDS];
};

/* Sum of all error kinds. */
unsigned long replay_errors_total(const struct replay_counts *c);

#endif
