/*
 * handler.c - the scheduler's request handling (see handler.h).
 *
 * Order of work for one request:
 *   1. parse and validate the body (no database work for a bad request);
 *   2. in one transaction: authenticate (one statement: user, host and the
 *      host's runtime corrections), create the host if needed, handle the
 *      reported results (read, update, corrections: three statements),
 *      pick and claim jobs (lock candidates, claim: two statements), update
 *      the host (one statement), commit;
 *   3. write the reply from what the transaction decided.
 * A deadlock or lost connection re-runs step 2 from scratch; if the
 * database stays unavailable, the client is told to come back later.
 */
#include "handler.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "estimate.h"
#include "job_source.h"
#include "log.h"
#include "lost_jobs.h"
#include "reply_build.h"

const char *no_work_reason_name(enum no_work_reason r)
{
    switch (r) {
    case NW_NONE: return "none";
    case NW_NO_WORK: return "no_work";
    case NW_DEADLINE: return "deadline";
    case NW_NOT_SUPPORTED: return "not_supported";
    case NW_DONT_SEND: return "dont_send_work";
    case NW_NO_HOST_INFO: return "no_host_info";
    }
    return "unknown";
}

static time_t default_clock(void)
{
    return time(NULL);
}

/* ---- context ---- */

int sched_ctx_init(struct sched_ctx *ctx, const char *config_path, char *err, size_t errlen)
{
    char path[CONFIG_STR_MAX + 64], warn[256];

    memset(ctx, 0, sizeof *ctx);
    if (config_load(&ctx->cfg, config_path, err, errlen) < 0)
        return -1;
    ctx->clock = default_clock;
    ctx->source = &job_source_locality;
    snprintf(path, sizeof path, "%s/%s", ctx->cfg.key_dir, UA_KEY_FILE);
    if (ua_key_load(&ctx->upload_key, path, warn, sizeof warn, err, errlen) < 0)
        return -1;
    if (warn[0])
        log_warn("%s", warn);
    code_sign_key_init(&ctx->code_sign_watch, ctx->cfg.key_dir, ctx->code_sign_key,
                       sizeof ctx->code_sign_key, time(NULL));

    ctx->dbp.host = ctx->cfg.db_host;
    ctx->dbp.user = ctx->cfg.db_user;
    ctx->dbp.password = ctx->cfg.db_password;
    ctx->dbp.name = ctx->cfg.db_name;
    ctx->dbp.socket = ctx->cfg.db_socket;
    ctx->dbp.port = ctx->cfg.db_port;
    ctx->dbp.timeout = ctx->cfg.db_timeout;
    ctx->dbp.lock_wait_timeout = ctx->cfg.db_lock_wait_timeout;
    ctx->dbp.retries = ctx->cfg.db_retries;
    ctx->dbp.read_committed = 1;
    ctx->db = db_open(&ctx->dbp, err, errlen);
    if (!ctx->db)
        log_warn("database not reachable yet: %s", err);
    return 0;
}

void sched_ctx_free(struct sched_ctx *ctx)
{
    db_close(ctx->db);
    app_cache_free(&ctx->apps);
    ua_key_clear(&ctx->upload_key);
    memset(ctx, 0, sizeof *ctx);
}

/* ---- request recording ---- */

static void record_request(struct sched_ctx *ctx, const char *body, size_t len, time_t now)
{
    char path[CONFIG_STR_MAX + 96];
    struct tm tm;
    int fd;

    gmtime_r(&now, &tm);
    snprintf(path, sizeof path, "%s/%04d%02d%02d-%02d%02d%02d-%d-%lu.xml", ctx->cfg.record_dir,
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)getpid(), ctx->nrequests);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) {
        log_warn("record_requests: cannot create %s: %s", path, strerror(errno));
        return;
    }
    if (write(fd, body, len) != (ssize_t)len)
        log_warn("record_requests: short write to %s", path);
    close(fd);
}

/* ---- resources ---- */

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

