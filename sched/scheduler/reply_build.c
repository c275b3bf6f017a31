/*
 * reply_build.c - the description of the reply to a handled request (see
 * reply_build.h): what the transaction decided, the app versions and
 * batch files from the app cache, the output files signed for upload.
 */
#include "reply_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credit.h"
#include "db_gpu.h"
#include "host_quota.h"
#include "log.h"

static int rsc_index_of(const struct request_state *rs, const char *name)
{
    int i;
    for (i = 0; i < rs->nrscs; i++)
        if (strcmp(rs->rscs[i].name, name) == 0)
            return i;
    return -1;
}

/* Resource types the project has no app version for, for this host. */
static void add_no_rsc_apps(struct sched_reply *r, const struct sched_ctx *ctx,
                            const struct request_state *rs)
{
    int host_missing = 0, i, j;

    r->nno_rsc_apps = 0;
    for (i = 0; i < rs->nrscs; i++) {
        const struct rsc_state *rsc = &rs->rscs[i];
        int have = 0;
        for (j = 0; j < ctx->apps.navs && !have; j++) {
            const struct app_version *av = &ctx->apps.avs[j];
            if (strcmp(av->row.coproc_type, rsc->is_cpu ? "" : rsc->name) == 0) {
                int k, ok = strcmp(av->row.platform, rs->req.platform_name) == 0;
                for (k = 0; k < rs->req.n_alt_platforms && !ok; k++)
                    ok = strcmp(av->row.platform, rs->req.alt_platforms[k]) == 0;
                have = ok;
            }
        }
        if (!have) {
            r->no_rsc_apps[r->nno_rsc_apps++] = rsc->name;
            host_missing++;
        }
    }
    /* the client cancels the flag when it is set for every resource */
    if (host_missing == rs->nrscs) {
        r->nno_rsc_apps = 0;
        return;
    }
    for (i = 0; i < DB_NGPU_TYPES; i++) {
        int have = rsc_index_of(rs, db_gpu_names[i]) >= 0 || ctx->apps.gpu_versions[i];
        if (!have)
            r->no_rsc_apps[r->nno_rsc_apps++] = db_gpu_names[i];
    }
}

static const char *reason_text(enum no_work_reason r)
{
    switch (r) {
    case NW_NO_WORK: return "no tasks are available right now";
    case NW_DEADLINE:
        return "the tasks available would not finish before their deadlines on this "
               "computer, given the work it already has";
    case NW_NOT_SUPPORTED: return "this project has no application for it on this platform";
    case NW_DONT_SEND: return "\"no new tasks\" is set for this project";
    case NW_NO_HOST_INFO: return "the request lacks the computer's description";
    case NW_FINISH_LINE:
        return "the last tasks of a batch go to computers that will return them sooner, so "
               "that the batch finishes quickly";
    case NW_DAILY_QUOTA:
        return "this computer reached its daily quota of tasks (lower after tasks that "
               "failed or were wrong); it gets more tomorrow";
    case NW_YOUNG_BATCH:
        return "a new batch goes first to idle processors, one task each; more follows in a "
               "few minutes";
    case NW_NONE: break;
    }
    return "";
}

/* The volunteer's name and credit, the host's credit: averages decayed to
 * now, as the transitioner would write them. */
static void add_account(struct sched_reply *r, const struct sched_ctx *ctx,
                        const struct request_state *rs)
{
    struct reply_account *a = &r->account;
    double now = (double)rs->now, hl = ctx->cfg.credit_half_life;

    a->user_name = rs->user.name;
    a->user_total_credit = rs->user.total_credit;
    a->user_expavg_credit = credit_decay(rs->user.expavg_credit, rs->user.expavg_time, now, hl);
    a->user_create_time = rs->user.create_time;
    a->host_total_credit = rs->host.total_credit;
    a->host_expavg_credit = credit_decay(rs->host.expavg_credit, rs->host.expavg_time, now, hl);
}

