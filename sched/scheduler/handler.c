/*
 * handler.c - the scheduler's request handling (see handler.h).
 *
 * Order of work for one request:
 *   1. parse and validate the body (no database work for a bad request);
 *   2. in one transaction: authenticate (one statement: user, host and the
 *      host's runtime corrections), create the host if needed, handle the
 *      reported results (read, update, corrections: three statements),
 *      pick and claim jobs (lock candidates, claim: two statements) within
 *      the host's daily quota, update the host (one statement: with its
 *      count of jobs sent today and its standing), commit;
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
#include <unistd.h>

#include "db_gpu.h"
#include "estimate.h"
#include "finish_line.h"
#include "host_quota.h"
#include "job_source.h"
#include "log.h"
#include "lost_jobs.h"
#include "handler_internal.h"
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
    case NW_FINISH_LINE: return "finish_line";
    case NW_DAILY_QUOTA: return "daily_quota";
    case NW_YOUNG_BATCH: return "young_batch";
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

/* ---- sending ---- */

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

/* ---- the daily quota (sched/policy/host_quota.h) ---- */

/* Jobs of this reply that count against the quota: all but the lost jobs
 * sent again (they were counted when first sent). */
static int new_jobs(const struct request_state *rs)
{
    int i, n = 0;
    for (i = 0; i < rs->njobs; i++)
        n += !rs->jobs[i].resent;
    return n;
}

/* The host's quota for today, from its standing after this request's
 * reports and its resources. */
static void quota_setup(const struct sched_ctx *ctx, struct request_state *rs)
{
    int i, ncpus = 0, ngpus = 0;
    int per_cpu = hq_per_cpu(rs->host.standing.max_results_day, ctx->cfg.daily_result_quota);

    for (i = 0; i < rs->nrscs; i++) {
        if (rs->rscs[i].is_cpu)
            ncpus += rs->rscs[i].ninstances;
        else
            ngpus += rs->rscs[i].ninstances;
    }
    rs->quota_limit = hq_day_limit(per_cpu, ncpus, ngpus, ctx->cfg.gpu_multiplier);
    rs->quota_sent_today = hq_sent_today(rs->host.nresults_today, rs->host.rpc_time, rs->now);
}

/* 1 when the quota allows one more new job in this reply; else notes
 * that it was reached. */
static int quota_allows_one(struct request_state *rs)
{
    if (rs->quota_limit < 0 || rs->quota_sent_today + new_jobs(rs) < rs->quota_limit)
        return 1;
    if (!rs->quota_reached) {
        rs->quota_reached = 1;
        snprintf(rs->quota_note, sizeof rs->quota_note,
                 "This computer reached its daily quota of %ld task%s; it gets more "
                 "tomorrow (UTC).", rs->quota_limit, rs->quota_limit == 1 ? "" : "s");
        log_info("[host#%d] daily quota of %ld jobs reached (%d sent today before this "
                 "request)", rs->hostid, rs->quota_limit, rs->quota_sent_today);
    }
    return 0;
}

/*
 * How many candidates to read.  Reading (and locking) more rows than a
 * request can take is the largest avoidable cost in the database: each
 * candidate is a locked result row, its workunit row and a probe of the
 * user's replicas.  So the count is what the request can take: its
 * seconds over the shortest job of this process's last read
 * (ctx->short_fpops: counted in the shortest jobs, the count is not
 * below what the request takes of the jobs seen), times candidate_factor
 * for the jobs the EDF check, the finish line or the app versions turn
 * down, and at most max_jobs_per_reply x candidate_factor (the plain
 * window, rs->plain_window); the locality window gets 4 times that, for
 * the choice of files.  Until a job size is known, the full counts.
 */
