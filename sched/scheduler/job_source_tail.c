/*
 * job_source_tail.c - backup replicas for a batch's tail (job_source.h,
 * tail_send): when a request's source had nothing to send, the results
 * in progress of the active batches (the oldest tail_candidates) are
 * weighed by tail_pick() against this host's estimate, and the chosen one
 * gets a backup: a new result of its workunit (replica_flags RF_BACKUP),
 * created and claimed in this transaction with a reduced deadline, within
 * the batch's budget (tail_budget of its flops).  At most one backup per
 * job in progress and one per request; never a second replica for a user.
 * A backup of a result whose host looks gone by its rhythm (not yet
 * flagged by the transitioner, which would replace it anyway) takes no
 * budget: it is no extra work unless the host comes back.  Like any job,
 * a backup goes only to a host that would finish it by its batch's
 * finish line (sched/policy/finish_line.h): the original of a host that
 * looks gone has until its deadline, so without the line any host, the
 * slowest included, would gain on it.
 */
#include <stdio.h>

#include "db_lost.h"
#include "db_tail.h"
#include "estimate.h"
#include "handler.h"
#include "host_rhythm.h"
#include "log.h"
#include "tail_pick.h"

#define TAIL_MAX_CANDS 128

/* What tail_pick() needs of one candidate. */
static void describe(const struct sched_ctx *ctx, const struct db_tail_cand *t, double now,
                     struct tail_cand *c)
{
    struct host_rhythm rh = { t->host_gap_avg, t->host_gap_dev, t->host_gap_n, 0, 0 };
    struct lost_params lp = { ctx->cfg.lost_host_gap_factor, ctx->cfg.lost_host_min_silence,
                              ctx->cfg.lost_host_new_silence };
    c->sent_time = t->sent_time;
    if (t->host_turnaround_n > 0 && t->host_avg_turnaround > 0) {
        c->expected_secs = t->host_avg_turnaround;
    } else {
        double runtime = t->flops_estimate > 0 ? t->wu.rsc_fpops_est / t->flops_estimate : 0;
        c->expected_secs = est_wall(runtime, est_cpu_avail(t->host_on_frac, t->host_active_frac));
    }
    c->host_lost = t->host_lost_time > 0 ||
                   (t->host_rpc_time > 0 &&
                    rhythm_presumed_lost(&rh, &lp, now - (double)t->host_rpc_time));
    c->report_deadline = t->report_deadline;
    c->delay_bound = t->wu.delay_bound;
}

/* tc[i].ample for each of the n candidates (tail_budget_ample); complete:
 * they are all there are. */
static void mark_ample(const struct sched_ctx *ctx, const struct db_tail_cand *t, int n,
                       int complete, struct tail_cand *tc)
{
    int i, j;
    for (i = 0; i < n; i++) {
        int same = 0;
        for (j = 0; j < n; j++)
            same += t[j].wu.batch == t[i].wu.batch;
        tc[i].ample = tail_budget_ample(ctx->cfg.tail_budget * t[i].batch_total_fpops -
                                            t[i].batch_backup_fpops,
                                        t[i].wu.rsc_fpops_est, same, complete);
    }
}