/* The no-work signals, the request_delay and the next_rpc_delay. */
static void add_no_work(struct sched_reply *r, struct reply_store *st,
                        const struct sched_ctx *ctx, const struct request_state *rs)
{
    int i, delay = ctx->cfg.min_request_delay;

    r->nno_work = 0;
    if (rs->wants_work || rs->req.dont_send_work) {
        for (i = 0; i < rs->nrscs && r->nno_work < REPLY_MAX_RSC; i++) {
            const struct rsc_state *rsc = &rs->rscs[i];
            struct reply_no_work *nw;
            if (rsc->req_secs <= 0 && rsc->req_instances <= 0)
                continue;
            if (rsc->njobs > 0 || rsc->reason == NW_NONE)
                continue;
            nw = &r->no_work[r->nno_work];
            nw->rsc = rsc->name;
            nw->reason = no_work_reason_name(rsc->reason);
            snprintf(st->no_work_messages[r->nno_work], sizeof st->no_work_messages[0],
                     "No %s tasks sent: %s.", rsc->name, reason_text(rsc->reason));
            nw->message = st->no_work_messages[r->nno_work];
            r->nno_work++;
            if (delay < ctx->cfg.no_work_request_delay && rsc->reason != NW_NOT_SUPPORTED)
                delay = ctx->cfg.no_work_request_delay;
        }
    }
    if (rs->njobs > 0)
        delay = ctx->cfg.min_request_delay;
    else if (rs->quota_reached && delay < hq_delay_to_tomorrow(rs->now, rs->hostid))
        delay = hq_delay_to_tomorrow(rs->now, rs->hostid);   /* BOINC: the next day */
    r->request_delay = delay > 0 ? delay : -1;
    /* a host holding our results calls back regularly: its rhythm (and
     * its silence when it is gone) is then seen within hours */
    if (ctx->cfg.next_rpc_delay > 0 && (rs->njobs > 0 || rs->req.nother_results > 0))
        r->next_rpc_delay = ctx->cfg.next_rpc_delay;
}

/* Index of the app of a job, added at first use (appids: theirs). */
static int app_index(struct sched_reply *r, struct reply_store *st, int *appids,
                     const struct app_version *av)
{
    int i;
    for (i = 0; i < r->napps; i++)
        if (appids[i] == av->row.appid)
            return i;
    appids[i] = av->row.appid;
    st->apps[i].name = av->row.app_name;
    st->apps[i].user_friendly_name = av->row.app_user_friendly_name;
    r->napps++;
    return i;
}

/* Index of the app version of a job, added at first use (avids: theirs). */
static int av_index(struct sched_reply *r, struct reply_store *st, int *avids,
                    const struct sent_job *job, int *nav_files)
{
    const struct app_version *av = job->av;
    struct reply_app_version *out;
    int i, k;

    for (i = 0; i < r->napp_versions; i++)
        if (avids[i] == av->row.id)
            return i;
    avids[i] = av->row.id;
    out = &st->avs[i];
    out->app_name = av->row.app_name;
    out->version_num = av->row.version_num;
    out->platform = av->row.platform;
    out->plan_class = av->row.plan_class;
    out->avg_ncpus = av->row.avg_ncpus;
    out->flops = job->flops;   /* of the first job that uses it */
    out->api_version = av->row.api_version;
    out->cmdline = av->row.cmdline;
    out->coproc_type = av->row.coproc_type;
    out->coproc_count = av->row.coproc_count;
    out->files = st->av_files + *nav_files;
    out->nfiles = av->nfiles;
    for (k = 0; k < av->nfiles; k++) {
        const struct db_app_version_file_row *f = &av->files[k];
        struct reply_av_file *o = &st->av_files[(*nav_files)++];
        o->name = f->file_name;
        o->url = f->url;
        o->signature = f->file_signature;
        o->md5_cksum = f->md5_cksum;
        o->nbytes = f->nbytes;
        o->open_name = f->open_name;
        o->main_program = f->main_program;
        o->copy_file = f->copy_file;
    }
    r->napp_versions++;
    return i;
}