static int candidate_limit(const struct sched_ctx *ctx, struct request_state *rs)
{
    const int cap = 4 * LIM_JOBS_PER_REPLY;
    int full = ctx->cfg.max_jobs_per_reply * ctx->cfg.candidate_factor, limit, i;
    double need = 0;

    rs->plain_window = full < cap ? full : cap;
    if (ctx->source->after_claim && full < ctx->cfg.locality_window)
        full = ctx->cfg.locality_window;
    if (full > cap)
        full = cap;
    if (!(ctx->short_fpops > 0))
        return full;
    for (i = 0; i < rs->nrscs; i++) {
        const struct rsc_state *r = &rs->rscs[i];
        double secs_per_job, jobs;
        if (r->req_secs <= 0 && r->req_instances <= 0)
            continue;
        secs_per_job = est_wall(ctx->short_fpops / (r->flops > 0 ? r->flops : 1e9), r->avail);
        jobs = secs_per_job > 0 ? ceil(r->req_secs / secs_per_job) : full;
        if (jobs < ceil(r->req_instances))
            jobs = ceil(r->req_instances);
        need += jobs;
    }
    if (need > ctx->cfg.max_jobs_per_reply)
        need = ctx->cfg.max_jobs_per_reply;
    if (need < 1)
        need = 1;
    limit = (int)need * ctx->cfg.candidate_factor;
    if (limit < rs->plain_window)
        rs->plain_window = limit;
    if (ctx->source->after_claim && ctx->apps.nactive_locality > 0)
        limit = (int)need * ctx->cfg.candidate_factor * 4 + 4;
    return limit < full ? limit : full;
}

/*
 * Would this host finish candidate c (wall seconds once started on rsc)
 * by its batch's finish line (sched/policy/finish_line.h)?  It starts
 * when an instance is free (the client's estimated_delay) and the work
 * already accepted for this reply has run.  A young batch with no line
 * yet goes to idle instances only.  Returns FL_OK, or why not.
 */
enum fl_verdict { FL_OK, FL_LATE, FL_YOUNG };

static enum fl_verdict before_finish_line(const struct sched_ctx *ctx,
                                          const struct request_state *rs,
                                          const struct rsc_state *rsc,
                                          const struct db_candidate *c, double wall)
{
    const struct db_active_batch *b;
    double start;

    if (!(ctx->cfg.finish_line_slack > 0))
        return FL_OK;
    b = app_cache_active_batch(&ctx->apps, c->batch);
    if (!b)
        return FL_OK;
    start = rsc->estimated_delay +
            est_wall(rsc->secs_filled / (rsc->ninstances > 0 ? rsc->ninstances : 1), rsc->avail);
    if (b->finish_eta <= 0) {
        if (rs->now - (double)b->create_time >= ctx->cfg.finish_line_young ||
            finish_line_young_accepts(rsc->req_instances, rsc->njobs, start))
            return FL_OK;
        return FL_YOUNG;
    }
    return finish_line_accepts((double)b->finish_eta - (double)rs->now, b->finish_fast_flops,
                               c->rsc_fpops_est, start, wall, ctx->cfg.finish_line_slack)
               ? FL_OK : FL_LATE;
}

/* The shortest job among n candidates (0: none known). */
static double shortest_job(const struct db_candidate *cands, int n, double shortest)
{
    int i;
    for (i = 0; i < n; i++)
        if (cands[i].rsc_fpops_est > 0 && (!(shortest > 0) || cands[i].rsc_fpops_est < shortest))
            shortest = cands[i].rsc_fpops_est;
    return shortest;
}

/*
 * Take candidates cands[0..n) in order into rs->jobs, as far as the
 * request, its app versions, the EDF check and the finish lines allow.
 * *filled: the request needs nothing more (every resource has its work,
 * or the reply is full).
 */
static int take_candidates(struct sched_ctx *ctx, struct request_state *rs,
                           const struct db_candidate *cands, int n, int *filled)
{
    int i, j;

    *filled = rs->njobs >= ctx->cfg.max_jobs_per_reply;
    for (i = 0; i < n && !*filled; i++) {
        const struct db_candidate *c = &cands[i];
        const struct app_version *av;
        struct rsc_state *rsc;
        struct sent_job *job;
        double flops, runtime, wall;
        enum fl_verdict fl;
        int ri;

        if (!quota_allows_one(rs))
            break;
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
        fl = before_finish_line(ctx, rs, rsc, c, wall);
        if (fl != FL_OK) {
            if (fl == FL_YOUNG)
                rsc->refused_young++;
            else
                rsc->refused_finish++;
            log_debug("[host#%d] [result#%d] refused on %s: %s", rs->hostid, c->result_id,
                      rsc->name, fl == FL_YOUNG ? "a young batch, no idle instance left"
                                                : "its batch's finish line");
            continue;
        }
        if (edf_add(&rsc->q, wall, (double)c->delay_bound) < 0)
            return DB_ERR;
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
            if (handler_rsc_needs_work(&rs->rscs[j]))
                break;
        if (j == rs->nrscs || rs->njobs >= ctx->cfg.max_jobs_per_reply)
            *filled = 1;
    }
    return DB_OK;
}

