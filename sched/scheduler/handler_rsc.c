/*
 * handler_rsc.c - the host's processing resources for one request: the
 * CPU and each GPU type with its own req_secs / req_instances, the EDF
 * queue of each filled with the jobs the host already holds, and which of
 * the project's app versions run on which resource (see handler.h and
 * handler_internal.h).  No database work.
 */
#include "handler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_gpu.h"
#include "estimate.h"
#include "handler_internal.h"

/* Find the resource of a coprocessor type, or -1. */
static int rsc_find(const struct request_state *rs, const char *name)
{
    int i;
    for (i = 0; i < rs->nrscs; i++)
        if (strcmp(rs->rscs[i].name, name) == 0)
            return i;
    return -1;
}

static int av_platform_ok(const struct app_version *av, const struct sched_request *req)
{
    int i;
    if (strcmp(av->row.platform, req->platform_name) == 0)
        return 1;
    for (i = 0; i < req->n_alt_platforms; i++)
        if (strcmp(av->row.platform, req->alt_platforms[i]) == 0)
            return 1;
    return 0;
}

/* The resource an app version runs on for this host, or -1. */
static int av_rsc(const struct request_state *rs, const struct app_version *av)
{
    if (!av_platform_ok(av, &rs->req))
        return -1;
    if (av->row.coproc_type[0] == '\0')
        return 0;
    return rsc_find(rs, av->row.coproc_type);
}

int handler_av_rsc(const struct request_state *rs, const struct app_version *av)
{
    return av_rsc(rs, av);
}

int handler_app_runnable(const struct sched_ctx *ctx, const struct request_state *rs, int appid)
{
    int i;
    for (i = 0; i < ctx->apps.navs; i++)
        if (ctx->apps.avs[i].row.appid == appid && av_rsc(rs, &ctx->apps.avs[i]) >= 0)
            return 1;
    return 0;
}

int handler_runnable_apps(const struct sched_ctx *ctx, const struct request_state *rs,
                          int *appids, int max)
{
    int i, k, n = 0;
    for (i = 0; i < ctx->apps.navs && n < max; i++) {
        int appid = ctx->apps.avs[i].row.appid;
        if (av_rsc(rs, &ctx->apps.avs[i]) < 0)
            continue;
        for (k = 0; k < n && appids[k] != appid; k++)
            ;
        if (k == n)
            appids[n++] = appid;
    }
    return n;
}

void handler_free_rscs(struct request_state *rs)
{
    int i;
    for (i = 0; i < rs->nrscs; i++)
        edf_free(&rs->rscs[i].q);
    rs->nrscs = 0;
}

/* Map an in-progress job to its resource through other_results and the
 * client's app_versions list. */
struct name_idx {
    const char *name;
    int idx;
};

static int cmp_name_idx(const void *a, const void *b)
{
    return strcmp(((const struct name_idx *)a)->name, ((const struct name_idx *)b)->name);
}

static int ip_result_rsc(const struct request_state *rs, const struct req_ip_result *ip,
                         const struct name_idx *sorted, int nsorted)
{
    const struct sched_request *req = &rs->req;
    struct name_idx key = { ip->name, 0 }, *hit;
    int r;

    if (ip->ncudas > 0 && (r = rsc_find(rs, db_gpu_names[DB_GPU_NVIDIA])) >= 0)
        return r;
    if (ip->natis > 0 && (r = rsc_find(rs, db_gpu_names[DB_GPU_ATI])) >= 0)
        return r;
    if (ip->nintel_gpus > 0 && (r = rsc_find(rs, db_gpu_names[DB_GPU_INTEL])) >= 0)
        return r;
    hit = bsearch(&key, sorted, (size_t)nsorted, sizeof *sorted, cmp_name_idx);
    if (hit) {
        int avi = req->other_results[hit->idx].app_version;
        if (avi >= 0 && avi < req->napp_versions && req->app_versions[avi].coproc_type[0]) {
            r = rsc_find(rs, req->app_versions[avi].coproc_type);
            if (r >= 0)
                return r;
        }
    }
    return 0;
}