/* Index of an input file, added at first use (ids in file_ids). */
static int file_index(struct sched_reply *r, struct reply_store *st, int *file_ids,
                      const struct sched_ctx *ctx, const struct cached_file *f)
{
    struct reply_file *o;
    int i;
    for (i = 0; i < r->nfiles; i++)
        if (file_ids[i] == f->id)
            return i;
    file_ids[i] = f->id;
    o = &st->files[i];
    o->name = f->name;
    o->url = f->url;
    o->download_url = ctx->cfg.download_url;
    o->md5_cksum = f->md5_cksum;
    o->nbytes = f->nbytes;
    o->sticky = f->sticky;
    r->nfiles++;
    return i;
}

/* The jobs, with their apps, app versions and input files. */
static int add_jobs(struct sched_reply *r, struct reply_store *st, struct sched_ctx *ctx,
                    const struct request_state *rs)
{
    int appids[LIM_JOBS_PER_REPLY], avids[LIM_JOBS_PER_REPLY], *file_ids;
    int nav_files = 0, ninputs = 0, nrefs = 0, i, k;

    for (i = 0; i < rs->njobs; i++) {
        ninputs += rs->jobs[i].cand.nfiles;
        nav_files += rs->jobs[i].av->nfiles;
    }
    st->av_files = malloc(sizeof *st->av_files * (size_t)(nav_files ? nav_files : 1));
    st->files = malloc(sizeof *st->files * (size_t)(ninputs ? ninputs : 1));
    st->refs = malloc(sizeof *st->refs * (size_t)(ninputs ? ninputs : 1));
    file_ids = malloc(sizeof *file_ids * (size_t)(ninputs ? ninputs : 1));
    if (!st->av_files || !st->files || !st->refs || !file_ids) {
        free(file_ids);
        return -1;
    }
    nav_files = 0;
    for (i = 0; i < rs->njobs; i++) {
        const struct sent_job *job = &rs->jobs[i];
        const struct db_candidate *c = &job->cand;
        const struct batch_files *bf = NULL;
        struct reply_job *o = &st->jobs[i];

        o->app = app_index(r, st, appids, job->av);
        o->app_version = av_index(r, st, avids, job, &nav_files);

        if (c->nfiles > 0)
            bf = app_cache_batch(&ctx->apps, ctx->db, c->batch, rs->now);
        o->inputs = st->refs + nrefs;
        o->ninputs = 0;
        for (k = 0; k < c->nfiles; k++) {
            const struct cached_file *f = batch_file(bf, c->first_file_num + k);
            if (!f) {
                log_error("[result#%d] input file %d of [batch#%d] missing from the file table",
                          c->result_id, c->first_file_num + k, c->batch);
                continue;
            }
            st->refs[nrefs].file = file_index(r, st, file_ids, ctx, f);
            st->refs[nrefs].open_index = k;
            nrefs++;
            o->ninputs++;
        }

        o->wu_name = c->wu_name;
        o->command_line = c->command_line;
        o->rsc_fpops_est = c->rsc_fpops_est;
        o->rsc_fpops_bound = c->rsc_fpops_bound;
        o->rsc_memory_bound = c->rsc_memory_bound;
        o->rsc_disk_bound = c->rsc_disk_bound;
        o->result_name = c->result_name;
        o->report_deadline = job->report_deadline;
        o->max_nbytes = (long long)c->max_out_nbytes;
        snprintf(st->out_names[i], sizeof st->out_names[i], "%s_0", c->result_name);
        if (ua_sign(&ctx->upload_key, st->out_names[i], o->max_nbytes, st->signatures[i]) !=
            UA_OK) {
            log_error("[result#%d] cannot sign output file name", c->result_id);
            st->signatures[i][0] = '\0';
        }
        o->out_name = st->out_names[i];
        o->upload_url = ctx->cfg.upload_url;
        o->xml_signature = st->signatures[i];
        o->report_immediately = ctx->cfg.report_immediately;
    }
    r->files = st->files;
    r->jobs = st->jobs;
    r->njobs = rs->njobs;
    r->apps = st->apps;
    r->app_versions = st->avs;
    free(file_ids);
    return 0;
}

static void reply_head(struct sched_reply *r, const struct sched_ctx *ctx)
{
    memset(r, 0, sizeof *r);
    r->project_name = ctx->cfg.project_name;
    r->master_url = ctx->cfg.master_url;
    r->request_delay = -1;
}