static int send_work(struct sched_ctx *ctx, struct request_state *rs)
{
    struct db_candidate *cands;
    double shortest;
    int limit, n = 0, i, r, j, filled = 0;

    for (i = 0; i < rs->nrscs; i++)
        for (j = 0; j < ctx->apps.navs; j++)
            if (handler_av_rsc(rs, &ctx->apps.avs[j]) == i)
                rs->rscs[i].supported = 1;
    limit = candidate_limit(ctx, rs);
    cands = malloc(sizeof *cands * (size_t)limit);
    if (!cands)
        return DB_ERR;
    rs->plain_later = 0;
    /* a host that got its daily quota: no candidate is read */
    r = quota_allows_one(rs) ? ctx->source->candidates(ctx, rs, limit, cands, &n) : DB_OK;
    shortest = shortest_job(cands, n, 0);
    if (r == DB_OK)
        r = take_candidates(ctx, rs, cands, n, &filled);
    /* the plain candidates that the locality source left for later: read
     * only when its own did not fill the request (one statement fewer in
     * the locality steady state); then taken as if read with them */
    if (r == DB_OK && !filled && rs->plain_later > 0 && quota_allows_one(rs)) {
        int later = rs->plain_later < limit ? rs->plain_later : limit;
        n = 0;
        r = job_source_plain.candidates(ctx, rs, later, cands, &n);
        shortest = shortest_job(cands, n, shortest);
        if (r == DB_OK)
            r = take_candidates(ctx, rs, cands, n, &filled);
    }
    rs->plain_later = 0;
    free(cands);
    if (r != DB_OK)
        return r;
    if (shortest > 0)              /* the shortest job read, for candidate_limit() */
        ctx->short_fpops = shortest;
    r = claim_jobs(ctx, rs);
    if (r == DB_OK && ctx->source->after_claim)
        r = ctx->source->after_claim(ctx, rs);
    if (r == DB_OK && rs->njobs == 0 && ctx->cfg.tail_budget > 0 && quota_allows_one(rs))
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
                     const struct db_candidate *c, const struct job_estimate *e, int deadline)
{
    if (ctx->cfg.sched_policy == POLICY_WS2 &&
        edf_check(&rs->rscs[e->rsc].q, e->wall, (double)deadline - (double)rs->now) != EDF_OK)
        return 0;
    return before_finish_line(ctx, rs, &rs->rscs[e->rsc], c, e->wall) == FL_OK;
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
        int n, g = db_gpu_type(cp->type);
        if (g >= 0) {
            h->gpu_count[g] = cp->count;
            h->gpu_peak_flops[g] = cp->peak_flops;
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

/* The account look-up, with the census of the host's results in
 * progress against the names the client holds (lost_jobs.c uses it) */
static int auth_and_census(struct sched_ctx *ctx, struct db_conn *c, struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct db_held_names held = { NULL, 0, NULL, 0 };
    const char **names = NULL;
    int i, r;
    /* an old client lists nothing: the census then means nothing (the
     * lost-job check does not run), but the reported results are read */
    int nlisted = req->have_other_results ? req->nother_results : 0;

    if (nlisted + req->nresults > 0) {
        names = malloc(sizeof *names * (size_t)(nlisted + req->nresults));
        if (!names)
            return DB_ERR;
        for (i = 0; i < nlisted; i++)
            names[i] = req->other_results[i].name;
        for (i = 0; i < req->nresults; i++)
            names[nlisted + i] = req->results[i].name;
        held.listed = names;
        held.nlisted = nlisted;
        held.reported = names + nlisted;
        held.nreported = req->nresults;
    }
    rs->nreported_rows = 0;
    if (req->nresults > 0 && !rs->reported) {
        rs->reported = malloc(sizeof *rs->reported * (size_t)req->nresults);
        if (!rs->reported) {
            free(names);
            return DB_ERR;
        }
    }
    {
        /* a known host's teams, when there are locality batches */
        int want_teams = ctx->apps.nactive_locality > 0 && req->hostid > 0;
        struct db_reported_set rep = { rs->reported, req->nresults, 0 };
        struct db_team_set teams = { rs->teams, LOC_MAX_BATCHES, 0 };
        r = db_sched_auth(c, rs->auth_hash, (int)req->hostid, &held, &rs->user, &rs->host,
                          rs->havs, DB_MAX_HAV, &rs->nhavs, req->nresults > 0 ? &rep : NULL,
                          want_teams ? &teams : NULL);
        rs->nreported_rows = rep.n;
        rs->nteams = teams.n;
        /* all of them, or the locality source reads them itself */
        rs->teams_read = want_teams && teams.n < LOC_MAX_BATCHES;
    }
    rs->nhavs_db = rs->nhavs;
    free(names);
    return r;
}

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
    rs->nloc = rs->loc_chosen = 0;
    memset(&rs->stretch, 0, sizeof rs->stretch);
    free(rs->held);
    rs->held = NULL;
    rs->nheld = rs->held_mapped = 0;
    free(rs->delete_files);
    rs->delete_files = NULL;
    rs->ndelete_files = 0;
    rs->naborts = 0;
    rs->nhavs_changed = 0;
    rs->nresent = 0;
    rs->nlost = 0;
    rs->quota_reached = 0;
    rs->quota_note[0] = '\0';
    handler_free_rscs(rs);

    r = app_cache_refresh(&ctx->apps, c, rs->now);
    if (r != DB_OK)
        return r;
    r = auth_and_census(ctx, c, rs);
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
        rs->nhavs = rs->nhavs_db = 0;
        memset(&rs->host, 0, sizeof rs->host);
        rs->host.id = rs->hostid;
    }
    rs->standing_was = rs->host.standing;
    rs->rhythm.gap_avg = rs->host.rpc_gap_avg;
    rs->rhythm.gap_dev = rs->host.rpc_gap_dev;
    rs->rhythm.gap_n = rs->host.rpc_gap_n;
    rs->rhythm.avg_turnaround = rs->host.avg_turnaround;
    rs->rhythm.turnaround_n = rs->host.turnaround_n;
    if (rs->host.rpc_time > 0)
        rhythm_add_gap(&rs->rhythm, (double)rs->now - rs->host.rpc_time);

    r = handler_handle_reports(ctx, rs);
    if (r != DB_OK)
        return r;

    if (handler_setup_rscs(ctx, rs) < 0)
        return DB_ERR;
    quota_setup(ctx, rs);
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
        else if (rs->quota_reached)
            rsc->reason = NW_DAILY_QUOTA;
        else if (rsc->refused_deadline > 0)
            rsc->reason = NW_DEADLINE;
        else if (rsc->refused_finish > 0)
            rsc->reason = NW_FINISH_LINE;
        else if (rsc->refused_young > 0)
            rsc->reason = NW_YOUNG_BATCH;
        else
            rsc->reason = NW_NO_WORK;
    }

    /* the input files of the reply's jobs, read in the transaction (a
     * failed read is passed on; the reply, written after COMMIT, finds
     * them in the cache) */
    for (i = 0; i < rs->njobs; i++) {
        const struct batch_files *bf;
        if (rs->jobs[i].cand.nfiles <= 0)
            continue;
        r = app_cache_batch_get(&ctx->apps, c, rs->jobs[i].cand.batch, rs->now, &bf);
        if (r != DB_OK)
            return r;
    }

    host_update_from_request(rs, &hu, coprocs, sizeof coprocs);
    /* a new host's client resets its rpc_seqno to 0 on getting the id */
    if (rs->send_hostid)
        hu.rpc_seqno = 0;
    hu.nresults_today = rs->quota_sent_today + new_jobs(rs);
    hu.standing_was = rs->standing_was;
    hu.standing_now = rs->host.standing;
    hu.havs = rs->havs_changed;
    hu.nhavs = rs->nhavs_changed;
    hu.stretch = rs->stretch.batch_id > 0 ? &rs->stretch : NULL;
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

    /* stopped by the administrator: no database work at all */
    if (config_project_stopped(&ctx->cfg)) {
        reply_write_down(out, ctx, ctx->cfg.overload_request_delay);
        snprintf(stats->outcome, sizeof stats->outcome, "down");
        log_info("request answered 'project is down' (project_is_down or %s)", STOP_SCHED_FILE);
        sched_request_free(&rs->req);
        free(rs);
        return;
    }

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
    handler_free_rscs(rs);
    free(rs->held);
    free(rs->delete_files);
    free(rs->aborts);
    free(rs->reported);
    sched_request_free(&rs->req);
    free(rs);
}
