/*
 * emu_client.c - the emulated BOINC client (emu_client.h): computing,
 * CPU scheduling, work fetch, backoffs, replies.
 */
#include "emu_client.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_rrsim.h"
#include "estimate.h"

#define RSC_BACKOFF_MIN 600.0
#define RSC_BACKOFF_MAX 86400.0
#define RPC_BACKOFF_MIN 60.0
#define RPC_BACKOFF_MAX 14400.0
#define FINISH_EPS 1e-9

int emu_client_init(struct emu_client *c, const struct emu_hw *hw,
                    const struct emu_client_params *par, const double *shares, int nproj,
                    uint64_t seed, double now)
{
    int p;
    memset(c, 0, sizeof *c);
    if (nproj < 1 || nproj > EMU_MAX_PROJ || hw->ncpus < 1)
        return -1;
    c->hw = *hw;
    c->par = *par;
    if (c->par.sched_period <= 0)
        c->par.sched_period = 3600;
    if (c->par.poll <= 0)
        c->par.poll = 300;
    if (c->par.max_reports <= 0)
        c->par.max_reports = 64;
    emu_rng_seed(&c->rng, seed);
    c->nproj = nproj;
    for (p = 0; p < nproj; p++) {
        c->proj[p].share = shares[p];
        c->proj[p].dcf = 1;
    }
    c->last_sched = now;
    c->last_check = -INFINITY;
    c->session_start = -INFINITY;
    c->need_sched = 1;
    c->need_check = 1;
    return 0;
}

void emu_client_free(struct emu_client *c)
{
    free(c->jobs);
    free(c->files);
    c->jobs = NULL;
    c->files = NULL;
    c->njobs = c->nfiles = 0;
}

/* ---- estimates ---- */

static double static_estimate(const struct emu_client *c, const struct emu_job *j)
{
    double dcf = c->par.jc == 2 ? c->proj[j->proj].dcf : 1.0;
    return est_runtime(j->est_fpops, j->flops_est, dcf);
}

double emu_job_time_left(const struct emu_client *c, const struct emu_job *j)
{
    double b, f, a;
    if (j->finished > 0)
        return 0;
    b = static_estimate(c, j) - j->elapsed;
    if (b < 0)
        b = 0;
    if (j->done <= 0 || j->elapsed <= 0)
        return b;
    f = j->done / j->fpops;          /* the app's fraction done */
    if (f >= 1)
        return 0;
    a = j->elapsed / f - j->elapsed;
    return f * a + (1 - f) * b;
}

/* ---- files ---- */

static struct emu_held_file *held(struct emu_client *c, int file)
{
    int i;
    for (i = 0; i < c->nfiles; i++)
        if (c->files[i].file == file)
            return &c->files[i];
    return NULL;
}

int emu_client_holds(const struct emu_client *c, int file)
{
    int i;
    for (i = 0; i < c->nfiles; i++)
        if (c->files[i].file == file)
            return c->files[i].sticky;
    return 0;
}

static int file_in_use(const struct emu_client *c, int file)
{
    int i, k;
    for (i = 0; i < c->njobs; i++) {
        const struct emu_job *j = &c->jobs[i];
        if (j->finished > 0)
            continue;
        for (k = 0; k < j->nfiles; k++)
            if (j->files[k] == file)
                return 1;
    }
    return 0;
}

/* Drop the file unless it is sticky or a job still needs it. */
static void maybe_drop(struct emu_client *c, int file)
{
    int i;
    for (i = 0; i < c->nfiles; i++)
        if (c->files[i].file == file)
            break;
    if (i == c->nfiles || c->files[i].sticky || file_in_use(c, file))
        return;
    c->files[i] = c->files[--c->nfiles];
}

/* ---- computing ---- */

static int resource_of(const struct emu_client *c, int rsc)
{
    return emu_hw_ninstances(&c->hw, rsc);
}