static void free_rscs(struct request_state *rs)
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

    if (ip->ncudas > 0 && (r = rsc_find(rs, "NVIDIA")) >= 0)
        return r;
    if (ip->natis > 0 && (r = rsc_find(rs, "ATI")) >= 0)
        return r;
    if (ip->nintel_gpus > 0 && (r = rsc_find(rs, "intel_gpu")) >= 0)
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
static int setup_rscs(struct sched_ctx *ctx, struct request_state *rs)
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

static int rsc_needs_work(const struct rsc_state *r)
{
    if (r->req_secs <= 0 && r->req_instances <= 0)
        return 0;
    return r->secs_filled < r->req_secs || r->njobs < (int)ceil(r->req_instances);
}

/* ---- reported results ---- */

struct report_ctx {
    struct request_state *rs;
    struct db_report_update *updates;
    int nupdates;
    int hav_dirty[DB_MAX_HAV];
};

static const struct req_reported_result *find_reported(const struct sched_request *req,
                                                       const char *name)
{
    int i;
    for (i = 0; i < req->nresults; i++)
        if (strcmp(req->results[i].name, name) == 0)
            return &req->results[i];
    return NULL;
}

static struct db_hav_row *hav_get(struct request_state *rs, int app_version_id, int create)
{
    int i;
    for (i = 0; i < rs->nhavs; i++)
        if (rs->havs[i].app_version_id == app_version_id)
            return &rs->havs[i];
    if (!create || rs->nhavs == DB_MAX_HAV)
        return NULL;
    rs->havs[rs->nhavs].app_version_id = app_version_id;
    rs->havs[rs->nhavs].et_n = 0;
    rs->havs[rs->nhavs].correction = 1;
    return &rs->havs[rs->nhavs++];
}

static int report_row(void *vctx, const struct db_reported_row *row)
{
    struct report_ctx *x = vctx;
    struct request_state *rs = x->rs;
    const struct req_reported_result *rr = find_reported(&rs->req, row->name);
    struct db_report_update *u;
    int success;

    if (!rr)
        return 0;
    if (row->hostid != rs->hostid) {
        log_warn("[host#%d] reported [result#%d] of [host#%d]: ignored", rs->hostid, row->id,
                 row->hostid);
        return 0;
    }
    if (!(row->server_state == RS_IN_PROGRESS ||
          (row->server_state == RS_OVER && row->outcome == RO_NO_REPLY))) {
        log_info("[host#%d] [result#%d] reported again (state %d, outcome %d): acknowledged only",
                 rs->hostid, row->id, row->server_state, row->outcome);
        return 0;
    }
    if (x->nupdates >= rs->req.nresults)
        return 0;
    success = rr->state == CRS_FILES_UPLOADED && rr->exit_status == 0 && !rr->upload_failed;
    u = &x->updates[x->nupdates++];
    u->id = row->id;
    u->outcome = success ? RO_SUCCESS : RO_CLIENT_ERROR;
    u->client_state = rr->state;
    u->exit_status = rr->exit_status;
    u->cpu_time = rr->final_cpu_time;
    u->elapsed_time = rr->final_elapsed_time;
    u->peak_working_set_size = rr->peak_working_set_size;
    u->peak_swap_size = rr->peak_swap_size;
    u->peak_disk_usage = rr->peak_disk_usage;
    u->stderr_out = rr->stderr_out;
    if (success && row->sent_time > 0)
        rhythm_add_turnaround(&rs->rhythm, (double)rs->now - row->sent_time);
    if (success && row->flops_estimate > 0 && row->rsc_fpops_est > 0 &&
        rr->final_elapsed_time > 0 && row->app_version_id > 0) {
        struct db_hav_row *h = hav_get(rs, row->app_version_id, 1);
        if (h) {
            double sample = est_correction_sample(rr->final_elapsed_time, row->rsc_fpops_est,
                                                  row->flops_estimate);
            h->correction = est_correction_update(h->correction, h->et_n, sample);
            h->et_n++;
            x->hav_dirty[h - rs->havs] = 1;
        }
    }
    return 0;
}

