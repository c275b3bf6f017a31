/*
 * emu_stub.h - the other projects a host may be attached to ("several
 * projects are optional", issue 7), and the job-size model shared with
 * the real project.
 *
 * A stub project always has work: jobs that all carry the same estimate
 * fpops_est and really take fpops_est * f * X flops, X log-normal with
 * mean 1 and standard deviation size_sd, drawn from the job's number so
 * that runs comparing policies see the same jobs.  It serves CPU jobs
 * only, up to max_jobs per reply, with WS1 (fill the request) or WS2 (the
 * server's own EDF check, sched/policy/edf.h, against the host's jobs of this
 * project), like the real scheduler.  It never ends and keeps no state
 * but a counter.  Pure.
 */
#ifndef LOCSCHED_EMU_STUB_H
#define LOCSCHED_EMU_STUB_H

#include <stdint.h>

#include "emu_client.h"

/* Flops a job really takes: est * f * X(key, salt) (see above). */
double emu_job_fpops(double est, double f, double size_sd, uint64_t key, uint64_t salt);

struct emu_stub_params {
    double share;
    double fpops_est;
    double size_sd;
    double delay_bound;            /* seconds */
    int ws2;                       /* 1: EDF check before sending */
    int max_jobs;
    double request_delay;          /* seconds */
};

struct emu_stub {
    struct emu_stub_params par;
    int index;                     /* project number at the client */
    long seq;                      /* jobs made so far */
    double error_f;                /* the estimate error factor f */
};

struct emu_stub_job {
    char name[64];
    double est_fpops, fpops, deadline;
};

/*
 * Jobs for one RPC of client c (its jobs of project s->index are those
 * the stub knows of), at time now, into out[0..max).  Returns how many.
 */
int emu_stub_serve(struct emu_stub *s, const struct emu_client *c, const struct emu_ask *ask,
                   double now, struct emu_stub_job *out, int max);

#endif
