/*
 * emu_stub.c - stub projects and the job-size model (emu_stub.h).
 */
#include "emu_stub.h"

#include <stdio.h>
#include <string.h>

#include "edf.h"
#include "emu_rng.h"
#include "estimate.h"

double emu_job_fpops(double est, double f, double size_sd, uint64_t key, uint64_t salt)
{
    double x = emu_lognormal_factor(emu_normal_of(key, salt), size_sd);
    double v = est * (f > 0 ? f : 1) * x;
    return v > 1 ? v : 1;
}

int emu_stub_serve(struct emu_stub *s, const struct emu_client *c, const struct emu_ask *ask,
                   double now, struct emu_stub_job *out, int max)
{
    struct edf_queue q;
    double avail = est_cpu_avail(c->hw.on_frac, 1), filled = 0;
    int n = 0, i, use_edf = s->par.ws2;

    if (ask->req_secs[0] <= 0 && ask->req_instances[0] <= 0)
        return 0;
    if (max > s->par.max_jobs)
        max = s->par.max_jobs;
    if (edf_init(&q, c->hw.ncpus, 0) < 0)
        return 0;
    if (use_edf)
        for (i = 0; i < c->njobs; i++) {
            const struct emu_job *j = &c->jobs[i];
            if (j->proj != s->index || j->finished > 0 || j->rsc != 0)
                continue;
            if (edf_add(&q, est_wall(emu_job_time_left(c, j), avail), j->deadline - now) < 0)
                use_edf = -1;
        }
    while (n < max && use_edf >= 0 &&
           (filled < ask->req_secs[0] || n < (int)(ask->req_instances[0] + 0.999))) {
        double runtime = est_runtime(s->par.fpops_est, c->hw.cpu_flops, 1.0);
        double wall = est_wall(runtime, avail);
        struct emu_stub_job *j;
        if (use_edf && edf_check(&q, wall, s->par.delay_bound) != EDF_OK)
            break;
        if (edf_add(&q, wall, s->par.delay_bound) < 0)
            break;
        j = &out[n++];
        snprintf(j->name, sizeof j->name, "stub%d_%ld", s->index, s->seq);
        j->est_fpops = s->par.fpops_est;
        j->fpops = emu_job_fpops(s->par.fpops_est, s->error_f, s->par.size_sd, (uint64_t)s->seq,
                                 0x5700 + (uint64_t)s->index);
        j->deadline = now + s->par.delay_bound;
        s->seq++;
        filled += runtime;
    }
    edf_free(&q);
    return n;
}