static int handle_reports(struct sched_ctx *ctx, struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct report_ctx x;
    const char **names;
    struct db_hav_row dirty[DB_MAX_HAV];
    int i, nd = 0, r;

    if (req->nresults == 0)
        return DB_OK;
    memset(&x, 0, sizeof x);
    x.rs = rs;
    names = malloc(sizeof *names * (size_t)req->nresults);
    x.updates = calloc((size_t)req->nresults, sizeof *x.updates);
    if (!names || !x.updates) {
        free(names);
        free(x.updates);
        return DB_ERR;
    }
    for (i = 0; i < req->nresults; i++)
        names[i] = req->results[i].name;
    r = db_reported_read(ctx->db, names, req->nresults, report_row, &x);
    if (r == DB_OK)
        r = db_report_update(ctx->db, rs->hostid, (int)rs->now, x.updates, x.nupdates);
    if (r == DB_OK) {
        for (i = 0; i < rs->nhavs; i++)
            if (x.hav_dirty[i])
                dirty[nd++] = rs->havs[i];
        r = db_hav_upsert(ctx->db, rs->hostid, dirty, nd);
    }
    rs->nreported = x.nupdates;
    free(names);
    free(x.updates);
    return r;
}

/* ---- sending ---- */

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
        if (r < 0 || (only_needing && !rsc_needs_work(&rs->rscs[r])))
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

double handler_av_correction(struct request_state *rs, int app_version_id)
{
    struct db_hav_row *h = hav_get(rs, app_version_id, 0);
    return h && h->et_n > 0 ? h->correction : 1.0;
}

static int wu_already_taken(const struct request_state *rs, int wu_id)
{
    int i;
    for (i = 0; i < rs->njobs; i++)
        if (rs->jobs[i].cand.wu_id == wu_id)
            return 1;
    return 0;
}

/* Claim the new jobs of the reply (not the lost jobs sent again: those
 * are this host's already). */
static int claim_jobs(struct sched_ctx *ctx, struct request_state *rs)
{
    struct db_claim claims[LIM_JOBS_PER_REPLY];
    int i, r, kept = 0, nclaims = 0;

    for (i = 0; i < rs->njobs; i++) {
        if (rs->jobs[i].resent)
            continue;
        claims[nclaims].result_id = rs->jobs[i].cand.result_id;
        claims[nclaims].app_version_id = rs->jobs[i].av->row.id;
        claims[nclaims].report_deadline = rs->jobs[i].report_deadline;
        claims[nclaims].flops_estimate = rs->jobs[i].flops;
        nclaims++;
    }
    r = db_claim_results(ctx->db, rs->hostid, rs->user.id, (int)rs->now, claims, nclaims);
    if (r != DB_DUP)
        return r;
    /* The database refused a second replica of a job for this user (the
     * unique key on workunitid, userid).  Claim one by one and drop those
     * it refuses; only the failed statement was rolled back. */
    for (i = 0, nclaims = 0; i < rs->njobs; i++) {
        if (rs->jobs[i].resent) {
            rs->jobs[kept++] = rs->jobs[i];
            continue;
        }
        r = db_claim_results(ctx->db, rs->hostid, rs->user.id, (int)rs->now,
                             &claims[nclaims++], 1);
        if (r == DB_DUP) {
            log_info("[host#%d] [result#%d] not sent: user already has a replica", rs->hostid,
                     claims[nclaims - 1].result_id);
            continue;
        }
        if (r != DB_OK)
            return r;
        rs->jobs[kept++] = rs->jobs[i];
    }
    rs->njobs = kept;
    return DB_OK;
}

/*
 * How many candidates to read.  Reading (and locking) more rows than a
 * request can take is the largest avoidable cost in the database: 32
 * rows cost the server about twice what 8 do.  So the count follows what
 * the request asks for, in jobs of the size this process has been seeing
 * (ctx->typical_fpops, a moving average), times candidate_factor for the
 * jobs the EDF check or the app versions turn down; the locality window
 * gets 4 times that, for the choice of files.  Until a job size is known,
 * the full count.
 */
