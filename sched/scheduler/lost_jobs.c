/*
 * lost_jobs.c - resend or mark lost the jobs a host no longer holds, and
 * abort those it holds that are no longer needed (see lost_jobs.h).
 */
#include "lost_jobs.h"

#include <stdlib.h>
#include <string.h>

#include "db_lost.h"
#include "estimate.h"
#include "log.h"
#include "lost_results.h"

/* Most jobs in progress on one host that one request looks at: as many as
 * a client may list.  Beyond that, nothing listed is aborted (it may be
 * one of the jobs not read) and the lost jobs read are still found. */
#define LOST_READ_MAX LIM_IP_RESULTS

static int add_abort(struct request_state *rs, const char *name, int if_not_started)
{
    struct result_abort *a;
    if (rs->naborts == rs->cap_aborts) {
        int cap = rs->cap_aborts ? 2 * rs->cap_aborts : 16;
        struct result_abort *v = realloc(rs->aborts, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        rs->aborts = v;
        rs->cap_aborts = cap;
    }
    a = &rs->aborts[rs->naborts++];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->if_not_started = if_not_started;
    return 0;
}

/* The app version to send a lost job with: the one it was sent with, if
 * the host can still run it, else the one a new job would get.  NULL if
 * none; *rsc gets its resource. */
static const struct app_version *resend_av(const struct sched_ctx *ctx,
                                           const struct request_state *rs,
                                           const struct db_in_progress_row *row, int *rsc)
{
    int i;
    for (i = 0; i < ctx->apps.navs; i++) {
        const struct app_version *av = &ctx->apps.avs[i];
        if (av->row.id == row->app_version_id && (*rsc = handler_av_rsc(rs, av)) >= 0)
            return av;
    }
    return handler_choose_av(ctx, rs, row->cand.appid, 0, rsc);
}

/* Try to put a lost job into this reply.  Returns 1 if it is resent, 0 if
 * it cannot meet its deadline here (or has no app version), -1 when the
 * reply is full (no judgement this time), -2 when out of memory. */
static int try_resend(struct sched_ctx *ctx, struct request_state *rs,
                      const struct db_in_progress_row *row)
{
    const struct app_version *av;
    struct rsc_state *rsc;
    struct sent_job *job;
    double flops, runtime, wall, left = (double)row->report_deadline - (double)rs->now;
    int ri;

    if (rs->req.dont_send_work)
        return 0;
    if (rs->njobs >= ctx->cfg.max_jobs_per_reply)
        return -1;
    if (left <= 0)
        return 0;
    av = resend_av(ctx, rs, row, &ri);
    if (!av)
        return 0;
    rsc = &rs->rscs[ri];
    flops = rsc->flops * (av->row.flops_scale > 0 ? av->row.flops_scale : 1.0);
    runtime = est_runtime(row->cand.rsc_fpops_est, flops, handler_av_correction(rs, av->row.id));
    wall = est_wall(runtime, rsc->avail);
    if (ctx->cfg.sched_policy == POLICY_WS2) {
        enum edf_verdict v = edf_check(&rsc->q, wall, left);
        if (v != EDF_OK) {
            log_info("[host#%d] [result#%d] lost, not resent on %s: %s", rs->hostid,
                     row->cand.result_id, rsc->name, edf_verdict_str(v));
            return 0;
        }
    }
    if (edf_add(&rsc->q, wall, left) < 0)
        return -2;
    job = &rs->jobs[rs->njobs++];
    memset(job, 0, sizeof *job);
    job->cand = row->cand;
    job->av = av;
    job->rsc = ri;
    job->flops = flops;
    job->est_runtime = runtime;
    job->report_deadline = row->report_deadline;
    job->resent = 1;
    rsc->secs_filled += runtime;
    rsc->njobs++;
    return 1;
}

int lost_jobs_handle(struct sched_ctx *ctx, struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct db_in_progress_row *rows = NULL;
    const char **server = NULL, **listed = NULL, **reported = NULL;
    enum lr_wu_state *wu = NULL;
    enum lr_verdict *verdict = NULL;
    int *foreign = NULL;
    struct db_lost_update *upd = NULL;
    int nrows = 0, nupd = 0, complete = 1, i, r = DB_OK;

    rs->naborts = 0;
    rs->nresent = 0;
    rs->nlost = 0;
    if (!req->have_other_results)
        return DB_OK;   /* an old or odd client: no judgement */
    if (!rs->send_hostid && rs->host.n_in_progress > 0 && rs->host.n_ip_odd == 0 &&
        rs->host.n_ip_listed == req->nother_results)
        return DB_OK;   /* the census of the first statement: every result in
                         * progress listed and needed, or reported; every
                         * listed name one of them; nothing to read or do */

    if (!rs->send_hostid && rs->host.n_in_progress > 0) {
        /* the count is from this transaction's first statement; a few
         * more rows leave room for a concurrent request of the same host */
        int limit = rs->host.n_in_progress + 8;
        if (limit > LOST_READ_MAX)
            limit = LOST_READ_MAX;
        rows = malloc(sizeof *rows * (size_t)limit);
        if (!rows)
            return DB_ERR;
        r = db_host_in_progress(ctx->db, rs->hostid, limit, rows, &nrows);
        if (r != DB_OK)
            goto out;
        complete = nrows < limit;
    }
    server = malloc(sizeof *server * (size_t)(nrows + 1));
    wu = malloc(sizeof *wu * (size_t)(nrows + 1));
    verdict = malloc(sizeof *verdict * (size_t)(nrows + 1));
    upd = malloc(sizeof *upd * (size_t)(nrows + 1));
    listed = malloc(sizeof *listed * (size_t)(req->nother_results + 1));
    foreign = malloc(sizeof *foreign * (size_t)(req->nother_results + 1));
    reported = malloc(sizeof *reported * (size_t)(req->nresults + 1));
    if (!server || !wu || !verdict || !upd || !listed || !foreign || !reported) {
        r = DB_ERR;
        goto out;
    }
    for (i = 0; i < nrows; i++) {
        server[i] = rows[i].cand.result_name;
        wu[i] = rows[i].error_mask ? LR_WU_ERROR
              : rows[i].canonical_resultid ? LR_WU_QUORUM : LR_WU_NEEDED;
    }
    for (i = 0; i < req->nother_results; i++)
        listed[i] = req->other_results[i].name;
    for (i = 0; i < req->nresults; i++)
        reported[i] = req->results[i].name;
    if (lr_classify(server, wu, nrows, complete, listed, req->nother_results, reported,
                    req->nresults, verdict, foreign) < 0) {
        r = DB_ERR;
        goto out;
    }

    for (i = 0; i < nrows && r == DB_OK; i++) {
        const struct db_in_progress_row *row = &rows[i];
        int sent;
        switch (verdict[i]) {
        case LR_ABORT_IF_NOT_STARTED:
        case LR_ABORT:
            if (add_abort(rs, row->cand.result_name, verdict[i] == LR_ABORT_IF_NOT_STARTED) < 0)
                r = DB_ERR;
            continue;
        case LR_LOST:
            break;
        default:
            continue;
        }
        if (!ctx->cfg.resend_lost_results)
            continue;
        /* a job of a host presumed gone already has its replacement:
         * sending it again would compute it twice */
        sent = wu[i] == LR_WU_NEEDED && !(row->replica_flags & RF_HOST_LOST)
             ? try_resend(ctx, rs, row) : 0;
        if (sent == -1)
            continue;
        if (sent == -2) {
            r = DB_ERR;
            break;
        }
        upd[nupd].result_id = row->cand.result_id;
        upd[nupd].lost = !sent;
        upd[nupd].app_version_id = sent ? rs->jobs[rs->njobs - 1].av->row.id : 0;
        upd[nupd].flops_estimate = sent ? rs->jobs[rs->njobs - 1].flops : 0;
        nupd++;
        if (sent)
            rs->nresent++;
        else
            rs->nlost++;
    }
    for (i = 0; i < req->nother_results && r == DB_OK; i++)
        if (foreign[i] && add_abort(rs, listed[i], 0) < 0)
            r = DB_ERR;
    if (r == DB_OK)
        r = db_lost_update(ctx->db, rs->hostid, (int)rs->now, upd, nupd);
    if (r == DB_OK)
        for (i = 0; i < nupd; i++)
            log_info("[host#%d] [result#%d] lost by the host: %s", rs->hostid,
                     upd[i].result_id, upd[i].lost ? "marked lost, a new replica follows"
                                                   : "sent again");
out:
    free(rows);
    free(server);
    free(wu);
    free(verdict);
    free(upd);
    free(listed);
    free(foreign);
    free(reported);
    return r;
}