/* A job finished at time t. */
static void job_finished(struct emu_client *c, struct emu_job *j, double t)
{
    struct emu_cproj *p = &c->proj[j->proj];
    int k;
    j->finished = t > j->received ? t : j->received + FINISH_EPS;
    j->running = 0;
    j->done = j->fpops;
    c->jobs_finished++;
    if (t > j->deadline) {
        j->late = 1;
        c->jobs_late++;
        c->wasted_flops += j->fpops;
    }
    if (c->par.jc == 2 && j->est_fpops > 0 && j->flops_est > 0) {
        double sample = est_correction_sample(j->elapsed, j->est_fpops, j->flops_est);
        p->dcf = est_correction_update(p->dcf, p->dcf_n, sample);
        p->dcf_n++;
    }
    for (k = 0; k < j->nfiles; k++)
        maybe_drop(c, j->files[k]);
    if (c->par.fetch != EMU_FETCH_SEED && j->rsc >= 0 && j->rsc < EMU_NRSC) {
        /* client 7.20: the output uploaded, the resource's backoff goes */
        p->bo_inc[j->rsc] = 0;
        p->bo_until[j->rsc] = 0;
    }
    c->need_sched = 1;
    c->need_check = 1;
}

void emu_client_advance(struct emu_client *c, double now, double dt)
{
    double t = now, t_end = now + dt;
    double used[EMU_MAX_PROJ][EMU_NRSC];
    int p, r, i;

    memset(used, 0, sizeof used);
    if (c->need_sched || now - c->last_sched >= c->par.sched_period)
        emu_client_schedule(c, now);
    while (t < t_end - FINISH_EPS) {
        double step = t_end - t;
        int nrun[EMU_NRSC] = { 0, 0 }, ran[EMU_MAX_PROJ] = { 0 }, any_done = 0;

        for (i = 0; i < c->njobs; i++) {
            const struct emu_job *j = &c->jobs[i];
            double left;
            if (!j->running)
                continue;
            left = (j->fpops - j->done) / emu_hw_speed(&c->hw, j->rsc);
            if (left < step)
                step = left > 0 ? left : 0;
        }
        for (i = 0; i < c->njobs; i++) {
            struct emu_job *j = &c->jobs[i];
            double speed;
            if (!j->running)
                continue;
            speed = emu_hw_speed(&c->hw, j->rsc);
            j->done += speed * step;
            j->elapsed += step;
            nrun[j->rsc]++;
            ran[j->proj] = 1;
            c->used_flops += speed * step;
            c->proj[j->proj].used_flops += speed * step;
            c->proj[j->proj].work_since[j->rsc] += step;
            used[j->proj][j->rsc] += step;
        }
        for (r = 0; r < EMU_NRSC; r++) {
            int n = resource_of(c, r);
            double speed = emu_hw_speed(&c->hw, r);
            if (n <= 0)
                continue;
            c->avail_flops += n * speed * step;
            if (n > nrun[r])
                c->idle_flops += (n - nrun[r]) * speed * step;
            if (r == 1) {
                c->gpu_avail_flops += n * speed * step;
                if (n > nrun[r])
                    c->gpu_idle_flops += (n - nrun[r]) * speed * step;
            }
        }
        for (p = 0; p < c->nproj; p++) {
            struct emu_cproj *pp = &c->proj[p];
            if (ran[p]) {
                pp->idle_since = 0;
            } else {
                double r0 = pp->idle_since, r1 = r0 + step;
                pp->idle_sumsq += (r1 * r1 * r1 - r0 * r0 * r0) / 3;
                pp->idle_since = r1;
            }
        }
        t += step;
        for (i = 0; i < c->njobs; i++) {
            struct emu_job *j = &c->jobs[i];
            if (j->running && j->done >= j->fpops * (1 - 1e-12)) {
                job_finished(c, j, t);
                any_done = 1;
            }
        }
        if (any_done)
            emu_client_schedule(c, t);
    }
    c->on_time += dt;

    /* long-term debt (seed 002): each project not backed off for a
     * resource is owed its share of it and pays for what it used */
    for (r = 0; r < EMU_NRSC; r++) {
        int n = resource_of(c, r);
        double sum = 0, mean = 0;
        int neligible = 0;
        if (n <= 0)
            continue;
        for (p = 0; p < c->nproj; p++)
            if (!c->proj[p].no_apps[r] && c->proj[p].bo_until[r] <= now)
                sum += c->proj[p].share;
        for (p = 0; p < c->nproj; p++) {
            struct emu_cproj *pp = &c->proj[p];
            if (!pp->no_apps[r] && pp->bo_until[r] <= now && sum > 0) {
                pp->ltd[r] += pp->share / sum * n * dt;
                neligible++;
            }
            pp->ltd[r] -= used[p][r];
        }
        for (p = 0; p < c->nproj; p++)
            mean += c->proj[p].ltd[r];
        mean /= c->nproj;
        for (p = 0; p < c->nproj; p++)
            c->proj[p].ltd[r] -= mean;
        (void)neligible;
    }
}