static int candidate_limit(const struct sched_ctx *ctx, const struct request_state *rs)
{
    int full = ctx->cfg.max_jobs_per_reply * ctx->cfg.candidate_factor, limit, i;
    double need = 0;

    if (ctx->source->after_claim && full < ctx->cfg.locality_window)
        full = ctx->cfg.locality_window;
    if (full > 4 * LIM_JOBS_PER_REPLY)
        full = 4 * LIM_JOBS_PER_REPLY;
    if (!(ctx->typical_fpops > 0))
        return full;
    for (i = 0; i < rs->nrscs; i++) {
        const struct rsc_state *r = &rs->rscs[i];
        double secs_per_job, jobs;
        if (r->req_secs <= 0 && r->req_instances <= 0)
            continue;
        secs_per_job = est_wall(ctx->typical_fpops / (r->flops > 0 ? r->flops : 1e9), r->avail);
        jobs = secs_per_job > 0 ? ceil(r->req_secs / secs_per_job) : full;
        if (jobs < ceil(r->req_instances))
            jobs = ceil(r->req_instances);
        need += jobs;
    }
    if (need > ctx->cfg.max_jobs_per_reply)
        need = ctx->cfg.max_jobs_per_reply;
    limit = (int)need * ctx->cfg.candidate_factor + 2;
    if (ctx->source->after_claim && ctx->apps.nactive_locality > 0)
        limit = (int)need * ctx->cfg.candidate_factor * 4 + 4;
    return limit < full ? limit : full;
}

static int send_work(struct sched_ctx *ctx, struct request_state *rs)
{
    struct db_candidate *cands;
    int limit, n = 0, i, r, j;

    for (i = 0; i < rs->nrscs; i++)
        for (j = 0; j < ctx->apps.navs; j++)
            if (av_rsc(rs, &ctx->apps.avs[j]) == i)
                rs->rscs[i].supported = 1;
    limit = candidate_limit(ctx, rs);
    cands = malloc(sizeof *cands * (size_t)limit);
    if (!cands)
        return DB_ERR;
    r = ctx->source->candidates(ctx, rs, limit, cands, &n);
    if (r != DB_OK) {
        free(cands);
        return r;
    }
    for (i = 0; i < n; i++)   /* the job size this process sees, for candidate_limit() */
        if (cands[i].rsc_fpops_est > 0)
            ctx->typical_fpops = ctx->typical_fpops > 0
                ? 0.9 * ctx->typical_fpops + 0.1 * cands[i].rsc_fpops_est
                : cands[i].rsc_fpops_est;
    for (i = 0; i < n && rs->njobs < ctx->cfg.max_jobs_per_reply; i++) {
        const struct db_candidate *c = &cands[i];
        const struct app_version *av;
        struct rsc_state *rsc;
        struct sent_job *job;
        double flops, runtime, wall;
        int ri;

        if (wu_already_taken(rs, c->wu_id))
            continue;
        av = handler_choose_av(ctx, rs, c->appid, 1, &ri);
        if (!av)
            continue;
        rsc = &rs->rscs[ri];
        flops = rsc->flops * (av->row.flops_scale > 0 ? av->row.flops_scale : 1.0);
        runtime = est_runtime(c->rsc_fpops_est, flops, handler_av_correction(rs, av->row.id));
        wall = est_wall(runtime, rsc->avail);
        if (ctx->cfg.sched_policy == POLICY_WS2) {
            enum edf_verdict v = edf_check(&rsc->q, wall, (double)c->delay_bound);
            if (v != EDF_OK) {
                rsc->refused_deadline++;
                log_debug("[host#%d] [result#%d] refused on %s: %s", rs->hostid, c->result_id,
                          rsc->name, edf_verdict_str(v));
                continue;
            }
        }
        if (edf_add(&rsc->q, wall, (double)c->delay_bound) < 0) {
            free(cands);
            return DB_ERR;
        }
        job = &rs->jobs[rs->njobs++];
        job->cand = *c;
        job->av = av;
        job->rsc = ri;
        job->flops = flops;
        job->est_runtime = runtime;
        job->report_deadline = (int)rs->now + c->delay_bound;
        rsc->secs_filled += runtime;
        rsc->njobs++;
        for (j = 0; j < rs->nrscs; j++)
            if (rsc_needs_work(&rs->rscs[j]))
                break;
        if (j == rs->nrscs)
            break;
    }
    free(cands);
    r = claim_jobs(ctx, rs);
    if (r == DB_OK && ctx->source->after_claim)
        r = ctx->source->after_claim(ctx, rs);
    if (r == DB_OK && rs->njobs == 0 && ctx->cfg.tail_budget > 0)
        r = tail_send(ctx, rs);   /* nothing to send: a backup of a slow result? */
    return r;
}

