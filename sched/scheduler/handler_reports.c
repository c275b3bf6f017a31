/*
 * handler_reports.c - the results a host reports in one request: read
 * them (only the host's own results count), write their outcomes, and
 * update the host's runtime corrections per app version, its turnaround
 * and its standing for the daily quota (see handler_internal.h).  The account look-up read them
 * (db_sched_auth); here one statement writes their outcomes, and one more
 * inserts the corrections of app versions the host reports for the first
 * time (changed ones are written with the host update), inside the
 * request's transaction.
 */
#include "handler.h"

#include <stdlib.h>
#include <string.h>

#include "db_tail.h"
#include "estimate.h"
#include "handler_internal.h"
#include "host_quota.h"
#include "log.h"

#define REFUND_BATCHES 8

struct report_ctx {
    struct request_state *rs;
    int project_quota;             /* daily_result_quota */
    int validating;                /* a validator judges successes */
    struct db_report_update *updates;
    int nupdates;
    int hav_dirty[DB_MAX_HAV];
    /* replicas aborted before they ran, per batch: their backup budget
     * comes back (note_refund) */
    int refund_batch[REFUND_BATCHES];
    double refund_fpops[REFUND_BATCHES];
    int nrefunds;
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

/* A reported result moves the host's standing (host_quota.h): a task the
 * client reports as failed (not aborted) counts as bad; a success counts
 * as valid only without a validator (else the validator judges it). */
static void judge_report(struct report_ctx *x, const struct db_reported_row *row, int bad)
{
    struct db_host_standing *s = &x->rs->host.standing;
    int old = hq_per_cpu(s->max_results_day, x->project_quota);

    s->max_results_day = bad ? hq_after_bad(s->max_results_day, x->project_quota)
                             : hq_after_valid(s->max_results_day, x->project_quota);
    s->consecutive_valid = bad ? 0 : s->consecutive_valid + 1;
    s->error_rate = hq_error_rate(s->error_rate, bad);
    if (bad)
        log_info("[host#%d] [result#%d] reported as failed: daily quota %d -> %d per CPU",
                 x->rs->hostid, row->id, old, hq_per_cpu(s->max_results_day,
                                                         x->project_quota));
}

/*
 * A replica that the client dropped at the project's abort before it ran
 * cost nothing: its job's quorum was reached without it (by a backup, or
 * its backup lost the race before starting).  The batch's backup budget
 * (tail_pick.h) counts what backups cost, so the job's flops go back to
 * it: a backup of a result still waiting in a queue then costs only when
 * both run.
 */
static void note_refund(struct report_ctx *x, const struct db_reported_row *row)
{
    int i;
    if (row->batch <= 0 || !(row->rsc_fpops_est > 0))
        return;
    for (i = 0; i < x->nrefunds && x->refund_batch[i] != row->batch; i++)
        ;
    if (i == REFUND_BATCHES)
        return;                    /* a rare request: the rest keep their charge */
    if (i == x->nrefunds) {
        x->refund_batch[i] = row->batch;
        x->refund_fpops[i] = 0;
        x->nrefunds++;
    }
    x->refund_fpops[i] += row->rsc_fpops_est;
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
    if (!success && rr->state != CRS_ABORTED)
        judge_report(x, row, 1);
    else if (success && !x->validating)
        judge_report(x, row, 0);
    if (rr->state == CRS_ABORTED && rr->exit_status == EXIT_ABORTED_BY_PROJECT &&
        !(rr->final_elapsed_time > 0))
        note_refund(x, row);
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

int handler_handle_reports(struct sched_ctx *ctx, struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct report_ctx x;
    struct db_hav_row added[DB_MAX_HAV];
    int i, nadded = 0, r;

    if (req->nresults == 0)
        return DB_OK;
    memset(&x, 0, sizeof x);
    x.rs = rs;
    x.project_quota = ctx->cfg.daily_result_quota;
    x.validating = config_validating(&ctx->cfg);
    x.updates = calloc((size_t)req->nresults, sizeof *x.updates);
    if (!x.updates)
        return DB_ERR;
    /* the look-up read the reported results (db_sched_auth) */
    for (i = 0; i < rs->nreported_rows; i++)
        report_row(&x, &rs->reported[i]);
    r = db_report_update(ctx->db, rs->hostid, (int)rs->now, x.updates, x.nupdates);
    if (r == DB_OK) {
        /* changed corrections that exist go out with the host update;
         * new ones (a first report of an app version) are inserted */
        for (i = 0; i < rs->nhavs; i++) {
            if (!x.hav_dirty[i])
                continue;
            if (i < rs->nhavs_db)
                rs->havs_changed[rs->nhavs_changed++] = rs->havs[i];
            else
                added[nadded++] = rs->havs[i];
        }
        r = db_hav_upsert(ctx->db, rs->hostid, added, nadded);
    }
    for (i = 0; i < x.nrefunds && r == DB_OK && ctx->cfg.tail_budget > 0; i++) {
        int ok;
        r = db_tail_budget(ctx->db, x.refund_batch[i], -x.refund_fpops[i], 0, &ok);
        if (r == DB_OK)
            log_debug("[host#%d] [batch#%d] %.3g flops of replicas aborted before they ran "
                      "go back to the backup budget", rs->hostid, x.refund_batch[i],
                      x.refund_fpops[i]);
    }
    rs->nreported = x.nupdates;
    free(x.updates);
    return r;
}

double handler_av_correction(struct request_state *rs, int app_version_id)
{
    struct db_hav_row *h = hav_get(rs, app_version_id, 0);
    return h && h->et_n > 0 ? h->correction : 1.0;
}