int reply_build(struct sched_reply *r, struct reply_store *st, struct sched_ctx *ctx,
                const struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    int i;

    /* Only the arrays it owns need a known value: everything else in the
     * store is written before it is read.  (Zeroing all of it, 24 KB,
     * cost as many instructions as the rest of the builder but signing.) */
    st->acks = NULL;
    st->delete_files = NULL;
    st->aborts = NULL;
    st->av_files = NULL;
    st->files = NULL;
    st->refs = NULL;
    reply_head(r, ctx);
    if (rs->send_hostid)
        r->hostid = rs->hostid;
    add_account(r, ctx, rs);
    if (rs->note[0]) {
        r->messages[r->nmessages].priority = "notice";
        r->messages[r->nmessages++].text = rs->note;
    }
    if (rs->quota_reached) {
        r->messages[r->nmessages].priority = "notice";
        r->messages[r->nmessages++].text = rs->quota_note;
    }
    r->send_full_workload = !req->have_ip_results;
    if (!req->have_code_sign_key)
        r->code_sign_key = ctx->code_sign_key;
    add_no_rsc_apps(r, ctx, rs);

    st->acks = malloc(sizeof *st->acks * (size_t)(req->nresults ? req->nresults : 1));
    st->delete_files =
        malloc(sizeof *st->delete_files * (size_t)(rs->ndelete_files ? rs->ndelete_files : 1));
    st->aborts = malloc(sizeof *st->aborts * (size_t)(rs->naborts ? rs->naborts : 1));
    if (!st->acks || !st->delete_files || !st->aborts)
        return -1;
    for (i = 0; i < req->nresults; i++)
        st->acks[i] = req->results[i].name;
    r->acks = st->acks;
    r->nacks = req->nresults;

    if (add_jobs(r, st, ctx, rs) < 0)
        return -1;

    for (i = 0; i < rs->ndelete_files; i++)
        st->delete_files[i] = rs->delete_files[i];
    r->delete_files = st->delete_files;
    r->ndelete_files = rs->ndelete_files;

    /* jobs the client holds that it should drop (lost_jobs.c) */
    for (i = 0; i < rs->naborts; i++) {
        st->aborts[i].name = rs->aborts[i].name;
        st->aborts[i].kind = rs->aborts[i].if_not_started ? REPLY_ABORT_IF_NOT_STARTED
                                                          : REPLY_ABORT;
    }
    r->aborts = st->aborts;
    r->naborts = rs->naborts;

    add_no_work(r, st, ctx, rs);
    return 0;
}

void reply_store_free(struct reply_store *st)
{
    free(st->acks);
    free(st->delete_files);
    free(st->aborts);
    free(st->av_files);
    free(st->files);
    free(st->refs);
    st->acks = st->delete_files = NULL;
    st->aborts = NULL;
    st->av_files = NULL;
    st->files = NULL;
    st->refs = NULL;
}

void reply_write_error(struct buf *out, const struct sched_ctx *ctx, const char *message,
                       int request_delay)
{
    struct sched_reply r;

    reply_head(&r, ctx);
    r.messages[0].priority = "notice";
    r.messages[0].text = message;
    r.nmessages = 1;
    r.request_delay = request_delay;
    sched_reply_write(out, &r);
}

void reply_write_down(struct buf *out, const struct sched_ctx *ctx, int request_delay)
{
    struct sched_reply r;

    reply_head(&r, ctx);
    r.project_is_down = 1;
    r.messages[0].priority = "notice";
    r.messages[0].text = "The project is down for maintenance; your computer will try again "
                         "later.";
    r.nmessages = 1;
    r.request_delay = request_delay;
    sched_reply_write(out, &r);
}

void reply_write(struct buf *out, struct sched_ctx *ctx, const struct request_state *rs)
{
    struct sched_reply r;
    struct reply_store *st = malloc(sizeof *st);

    if (!st || reply_build(&r, st, ctx, rs) < 0) {
        log_error("[host#%d] out of memory while building the reply", rs->hostid);
        reply_write_error(out, ctx, "Server out of memory; please try again later.",
                          ctx->cfg.overload_request_delay);
    } else {
        sched_reply_write(out, &r);
    }
    if (st)
        reply_store_free(st);
    free(st);
}