/* ---- CPU scheduling ---- */

static int pick_job(struct emu_client *c, int rsc, int proj)
{
    int i, best = -1, best_rank = 4;
    for (i = 0; i < c->njobs; i++) {
        const struct emu_job *j = &c->jobs[i];
        int rank;
        if (j->rsc != rsc || j->proj != proj || j->finished > 0 || j->running)
            continue;
        rank = j->was_running ? 0 : j->elapsed > 0 ? 1 : 2;
        if (rank < best_rank || (rank == best_rank && j->deadline < c->jobs[best].deadline)) {
            best = i;
            best_rank = rank;
        }
    }
    return best;
}

/* EDF order for CS2: deadline, then the job that ran last, then the one
 * furthest along (so that jobs of equal deadline do not take turns). */
static const struct emu_job *edf_jobs;

static int cmp_edf(const void *a, const void *b)
{
    const struct emu_job *x = &edf_jobs[*(const int *)a], *y = &edf_jobs[*(const int *)b];
    if (x->deadline != y->deadline)
        return x->deadline < y->deadline ? -1 : 1;
    if (x->was_running != y->was_running)
        return x->was_running ? -1 : 1;
    if (x->elapsed != y->elapsed)
        return x->elapsed > y->elapsed ? -1 : 1;
    return *(const int *)a < *(const int *)b ? -1 : 1;
}

/*
 * CS2 (seed 003): a round-robin simulation finds the jobs that would miss
 * their deadline; each project with k such jobs gets its k earliest-
 * deadline jobs run first, in EDF order across projects.  Marks them
 * running and returns how many instances they took.
 */
static int schedule_edf(struct emu_client *c, int rsc, int n, double now, double *ant)
{
    struct emu_rr_job *rj = malloc(sizeof *rj * (size_t)(c->njobs + 1));
    int *idx = malloc(sizeof *idx * (size_t)(c->njobs + 1));
    int *cand = malloc(sizeof *cand * (size_t)(c->njobs + 1));
    int nmiss[EMU_MAX_PROJ] = { 0 }, taken[EMU_MAX_PROJ] = { 0 };
    struct emu_rr_in in;
    struct emu_rr_out out;
    int m = 0, ncand = 0, nsel = 0, i, p;

    if (!rj || !idx || !cand)
        goto done;
    memset(&in, 0, sizeof in);
    in.ninstances = n;
    in.avail = c->hw.on_frac;
    in.nproj = c->nproj;
    for (p = 0; p < c->nproj; p++)
        in.share[p] = c->proj[p].share;
    for (i = 0; i < c->njobs; i++) {
        const struct emu_job *j = &c->jobs[i];
        if (j->rsc != rsc || j->finished > 0)
            continue;
        rj[m].proj = j->proj;
        rj[m].remaining = emu_job_time_left(c, j);
        rj[m].deadline = j->deadline - now;
        idx[m++] = i;
    }
    if (m == 0 || emu_rrsim(&in, rj, m, &out) < 0 || out.nmiss == 0)
        goto done;
    for (i = 0; i < m; i++)
        if (rj[i].misses)
            nmiss[rj[i].proj]++;
    for (i = 0; i < m; i++)
        if (nmiss[rj[i].proj] > 0)
            cand[ncand++] = idx[i];
    edf_jobs = c->jobs;
    qsort(cand, (size_t)ncand, sizeof *cand, cmp_edf);
    for (i = 0; i < ncand && nsel < n; i++) {
        struct emu_job *j = &c->jobs[cand[i]];
        if (taken[j->proj] >= nmiss[j->proj])
            continue;
        taken[j->proj]++;
        j->running = 1;
        ant[j->proj] -= c->par.sched_period;
        nsel++;
    }
done:
    free(rj);
    free(idx);
    free(cand);
    return nsel;
}