/* Set up the host's resources, their requests and their EDF queues. */
int handler_setup_rscs(struct sched_ctx *ctx, struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct rsc_state *cpu = &rs->rscs[0];
    struct name_idx *sorted = NULL;
    int i, any = 0;

    memset(rs->rscs, 0, sizeof rs->rscs);
    rs->nrscs = 1;
    snprintf(cpu->name, sizeof cpu->name, "CPU");
    cpu->is_cpu = 1;
    cpu->ninstances = req->p_ncpus > 0 ? req->p_ncpus : 1;
    cpu->flops = req->p_fpops > 0 ? req->p_fpops : 1e9;
    cpu->avail = est_cpu_avail(req->on_frac, req->active_frac);
    if (req->have_cpu_req_secs) {
        cpu->req_secs = req->cpu_req_secs;
        cpu->req_instances = req->cpu_req_instances;
    } else {
        cpu->req_secs = req->work_req_seconds;   /* old clients */
    }
    cpu->estimated_delay = req->estimated_delay;
    for (i = 0; i < req->ncoprocs && rs->nrscs < HANDLER_MAX_RSC; i++) {
        const struct req_coproc *cp = &req->coprocs[i];
        struct rsc_state *r;
        if (cp->count <= 0 || rsc_find(rs, cp->type) >= 0)
            continue;
        r = &rs->rscs[rs->nrscs++];
        snprintf(r->name, sizeof r->name, "%s", cp->type);
        r->ninstances = cp->count;
        r->flops = (cp->peak_flops > 0 ? cp->peak_flops : 1e10) * ctx->cfg.gpu_flops_scale;
        r->avail = est_gpu_avail(req->on_frac, req->gpu_active_frac);
        r->req_secs = cp->req_secs;
        r->req_instances = cp->req_instances;
        r->estimated_delay = cp->estimated_delay;
    }
    for (i = 0; i < rs->nrscs; i++) {
        struct rsc_state *r = &rs->rscs[i];
        double delay = 0;
        if (!req->have_ip_results)
            delay = r->estimated_delay;
        if (edf_init(&r->q, r->ninstances, delay > 0 ? delay : 0) < 0)
            return -1;
        if (r->req_secs > 0 || r->req_instances > 0)
            any = 1;
    }
    rs->wants_work = any && !req->dont_send_work;
    /* the queues are filled also without a work request: a lost job
     * sent again is checked against them */
    if (!req->have_ip_results || req->nip_results == 0)
        return 0;

    /* the in-progress jobs fill the queues */
    if (req->nother_results > 0) {
        sorted = malloc(sizeof *sorted * (size_t)req->nother_results);
        if (!sorted)
            return -1;
        for (i = 0; i < req->nother_results; i++) {
            sorted[i].name = req->other_results[i].name;
            sorted[i].idx = i;
        }
        qsort(sorted, (size_t)req->nother_results, sizeof *sorted, cmp_name_idx);
    }
    for (i = 0; i < req->nip_results; i++) {
        const struct req_ip_result *ip = &req->ip_results[i];
        int r = ip_result_rsc(rs, ip, sorted, req->nother_results);
        double dur = est_wall(ip->time_remaining > 0 ? ip->time_remaining : 0,
                              rs->rscs[r].avail);
        if (edf_add(&rs->rscs[r].q, dur, ip->report_deadline - (double)rs->now) < 0) {
            free(sorted);
            return -1;
        }
    }
    free(sorted);
    return 0;
}

int handler_rsc_needs_work(const struct rsc_state *r)
{
    if (r->req_secs <= 0 && r->req_instances <= 0)
        return 0;
    return r->secs_filled < r->req_secs || r->njobs < (int)ceil(r->req_instances);
}

const struct app_version *handler_choose_av(const struct sched_ctx *ctx,
                                           const struct request_state *rs, int appid,
                                           int only_needing, int *rsc)
{
    const struct app_version *best = NULL;
    int i, best_rsc = -1;

    for (i = 0; i < ctx->apps.navs; i++) {
        const struct app_version *av = &ctx->apps.avs[i];
        int r;
        if (av->row.appid != appid)
            continue;
        r = av_rsc(rs, av);
        if (r < 0 || (only_needing && !handler_rsc_needs_work(&rs->rscs[r])))
            continue;
        if (!best || (r != 0 && best_rsc == 0) ||
            ((r != 0) == (best_rsc != 0) && av->row.version_num > best->row.version_num)) {
            best = av;
            best_rsc = r;
        }
    }
    *rsc = best_rsc;
    return best;
}