/* ---- jobs from the tail source (job_source_tail.c) ---- */

int handler_job_estimate(struct sched_ctx *ctx, struct request_state *rs,
                         const struct db_candidate *c, struct job_estimate *e)
{
    const struct rsc_state *rsc;
    memset(e, 0, sizeof *e);
    e->av = handler_choose_av(ctx, rs, c->appid, 1, &e->rsc);
    if (!e->av)
        return 0;
    rsc = &rs->rscs[e->rsc];
    e->flops = rsc->flops * (e->av->row.flops_scale > 0 ? e->av->row.flops_scale : 1.0);
    e->runtime = est_runtime(c->rsc_fpops_est, e->flops,
                             handler_av_correction(rs, e->av->row.id));
    e->wall = est_wall(e->runtime, rsc->avail);
    e->delay = rsc->estimated_delay > 0 ? rsc->estimated_delay : 0;
    return 1;
}

int handler_job_fits(const struct sched_ctx *ctx, struct request_state *rs,
                     const struct job_estimate *e, int deadline)
{
    if (ctx->cfg.sched_policy != POLICY_WS2)
        return 1;
    return edf_check(&rs->rscs[e->rsc].q, e->wall, (double)deadline - (double)rs->now) == EDF_OK;
}

int handler_add_claimed(struct request_state *rs, const struct db_candidate *c,
                        const struct job_estimate *e, int deadline)
{
    struct rsc_state *rsc = &rs->rscs[e->rsc];
    struct sent_job *job;
    if (rs->njobs >= LIM_JOBS_PER_REPLY)
        return 0;
    if (edf_add(&rsc->q, e->wall, (double)deadline - (double)rs->now) < 0)
        return -1;
    job = &rs->jobs[rs->njobs++];
    job->cand = *c;
    job->av = e->av;
    job->rsc = e->rsc;
    job->flops = e->flops;
    job->est_runtime = e->runtime;
    job->report_deadline = deadline;
    rsc->secs_filled += e->runtime;
    rsc->njobs++;
    return 0;
}

/* ---- host ---- */

static void host_update_from_request(struct request_state *rs, struct db_host_update *h,
                                     char *coprocs, size_t coprocs_len)
{
    const struct sched_request *q = &rs->req;
    static char version[32];
    size_t off = 0;
    int i;

    memset(h, 0, sizeof *h);
    h->id = rs->hostid;
    h->rpc_seqno = (int)q->rpc_seqno;
    h->rpc_time = (int)rs->now;
    h->timezone = q->timezone;
    h->domain_name = q->domain_name;
    h->last_ip_addr = q->ip_addr;
    h->host_cpid = q->host_cpid;
    h->p_vendor = q->p_vendor;
    h->p_model = q->p_model;
    h->os_name = q->os_name;
    h->os_version = q->os_version;
    h->p_ncpus = q->p_ncpus;
    h->p_fpops = q->p_fpops;
    h->p_iops = q->p_iops;
    h->p_membw = q->p_membw;
    h->m_nbytes = q->m_nbytes;
    h->m_cache = q->m_cache;
    h->m_swap = q->m_swap;
    h->d_total = q->d_total;
    h->d_free = q->d_free;
    h->d_boinc_used_total = q->d_boinc_used_total;
    h->d_boinc_used_project = q->d_boinc_used_project;
    h->on_frac = q->on_frac;
    h->connected_frac = q->connected_frac;
    h->active_frac = q->active_frac;
    h->gpu_active_frac = q->gpu_active_frac;
    h->n_usable_coprocs = q->n_usable_coprocs;
    h->duration_correction_factor = q->duration_correction_factor;
    h->rpc_gap_avg = rs->rhythm.gap_avg;
    h->rpc_gap_dev = rs->rhythm.gap_dev;
    h->rpc_gap_n = rs->rhythm.gap_n;
    h->avg_turnaround = rs->rhythm.avg_turnaround;
    h->turnaround_n = rs->rhythm.turnaround_n;
    coprocs[0] = '\0';
    for (i = 0; i < q->ncoprocs; i++) {
        const struct req_coproc *cp = &q->coprocs[i];
        int n;
        if (strcmp(cp->type, "NVIDIA") == 0) {
            h->gpu_nvidia_count = cp->count;
            h->gpu_nvidia_peak_flops = cp->peak_flops;
        } else if (strcmp(cp->type, "ATI") == 0) {
            h->gpu_ati_count = cp->count;
            h->gpu_ati_peak_flops = cp->peak_flops;
        } else if (strcmp(cp->type, "intel_gpu") == 0) {
            h->gpu_intel_count = cp->count;
            h->gpu_intel_peak_flops = cp->peak_flops;
        }
        n = snprintf(coprocs + off, coprocs_len - off, "%s %d %g\n", cp->type, cp->count,
                     cp->peak_flops);
        if (n < 0 || (size_t)n >= coprocs_len - off) {
            coprocs[off] = '\0';
            break;
        }
        off += (size_t)n;
    }
    h->coprocs = coprocs;
    snprintf(version, sizeof version, "%d.%d.%d", q->core_client_major_version,
             q->core_client_minor_version, q->core_client_release);
    h->core_client_version = version;
}