int tail_send(struct sched_ctx *ctx, struct request_state *rs)
{
    static struct db_tail_cand cands[TAIL_MAX_CANDS];
    struct tail_cand tc[TAIL_MAX_CANDS];
    struct job_estimate est[TAIL_MAX_CANDS];
    const struct tail_params p = { ctx->cfg.tail_gain_ratio, ctx->cfg.tail_deadline_factor,
                                   ctx->cfg.tail_min_reports };
    int appids[64], napps, n = 0, i, r, limit = ctx->cfg.tail_candidates;
    double now = (double)rs->now;

    if (!rs->wants_work || !tail_host_reliable(&p, rs->rhythm.turnaround_n))
        return DB_OK;
    napps = handler_runnable_apps(ctx, rs, appids, 64);
    if (limit > TAIL_MAX_CANDS)
        limit = TAIL_MAX_CANDS;
    r = db_tail_candidates(ctx->db, rs->user.id, appids, napps, (int)rs->now, limit, cands, &n);
    if (r != DB_OK || n == 0)
        return r;
    for (i = 0; i < n; i++) {
        describe(ctx, &cands[i], now, &tc[i]);
        tc[i].backup_secs = handler_job_estimate(ctx, rs, &cands[i].wu, &est[i])
                                ? est[i].wall + est[i].delay : 0;
    }
    mark_ample(ctx, cands, n, n < limit, tc);
    for (;;) {
        struct db_tail_new b;
        struct db_candidate job;
        char name[DB_NAME_MAX];
        double deadline;
        int pick = tail_pick(&p, tc, n, now, &deadline), ok = 0, id = 0, k, charged;
        const struct db_tail_cand *t;

        if (pick < 0)
            return DB_OK;
        t = &cands[pick];
        tc[pick].backup_secs = 0;          /* tried: not again */
        if (!handler_job_fits(ctx, rs, &t->wu, &est[pick], (int)deadline))
            continue;
        r = db_tail_lock_wu(ctx->db, t->wu.wu_id);
        if (r == DB_NOTFOUND)
            continue;                      /* another request is at it */
        if (r != DB_OK)
            return r;
        charged = !tc[pick].host_lost;
        ok = 1;
        if (charged) {
            r = db_tail_budget(ctx->db, t->wu.batch, t->wu.rsc_fpops_est, ctx->cfg.tail_budget,
                               &ok);
            if (r != DB_OK)
                return r;
        }
        if (!ok) {                         /* this batch's budget is spent */
            for (k = 0; k < n; k++)
                if (cands[k].wu.batch == t->wu.batch)
                    tc[k].backup_secs = 0;
            log_debug("[host#%d] [batch#%d] backup budget spent", rs->hostid, t->wu.batch);
            continue;
        }
        k = snprintf(name, sizeof name, "%s__%d", t->wu.wu_name, t->nresults);
        if (k < 0 || k >= 255) {           /* the name would not fit its column */
            r = charged ? db_tail_budget(ctx->db, t->wu.batch, -t->wu.rsc_fpops_est, 0, &ok)
                        : DB_OK;
            if (r != DB_OK)
                return r;
            continue;
        }
        b.wuid = t->wu.wu_id;
        b.name = name;
        b.hostid = rs->hostid;
        b.userid = rs->user.id;
        b.app_version_id = est[pick].av->row.id;
        b.report_deadline = (int)deadline;
        b.now = (int)rs->now;
        b.flops_estimate = est[pick].flops;
        r = db_tail_insert(ctx->db, &b, &id);
        if (r != DB_OK && r != DB_DUP)
            return r;
        if (id == 0) {                     /* no longer needed, or the name is taken */
            r = charged ? db_tail_budget(ctx->db, t->wu.batch, -t->wu.rsc_fpops_est, 0, &ok)
                        : DB_OK;
            if (r != DB_OK)
                return r;
            continue;
        }
        job = t->wu;
        job.result_id = id;
        snprintf(job.result_name, sizeof job.result_name, "%s", name);
        if (handler_add_claimed(rs, &job, &est[pick], (int)deadline) < 0)
            return DB_ERR;
        log_info("[host#%d] [wu#%d] backup [result#%d] of [result#%d] (sent %.0f s ago, "
                 "expected %.0f s%s; the backup %.0f s), deadline in %.0f s", rs->hostid,
                 t->wu.wu_id, id, t->wu.result_id, now - t->sent_time, tc[pick].expected_secs,
                 charged ? "" : ", its host looks gone: no budget",
                 est[pick].wall + est[pick].delay, deadline - now);
        return DB_OK;
    }
}
