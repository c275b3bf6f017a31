/*
 * emu_rrsim.c - weighted round-robin simulation (emu_rrsim.h).
 */
#include "emu_rrsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

struct rr_state {
    struct emu_rr_job *jobs;
    int *order;                    /* job indices by project, then deadline */
    int first[EMU_RR_MAX_PROJ + 1];/* order[first[p] .. first[p+1]) are p's */
    int head[EMU_RR_MAX_PROJ];     /* first unfinished position of p */
    int left[EMU_RR_MAX_PROJ];     /* unfinished jobs of p */
    double *rem;
    double *rate;
    int *running;
};

static const struct emu_rr_job *sort_jobs;

static int cmp_job(const void *a, const void *b)
{
    const struct emu_rr_job *x = &sort_jobs[*(const int *)a], *y = &sort_jobs[*(const int *)b];
    if (x->proj != y->proj)
        return x->proj < y->proj ? -1 : 1;
    if (x->deadline != y->deadline)
        return x->deadline < y->deadline ? -1 : 1;
    return *(const int *)a < *(const int *)b ? -1 : 1;
}

/* Instances per project: shares among projects with jobs, capped at their
 * job counts, the surplus handed on (water filling).  Projects of share 0
 * get instances only when no project with a share can use them.
 * Returns the instances busy. */
static double split(const struct emu_rr_in *in, const struct rr_state *s, double *r)
{
    int capped[EMU_RR_MAX_PROJ] = { 0 };
    double left = in->ninstances, busy = 0;
    int p, round;

    for (p = 0; p < in->nproj; p++)
        r[p] = 0;
    for (round = 0; round <= in->nproj && left > EPS; round++) {
        double sum = 0, given = 0, w[EMU_RR_MAX_PROJ];
        int positive = 0, newly = 0;
        for (p = 0; p < in->nproj; p++)
            if (s->left[p] > 0 && !capped[p] && in->share[p] > 0)
                positive = 1;
        for (p = 0; p < in->nproj; p++) {
            w[p] = 0;
            if (s->left[p] > 0 && !capped[p])
                w[p] = positive ? (in->share[p] > 0 ? in->share[p] : 0) : 1;
            sum += w[p];
        }
        if (sum <= 0)
            break;
        for (p = 0; p < in->nproj; p++) {
            double add;
            if (w[p] <= 0)
                continue;
            add = left * w[p] / sum;
            if (r[p] + add >= s->left[p] - EPS) {
                add = s->left[p] - r[p];
                capped[p] = 1;
                newly = 1;
            }
            r[p] += add;
            given += add;
        }
        left -= given;
        if (!newly)
            break;
    }
    for (p = 0; p < in->nproj; p++)
        busy += r[p];
    return busy;
}

int emu_rrsim(const struct emu_rr_in *in, struct emu_rr_job *jobs, int njobs,
              struct emu_rr_out *out)
{
    struct rr_state s;
    double t = 0, avail = in->avail > 0 ? (in->avail < 1 ? in->avail : 1) : 1;
    int i, p, nleft = njobs, rc = -1;

    memset(out, 0, sizeof *out);
    out->saturated = -1;
    if (in->ninstances < 1 || in->nproj < 1 || in->nproj > EMU_RR_MAX_PROJ || njobs < 0)
        return -1;
    memset(&s, 0, sizeof s);
    s.order = malloc(sizeof *s.order * (size_t)(njobs + 1));
    s.rem = malloc(sizeof *s.rem * (size_t)(njobs + 1));
    s.rate = malloc(sizeof *s.rate * (size_t)(njobs + 1));
    s.running = malloc(sizeof *s.running * (size_t)(njobs + 1));
    if (!s.order || !s.rem || !s.rate || !s.running)
        goto done;
    for (i = 0; i < njobs; i++) {
        if (jobs[i].proj < 0 || jobs[i].proj >= in->nproj)
            goto done;
        s.order[i] = i;
        s.rem[i] = jobs[i].remaining > 0 ? jobs[i].remaining : 0;
        jobs[i].finish = 0;
        jobs[i].misses = 0;
    }
    sort_jobs = jobs;
    qsort(s.order, (size_t)njobs, sizeof *s.order, cmp_job);
    for (i = 0, p = 0; p <= in->nproj; p++) {
        while (i < njobs && jobs[s.order[i]].proj < p)
            i++;
        s.first[p] = i;
    }
    for (p = 0; p < in->nproj; p++) {
        s.head[p] = s.first[p];
        s.left[p] = s.first[p + 1] - s.first[p];
    }
    /* jobs with nothing left finish now */
    for (i = 0; i < njobs; i++)
        if (s.rem[i] <= 0) {
            s.rem[i] = -1;
            s.left[jobs[i].proj]--;
            nleft--;
        }

    while (nleft > 0) {
        double r[EMU_RR_MAX_PROJ], busy, dt = INFINITY, t_end;
        int nrun = 0, k;

        busy = split(in, &s, r);
        if (t == 0)
            out->nidle = (int)floor(in->ninstances - busy + EPS);
        if (out->saturated < 0 && busy < in->ninstances - EPS)
            out->saturated = t;
        for (p = 0; p < in->nproj; p++) {
            double need = r[p];
            int pos;
            while (s.head[p] < s.first[p + 1] && s.rem[s.order[s.head[p]]] < 0)
                s.head[p]++;
            for (pos = s.head[p]; pos < s.first[p + 1] && need > EPS; pos++) {
                int j = s.order[pos];
                double rt;
                if (s.rem[j] < 0)
                    continue;
                rt = need < 1 ? need : 1;
                need -= rt;
                s.rate[j] = rt;
                s.running[nrun++] = j;
            }
        }
        if (nrun == 0)
            break;                 /* cannot happen with ninstances >= 1 */
        for (k = 0; k < nrun; k++) {
            int j = s.running[k];
            double d = s.rem[j] / (s.rate[j] * avail);
            if (d < dt)
                dt = d;
        }
        t_end = t + dt;
        if (t < in->window)
            out->shortfall += (in->ninstances - busy) * avail *
                              ((t_end < in->window ? t_end : in->window) - t);
        for (k = 0; k < nrun; k++) {
            int j = s.running[k];
            s.rem[j] -= s.rate[j] * avail * dt;
            if (s.rem[j] <= EPS * (1 + jobs[j].remaining)) {
                s.rem[j] = -1;
                jobs[j].finish = t_end;
                s.left[jobs[j].proj]--;
                nleft--;
            }
        }
        t = t_end;
    }
    if (out->saturated < 0)
        out->saturated = t;
    if (t < in->window)
        out->shortfall += in->ninstances * avail * (in->window - t);
    if (njobs == 0)
        out->nidle = in->ninstances;
    for (i = 0; i < njobs; i++) {
        jobs[i].misses = jobs[i].finish > jobs[i].deadline;
        out->nmiss += jobs[i].misses;
    }
    rc = 0;
done:
    free(s.order);
    free(s.rem);
    free(s.rate);
    free(s.running);
    if (rc < 0)
        memset(out, 0, sizeof *out);
    return rc;
}