/* ---- the transaction ---- */

struct tx_arg {
    struct sched_ctx *ctx;
    struct request_state *rs;
};

static int tx_body(struct db_conn *c, void *varg)
{
    struct tx_arg *a = varg;
    struct sched_ctx *ctx = a->ctx;
    struct request_state *rs = a->rs;
    const struct sched_request *req = &rs->req;
    struct db_host_update hu;
    char coprocs[2048];
    int r, i;

    /* start every attempt from scratch */
    rs->njobs = 0;
    rs->nreported = 0;
    rs->send_hostid = 0;
    rs->auth_failed = 0;
    rs->note[0] = '\0';
    rs->nloc = 0;
    free(rs->delete_files);
    rs->delete_files = NULL;
    rs->ndelete_files = 0;
    rs->naborts = 0;
    rs->nresent = 0;
    rs->nlost = 0;
    free_rscs(rs);

    r = app_cache_refresh(&ctx->apps, c, rs->now);
    if (r != DB_OK)
        return r;
    r = db_sched_auth(c, rs->auth_hash, (int)req->hostid, &rs->user, &rs->host, rs->havs,
                      DB_MAX_HAV, &rs->nhavs);
    if (r == DB_NOTFOUND) {
        rs->auth_failed = 1;
        return DB_ABORT;
    }
    if (r != DB_OK)
        return r;
    if (strlen(rs->user.authenticator) != strlen(req->authenticator) ||
        CRYPTO_memcmp(rs->user.authenticator, req->authenticator,
                      strlen(req->authenticator)) != 0) {
        rs->auth_failed = 1;
        return DB_ABORT;
    }

    rs->hostid = rs->host.id;
    if (rs->hostid && req->rpc_seqno < rs->host.rpc_seqno) {
        /* A copy of a host (a cloned disk image, a restored backup): both
         * would report and fetch under one id.  Give the copy a host of
         * its own; its old jobs time out on the original record. */
        log_warn("[host#%d] rpc_seqno went back from %d to %lld: new host for the copy",
                 rs->hostid, rs->host.rpc_seqno, (long long)req->rpc_seqno);
        snprintf(rs->note, sizeof rs->note,
                 "This computer looks like a copy of computer %d; it gets an id of its own.",
                 rs->hostid);
        rs->hostid = 0;
    }
    if (!rs->hostid) {
        if (req->hostid)
            log_info("[user#%d] unknown or foreign hostid %lld: new host", rs->user.id,
                     (long long)req->hostid);
        r = db_host_insert(c, rs->user.id, (int)rs->now, &rs->hostid);
        if (r != DB_OK)
            return r;
        rs->send_hostid = 1;
        rs->nhavs = 0;
        memset(&rs->host, 0, sizeof rs->host);
        rs->host.id = rs->hostid;
    }
    rs->rhythm.gap_avg = rs->host.rpc_gap_avg;
    rs->rhythm.gap_dev = rs->host.rpc_gap_dev;
    rs->rhythm.gap_n = rs->host.rpc_gap_n;
    rs->rhythm.avg_turnaround = rs->host.avg_turnaround;
    rs->rhythm.turnaround_n = rs->host.turnaround_n;
    if (rs->host.rpc_time > 0)
        rhythm_add_gap(&rs->rhythm, (double)rs->now - rs->host.rpc_time);

    r = handle_reports(ctx, rs);
    if (r != DB_OK)
        return r;

    if (setup_rscs(ctx, rs) < 0)
        return DB_ERR;
    if (!ctx->code_sign_key[0]) {
        /* No code-signing key: the client would refuse every app file, so
         * nothing that carries one goes out, neither new work nor a lost
         * job sent again (those wait for a request made with the key). */
        if (rs->wants_work) {
            rs->wants_work = 0;
            code_sign_key_refusal(&ctx->code_sign_watch, rs->note, sizeof rs->note, rs->now);
        }
    } else {
        r = lost_jobs_handle(ctx, rs);
        if (r != DB_OK)
            return r;
    }
    if (rs->wants_work) {
        r = send_work(ctx, rs);
        if (r != DB_OK)
            return r;
    } else if (rs->nresent > 0 && ctx->source->after_claim) {
        /* the files of the jobs sent again are recorded as sent */
        r = ctx->source->after_claim(ctx, rs);
        if (r != DB_OK)
            return r;
    }
    for (i = 0; i < rs->nrscs; i++) {
        struct rsc_state *rsc = &rs->rscs[i];
        if (rsc->req_secs <= 0 && rsc->req_instances <= 0)
            continue;
        if (rsc->njobs > 0)
            rsc->reason = NW_NONE;
        else if (req->dont_send_work)
            rsc->reason = NW_DONT_SEND;
        else if (!rsc->supported)
            rsc->reason = NW_NOT_SUPPORTED;
        else if (rsc->refused_deadline > 0)
            rsc->reason = NW_DEADLINE;
        else
            rsc->reason = NW_NO_WORK;
    }

    host_update_from_request(rs, &hu, coprocs, sizeof coprocs);
    /* a new host's client resets its rpc_seqno to 0 on getting the id */
    if (rs->send_hostid)
        hu.rpc_seqno = 0;
    return db_host_update(c, &hu);
}