static void schedule_rsc(struct emu_client *c, int rsc, double now)
{
    int n = resource_of(c, rsc), nsel = 0, i, p;
    int runnable[EMU_MAX_PROJ] = { 0 };
    double total = 0, sum = 0, ant[EMU_MAX_PROJ], payoff;

    if (n <= 0)
        return;
    for (i = 0; i < c->njobs; i++) {
        struct emu_job *j = &c->jobs[i];
        if (j->rsc != rsc)
            continue;
        j->was_running = j->running;
        j->running = 0;
        if (j->finished == 0)
            runnable[j->proj] = 1;
    }
    /* short-term debts (seed 001) */
    for (p = 0; p < c->nproj; p++) {
        total += c->proj[p].work_since[rsc];
        if (runnable[p])
            sum += c->proj[p].share;
    }
    for (p = 0; p < c->nproj; p++) {
        struct emu_cproj *pp = &c->proj[p];
        if (!runnable[p])
            pp->std_debt[rsc] = 0;
        else if (sum > 0)
            pp->std_debt[rsc] += pp->share / sum * total - pp->work_since[rsc];
        pp->work_since[rsc] = 0;
        ant[p] = pp->std_debt[rsc];
    }

    if (c->par.cs == 2)
        nsel = schedule_edf(c, rsc, n, now, ant);

    /* weighted round-robin for the instances left */
    payoff = total > 0 ? total / n : c->par.sched_period;
    while (nsel < n) {
        int best = -1, j;
        for (p = 0; p < c->nproj; p++) {
            if (!runnable[p])
                continue;
            if (best < 0 || ant[p] > ant[best])
                best = p;
        }
        if (best < 0)
            break;
        j = pick_job(c, rsc, best);
        if (j < 0) {
            runnable[best] = 0;    /* all its jobs already run */
            continue;
        }
        c->jobs[j].running = 1;
        ant[best] -= payoff;
        nsel++;
    }
}

void emu_client_schedule(struct emu_client *c, double now)
{
    int r;
    for (r = 0; r < EMU_NRSC; r++)
        schedule_rsc(c, r, now);
    c->last_sched = now;
    c->need_sched = 0;
}

/* ---- work fetch ---- */

static int can_contact(const struct emu_client *c, int p, double now)
{
    return c->proj[p].min_rpc <= now;
}

static int may_ask(const struct emu_client *c, int p, int r, double now)
{
    return !c->proj[p].no_apps[r] && c->proj[p].bo_until[r] <= now && can_contact(c, p, now);
}

static int nreports(const struct emu_client *c, int p)
{
    int i, n = 0;
    for (i = 0; i < c->njobs; i++)
        if (c->jobs[i].proj == p && c->jobs[i].finished > 0)
            n++;
    return n;
}

/* The project to ask for resource r: largest long-term debt. */
static int choose_project(const struct emu_client *c, int r, double now)
{
    int p, best = -1;
    for (p = 0; p < c->nproj; p++)
        if (may_ask(c, p, r, now) && (best < 0 || c->proj[p].ltd[r] > c->proj[best].ltd[r]))
            best = p;
    return best;
}

/*
 * The round-robin simulation of every resource: out[r] for each, and
 * need[r] when r has an idle instance or goes idle within buf_min.
 * Returns -1 when out of memory.
 */