/* ---- entry point ---- */

void sched_handle(struct sched_ctx *ctx, const char *body, size_t len, struct buf *out,
                  struct sched_stats *stats)
{
    struct request_state *rs;
    struct tx_arg arg;
    char err[512];
    unsigned long st0, rt0 = 0;
    int r, skipped = 0;

    memset(stats, 0, sizeof *stats);
    buf_reset(out);
    ctx->nrequests++;
    rs = calloc(1, sizeof *rs);
    if (!rs) {
        reply_write_error(out, ctx, "Server out of memory; please try again later.",
                          ctx->cfg.overload_request_delay);
        snprintf(stats->outcome, sizeof stats->outcome, "nomem");
        stats->status = -1;
        return;
    }
    rs->now = ctx->clock ? ctx->clock() : time(NULL);
    code_sign_key_refresh(&ctx->code_sign_watch, ctx->code_sign_key, sizeof ctx->code_sign_key,
                          rs->now);
    if (ctx->cfg.record_requests)
        record_request(ctx, body, len, rs->now);

    r = sched_request_parse(body, len, &rs->req, err, sizeof err);
    if (r != SRQ_OK) {
        char msg[600];
        log_warn("malformed request (%s): %s", sched_request_strerror(r), err);
        snprintf(msg, sizeof msg, "The scheduler could not read this request: %s", err);
        reply_write_error(out, ctx, msg, ctx->cfg.min_request_delay > 60 ?
                          ctx->cfg.min_request_delay : 60);
        snprintf(stats->outcome, sizeof stats->outcome, "malformed");
        stats->status = r;
        free(rs);
        return;
    }
    SHA256((const unsigned char *)rs->req.authenticator, strlen(rs->req.authenticator),
           rs->auth_hash);

    /* After the database failed to answer, the process answers "later" at
     * once for db_timeout seconds instead of making every client wait for
     * the timeout again (the clients back off; the database recovers). */
    if (ctx->db_down_until && rs->now < ctx->db_down_until && rs->now >= ctx->db_down_until -
        ctx->cfg.db_timeout) {
        r = DB_UNAVAILABLE;
        st0 = ctx->db ? db_statement_count(ctx->db) : 0;
        skipped = 1;
        goto replied_unavailable;
    }
    if (!ctx->db) {
        ctx->db = db_open(&ctx->dbp, err, sizeof err);
        if (!ctx->db)
            log_error("database unavailable: %s", err);
    }
    st0 = ctx->db ? db_statement_count(ctx->db) : 0;
    arg.ctx = ctx;
    arg.rs = rs;
    rt0 = ctx->db ? db_retry_count(ctx->db) : 0;
    r = ctx->db ? db_transaction(ctx->db, "scheduler request", tx_body, &arg) : DB_UNAVAILABLE;
    /* Giving up on conflicts with other transactions (deadlocks, Galera
     * certification failures) says the database is busy, not down: the
     * next request is tried as usual. */
    ctx->db_down_until = r == DB_UNAVAILABLE && !(ctx->db && db_failed_on_conflict(ctx->db)) ?
                         rs->now + ctx->cfg.db_timeout : 0;
    stats->retries = ctx->db ? db_retry_count(ctx->db) - rt0 : 0;
replied_unavailable:
    stats->statements = ctx->db ? db_statement_count(ctx->db) - st0 : 0;
    stats->status = r;

    if (r == DB_ABORT && rs->auth_failed) {
        log_info("request with an unknown account key refused");
        reply_write_error(out, ctx,
                          "Unknown account key (authenticator). Check the key you attached "
                          "with, or remove the project and attach again.",
                          ctx->cfg.overload_request_delay);
        snprintf(stats->outcome, sizeof stats->outcome, "auth");
    } else if (r != DB_OK) {
        if (skipped)
            log_info("request not handled: the database failed less than %d s ago",
                     ctx->cfg.db_timeout);
        else
            log_error("request not handled: %s", ctx->db ? db_error(ctx->db) : "no database");
        reply_write_error(out, ctx,
                          "The project's server is busy or under maintenance; your computer "
                          "will try again later.",
                          ctx->cfg.overload_request_delay);
        snprintf(stats->outcome, sizeof stats->outcome, "unavailable");
    } else {
        reply_write(out, ctx, rs);
        stats->jobs_sent = rs->njobs;
        stats->results_reported = rs->nreported;
        stats->results_acked = rs->req.nresults;
        stats->jobs_resent = rs->nresent;
        stats->results_lost = rs->nlost;
        stats->results_aborted = rs->naborts;
        snprintf(stats->outcome, sizeof stats->outcome, "ok");
        log_info("[host#%d] [user#%d] rpc_seqno %lld: %d reported, %d sent (%d resent), "
                 "%d lost, %d aborts, %lu retries", rs->hostid, rs->user.id,
                 (long long)rs->req.rpc_seqno, rs->nreported, rs->njobs, rs->nresent, rs->nlost,
                 rs->naborts, stats->retries);
        ctx->total_resent += (unsigned long)rs->nresent;
        ctx->total_lost += (unsigned long)rs->nlost;
        ctx->total_aborts += (unsigned long)rs->naborts;
        if (rs->nresent || rs->nlost)
            log_info("lost jobs in this process so far: %lu sent again, %lu marked lost, "
                     "%lu aborts, in %lu requests", ctx->total_resent, ctx->total_lost,
                     ctx->total_aborts, ctx->nrequests);
    }
    if (out->oom) {
        buf_reset(out);
        buf_puts(out, "<scheduler_reply>\n<request_delay>600</request_delay>\n</scheduler_reply>\n");
    }
    free_rscs(rs);
    free(rs->delete_files);
    free(rs->aborts);
    sched_request_free(&rs->req);
    free(rs);
}