static int simulate_buffers(const struct emu_client *c, double now, struct emu_rr_out *out,
                            int *need)
{
    int r, p;
    for (r = 0; r < EMU_NRSC; r++) {
        int n = resource_of(c, r), m = 0, i;
        struct emu_rr_in in;
        struct emu_rr_job *rj;
        if (n <= 0)
            continue;
        rj = malloc(sizeof *rj * (size_t)(c->njobs + 1));
        if (!rj)
            return -1;
        memset(&in, 0, sizeof in);
        in.ninstances = n;
        in.avail = c->hw.on_frac;
        in.nproj = c->nproj;
        in.window = c->par.buf_min + c->par.buf_add;
        for (p = 0; p < c->nproj; p++)
            in.share[p] = c->proj[p].share;
        for (i = 0; i < c->njobs; i++) {
            const struct emu_job *j = &c->jobs[i];
            if (j->rsc != r || j->finished > 0)
                continue;
            rj[m].proj = j->proj;
            rj[m].remaining = emu_job_time_left(c, j);
            rj[m].deadline = j->deadline - now;
            m++;
        }
        if (emu_rrsim(&in, rj, m, &out[r]) == 0)
            need[r] = out[r].nidle > 0 || out[r].saturated < c->par.buf_min;
        free(rj);
    }
    return 0;
}

/*
 * Client 7.20's piggyback: an RPC to project p made for another reason
 * asks for work for each resource whose buffer is below its maximum,
 * backed off or not, unless a project with more debt may be asked for it.
 */
static void piggyback(const struct emu_client *c, double now, const struct emu_rr_out *out,
                      struct emu_ask *ask)
{
    int r, p2, p = ask->proj;
    for (r = 0; r < EMU_NRSC; r++) {
        int better = 0;
        if (resource_of(c, r) <= 0 || c->proj[p].no_apps[r])
            continue;
        if (!(out[r].nidle > 0 || out[r].saturated < c->par.buf_min + c->par.buf_add))
            continue;
        for (p2 = 0; p2 < c->nproj; p2++)
            if (p2 != p && may_ask(c, p2, r, now) && c->proj[p2].ltd[r] > c->proj[p].ltd[r])
                better = 1;
        if (better)
            continue;
        ask->req_secs[r] = out[r].shortfall;
        ask->req_instances[r] = out[r].nidle;
        ask->estimated_delay[r] = out[r].saturated;
    }
}

int emu_client_plan(struct emu_client *c, double now, int force_check, struct emu_ask *ask)
{
    struct emu_rr_out out[EMU_NRSC];
    int need[EMU_NRSC] = { 0, 0 }, r, p, target = -1, simulated = 0;

    memset(ask, 0, sizeof *ask);
    ask->proj = -1;
    /* with a connection interval, the network is there for a session of
     * EMU_SESSION_SECS once every conn_interval */
    if (c->par.conn_interval > 0 && now - c->session_start >= EMU_SESSION_SECS &&
        now - c->session_start < c->par.conn_interval)
        return 0;
    memset(out, 0, sizeof out);
    if (force_check || c->need_check || now - c->last_check >= c->par.poll) {
        c->last_check = now;
        c->need_check = 0;
        if (simulate_buffers(c, now, out, need) < 0)
            return 0;
        simulated = 1;
        /* seed 002: idle instances first (GPU, then CPU), then shortfalls */
        for (r = EMU_NRSC - 1; r >= 0 && target < 0; r--)
            if (need[r] && out[r].nidle > 0)
                target = choose_project(c, r, now);
        for (r = EMU_NRSC - 1; r >= 0 && target < 0; r--)
            if (need[r] && out[r].shortfall > 0)
                target = choose_project(c, r, now);
    }
    if (target >= 0) {
        ask->proj = target;
        ask->reason = EMU_RPC_NEED_WORK;
        for (r = 0; r < EMU_NRSC; r++) {
            if (!need[r] || !may_ask(c, target, r, now))
                continue;
            ask->req_secs[r] = out[r].shortfall;
            ask->req_instances[r] = out[r].nidle;
            ask->estimated_delay[r] = out[r].saturated;
        }
    } else {
        for (p = 0; p < c->nproj && target < 0; p++) {
            if (!can_contact(c, p, now))
                continue;
            if (nreports(c, p) > 0) {
                target = p;
                ask->reason = EMU_RPC_RESULTS_DUE;
            } else if (c->proj[p].next_rpc > 0 && now >= c->proj[p].next_rpc) {
                target = p;
                ask->reason = EMU_RPC_PROJECT_REQ;
            }
        }
        if (target < 0)
            return 0;
        ask->proj = target;
        if (c->par.fetch != EMU_FETCH_SEED) {
            if (!simulated && simulate_buffers(c, now, out, need) < 0)
                return 0;
            piggyback(c, now, out, ask);
        }
    }
    ask->nreport = nreports(c, ask->proj);
    if (ask->nreport > c->par.max_reports)
        ask->nreport = c->par.max_reports;
    if (now - c->session_start >= c->par.conn_interval)
        c->session_start = now;
    return 1;
}

/* ---- replies ---- */

static double backoff(struct emu_client *c, double inc)
{
    return inc * emu_uniform_in(&c->rng, 0.5, 1.0);
}

static int add_job(struct emu_client *c, int proj, const struct emu_new_job *n, double now,
                   const struct emu_files_cb *cb)
{
    struct emu_job *j;
    int k;

    if (c->njobs == c->capjobs) {
        int cap = c->capjobs ? c->capjobs * 2 : 16;
        struct emu_job *v = realloc(c->jobs, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        c->jobs = v;
        c->capjobs = cap;
    }
    j = &c->jobs[c->njobs];
    memset(j, 0, sizeof *j);
    snprintf(j->name, sizeof j->name, "%s", n->name);
    j->proj = proj;
    j->rsc = n->rsc;
    j->est_fpops = n->est_fpops;
    j->fpops = n->fpops > 0 ? n->fpops : 1;
    j->flops_est = n->flops_est;
    j->deadline = n->deadline;
    j->received = now;
    for (k = 0; k < n->nfiles && k < EMU_MAX_JOB_FILES; k++) {
        struct emu_held_file *h;
        int id = cb->id(cb->ctx, n->file_names[k]);
        if (id < 0)
            return -1;
        j->files[j->nfiles++] = id;
        h = held(c, id);
        if (h) {
            if (n->file_sticky[k])
                h->sticky = 1;
            continue;
        }
        if (c->nfiles == c->capfiles) {
            int cap = c->capfiles ? c->capfiles * 2 : 16;
            struct emu_held_file *v = realloc(c->files, sizeof *v * (size_t)cap);
            if (!v)
                return -1;
            c->files = v;
            c->capfiles = cap;
        }
        h = &c->files[c->nfiles++];
        h->file = id;
        h->nbytes = n->file_nbytes[k];
        h->sticky = n->file_sticky[k];
        cb->downloaded(cb->ctx, id, h->nbytes);
    }
    c->njobs++;
    return 0;
}

/* The project aborts job name of project proj (EMU_ABORTS in emu_client.h):
 * a job never started, or any with always, ends now unfinished. */
static void abort_job(struct emu_client *c, int proj, const char *name, int always, double now)
{
    int i, k;
    for (i = 0; i < c->njobs; i++) {
        struct emu_job *j = &c->jobs[i];
        if (j->proj != proj || j->finished > 0 || strcmp(j->name, name) != 0)
            continue;
        if (!always && (j->was_running || j->running || j->elapsed > 0))
            return;                /* started: it runs on */
        c->wasted_flops += j->done;
        j->aborted = 1;
        j->running = 0;
        j->finished = now > j->received ? now : j->received + FINISH_EPS;
        for (k = 0; k < j->nfiles; k++)
            maybe_drop(c, j->files[k]);
        c->jobs_aborted++;
        c->need_sched = 1;
        c->need_check = 1;
        return;
    }
}

int emu_client_answer(struct emu_client *c, double now, const struct emu_ask *ask,
                      const struct emu_answer *a, const struct emu_files_cb *cb)
{
    struct emu_cproj *p = &c->proj[ask->proj];
    int got[EMU_NRSC] = { 0, 0 }, i, k, r, rc = 0;

    c->need_check = 1;
    if (!a->ok) {
        double d = RPC_BACKOFF_MIN * pow(2, p->nfail);
        p->nfail++;
        if (d > RPC_BACKOFF_MAX)
            d = RPC_BACKOFF_MAX;
        p->min_rpc = now + backoff(c, d);
        return 0;
    }
    p->nfail = 0;
    p->seqno++;
    if (a->hostid > 0) {
        p->hostid = a->hostid;
        p->seqno = 0;
    }
    if (a->send_full_workload)
        p->full_workload = 1;
    if (a->request_delay > 0 && now + a->request_delay > p->min_rpc)
        p->min_rpc = now + a->request_delay;
    p->next_rpc = a->next_rpc_delay > 0 ? now + a->next_rpc_delay : 0;

    /* acknowledged reports leave */
    for (k = 0; k < a->nacks; k++)
        for (i = 0; i < c->njobs; i++)
            if (c->jobs[i].proj == ask->proj && c->jobs[i].finished > 0 &&
                strcmp(c->jobs[i].name, a->acks[k]) == 0) {
                c->jobs[i] = c->jobs[--c->njobs];
                break;
            }
    for (k = 0; k < a->njobs && rc == 0; k++) {
        if (a->jobs[k].rsc >= 0 && a->jobs[k].rsc < EMU_NRSC)
            got[a->jobs[k].rsc]++;
        rc = add_job(c, ask->proj, &a->jobs[k], now, cb);
    }
    for (k = 0; k < a->naborts && !c->par.ignore_aborts; k++)
        abort_job(c, ask->proj, a->aborts[k], a->abort_always[k], now);
    for (k = 0; k < a->ndeletes; k++) {
        int id = cb->id(cb->ctx, a->deletes[k]);
        struct emu_held_file *h = id >= 0 ? held(c, id) : NULL;
        if (h) {
            h->sticky = 0;
            maybe_drop(c, id);
        }
    }
    for (r = 0; r < EMU_NRSC; r++) {
        p->no_apps[r] = a->no_apps[r];
        if (got[r]) {
            p->bo_inc[r] = 0;
            p->bo_until[r] = 0;
        } else if ((ask->req_secs[r] > 0 || ask->req_instances[r] > 0) &&
                   (c->par.fetch == EMU_FETCH_SEED ||
                    (p->bo_until[r] <= now && ask->reason != EMU_RPC_PROJECT_REQ))) {
            p->bo_inc[r] = p->bo_inc[r] > 0 ? p->bo_inc[r] * 2 : RSC_BACKOFF_MIN;
            if (p->bo_inc[r] > RSC_BACKOFF_MAX)
                p->bo_inc[r] = RSC_BACKOFF_MAX;
            p->bo_until[r] = now + p->bo_inc[r] * (c->par.fetch == EMU_FETCH_SEED
                                                   ? emu_uniform_in(&c->rng, 0.5, 1.0)
                                                   : emu_uniform_in(&c->rng, 0.5, 1.5));
        }
    }
    if (a->njobs > 0)
        c->need_sched = 1;
    return rc;
}

int emu_client_reset_project(struct emu_client *c, int proj)
{
    int i, k, kept = 0, n = 0;

    for (i = 0; i < c->njobs; i++) {
        struct emu_job *j = &c->jobs[i];
        if (j->proj != proj) {
            c->jobs[kept++] = *j;
            continue;
        }
        c->wasted_flops += j->finished > 0 && !j->aborted ? j->fpops : j->done;
        n++;
    }
    c->njobs = kept;
    for (i = 0; i < c->nfiles;) {
        int used = 0;
        for (k = 0; k < c->njobs && !used; k++) {
            int f;
            for (f = 0; f < c->jobs[k].nfiles; f++)
                used |= c->jobs[k].files[f] == c->files[i].file;
        }
        if (used)
            i++;
        else
            c->files[i] = c->files[--c->nfiles];
    }
    c->need_sched = 1;
    c->need_check = 1;
    return n;
}

int emu_client_finish(struct emu_client *c, double now, int departing)
{
    int i, n = 0;
    for (i = 0; i < c->njobs; i++) {
        struct emu_job *j = &c->jobs[i];
        if (j->finished > 0) {
            /* finished but never reported: lost when the host leaves */
            if (departing && !j->late && !j->aborted) {
                c->wasted_flops += j->fpops;
                n++;
            }
            continue;
        }
        if (departing || now > j->deadline) {
            c->wasted_flops += j->done;
            n++;
        }
    }
    return n;
}
