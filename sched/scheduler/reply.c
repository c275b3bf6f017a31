/*
 * reply.c - the <scheduler_reply> writer.
 *
 * What the BOINC client 7.20 needs to run a job, in the order it links
 * them: the code-signing key (once), the app, the app version's files
 * (signed) and the app version, the input files, the workunit, the output
 * file (with an upload URL, max_nbytes and our upload signature) and the
 * result (naming platform, version and plan class, or the client picks
 * the wrong version).  Each app, app version and input file is written
 * once per reply however many jobs use it.
 */
#include "reply.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

#define IND "    "

static int rsc_index_of(const struct request_state *rs, const char *name)
{
    int i;
    for (i = 0; i < rs->nrscs; i++)
        if (strcmp(rs->rscs[i].name, name) == 0)
            return i;
    return -1;
}

static void put_double(struct buf *b, const char *indent, const char *tag, double v)
{
    buf_printf(b, "%s<%s>%.15g</%s>\n", indent, tag, v, tag);
}

static void put_int(struct buf *b, const char *indent, const char *tag, long long v)
{
    buf_printf(b, "%s<%s>%lld</%s>\n", indent, tag, v, tag);
}

static void reply_head(struct buf *b, const struct sched_ctx *ctx)
{
    buf_puts(b, "<scheduler_reply>\n");
    buf_elem(b, "", "project_name", ctx->cfg.project_name);
    if (ctx->cfg.master_url[0])
        buf_elem(b, "", "master_url", ctx->cfg.master_url);
}

static void put_message(struct buf *b, const char *priority, const char *text)
{
    buf_printf(b, "<message priority=\"%s\">", priority);
    buf_put_xml(b, text);
    buf_puts(b, "</message>\n");
}

void reply_write_error(struct buf *b, const struct sched_ctx *ctx, const char *message,
                       int request_delay)
{
    buf_reset(b);
    reply_head(b, ctx);
    put_message(b, "notice", message);
    put_int(b, "", "request_delay", request_delay);
    buf_puts(b, "</scheduler_reply>\n");
}

/* Small sets of ids already written in this reply. */
struct idset {
    int ids[512];
    int n;
};

static int idset_add(struct idset *s, int id)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->ids[i] == id)
            return 0;
    if (s->n < (int)(sizeof s->ids / sizeof s->ids[0]))
        s->ids[s->n++] = id;
    return 1;
}

static void write_app_version(struct buf *b, const struct request_state *rs,
                              const struct sent_job *job)
{
    const struct app_version *av = job->av;
    const struct rsc_state *rsc = &rs->rscs[job->rsc];
    int i;

    for (i = 0; i < av->nfiles; i++) {
        const struct db_app_version_file_row *f = &av->files[i];
        buf_puts(b, "<file_info>\n");
        buf_elem(b, IND, "name", f->file_name);
        buf_elem(b, IND, "url", f->url);
        buf_puts(b, IND "<executable/>\n");
        if (f->file_signature[0]) {
            buf_puts(b, IND "<file_signature>\n");
            buf_put_xml(b, f->file_signature);
            if (f->file_signature[strlen(f->file_signature) - 1] != '\n')
                buf_puts(b, "\n");
            buf_puts(b, IND "</file_signature>\n");
        }
        buf_elem(b, IND, "md5_cksum", f->md5_cksum);
        put_double(b, IND, "nbytes", f->nbytes);
        buf_puts(b, "</file_info>\n");
    }
    buf_puts(b, "<app_version>\n");
    buf_elem(b, IND, "app_name", av->row.app_name);
    put_int(b, IND, "version_num", av->row.version_num);
    buf_elem(b, IND, "platform", av->row.platform);
    if (av->row.plan_class[0])
        buf_elem(b, IND, "plan_class", av->row.plan_class);
    put_double(b, IND, "avg_ncpus", av->row.avg_ncpus);
    put_double(b, IND, "flops", job->flops);
    if (av->row.api_version[0])
        buf_elem(b, IND, "api_version", av->row.api_version);
    if (av->row.cmdline[0])
        buf_elem(b, IND, "cmdline", av->row.cmdline);
    if (av->row.coproc_type[0]) {
        buf_puts(b, IND "<coproc>\n");
        buf_elem(b, IND IND, "type", av->row.coproc_type);
        put_double(b, IND IND, "count", av->row.coproc_count);
        buf_puts(b, IND "</coproc>\n");
    }
    for (i = 0; i < av->nfiles; i++) {
        const struct db_app_version_file_row *f = &av->files[i];
        buf_puts(b, IND "<file_ref>\n");
        buf_elem(b, IND IND, "file_name", f->file_name);
        if (f->open_name[0])
            buf_elem(b, IND IND, "open_name", f->open_name);
        if (f->main_program)
            buf_puts(b, IND IND "<main_program/>\n");
        if (f->copy_file)
            buf_puts(b, IND IND "<copy_file/>\n");
        buf_puts(b, IND "</file_ref>\n");
    }
    buf_puts(b, "</app_version>\n");
    (void)rsc;
}

static void write_input_file(struct buf *b, const struct sched_ctx *ctx,
                             const struct cached_file *f)
{
    buf_puts(b, "<file_info>\n");
    buf_elem(b, IND, "name", f->name);
    buf_puts(b, IND "<url>");
    if (f->url[0]) {
        buf_put_xml(b, f->url);
    } else {
        buf_put_xml(b, ctx->cfg.download_url);
        buf_puts(b, "/");
        buf_put_xml(b, f->name);
    }
    buf_puts(b, "</url>\n");
    if (f->md5_cksum[0])
        buf_elem(b, IND, "md5_cksum", f->md5_cksum);
    if (f->nbytes > 0)
        put_double(b, IND, "nbytes", f->nbytes);
    if (f->sticky)
        buf_puts(b, IND "<sticky/>\n");
    buf_puts(b, "</file_info>\n");
}

static void write_job(struct buf *b, struct sched_ctx *ctx, const struct request_state *rs,
                      const struct sent_job *job, struct idset *files)
{
    const struct db_candidate *c = &job->cand;
    const struct batch_files *bf = NULL;
    char out_name[DB_NAME_MAX + 8], sig[UA_SIG_HEX + 1];
    long long max_nbytes = (long long)c->max_out_nbytes;
    int k;

    if (c->nfiles > 0)
        bf = app_cache_batch(&ctx->apps, ctx->db, c->batch, rs->now);
    for (k = 0; k < c->nfiles; k++) {
        const struct cached_file *f = batch_file(bf, c->first_file_num + k);
        if (f && idset_add(files, f->id))
            write_input_file(b, ctx, f);
    }
    buf_puts(b, "<workunit>\n");
    buf_elem(b, IND, "name", c->wu_name);
    buf_elem(b, IND, "app_name", job->av->row.app_name);
    put_int(b, IND, "version_num", job->av->row.version_num);
    buf_elem(b, IND, "command_line", c->command_line);
    put_double(b, IND, "rsc_fpops_est", c->rsc_fpops_est);
    put_double(b, IND, "rsc_fpops_bound", c->rsc_fpops_bound);
    put_double(b, IND, "rsc_memory_bound", c->rsc_memory_bound);
    put_double(b, IND, "rsc_disk_bound", c->rsc_disk_bound);
    for (k = 0; k < c->nfiles; k++) {
        const struct cached_file *f = batch_file(bf, c->first_file_num + k);
        char open_name[32];
        if (!f) {
            log_error("[result#%d] input file %d of [batch#%d] missing from the file table",
                      c->result_id, c->first_file_num + k, c->batch);
            continue;
        }
        snprintf(open_name, sizeof open_name, "in_%d", k);
        buf_puts(b, IND "<file_ref>\n");
        buf_elem(b, IND IND, "file_name", f->name);
        buf_elem(b, IND IND, "open_name", open_name);
        buf_puts(b, IND "</file_ref>\n");
    }
    buf_puts(b, "</workunit>\n");

    snprintf(out_name, sizeof out_name, "%s_0", c->result_name);
    if (ua_sign(&ctx->upload_key, out_name, max_nbytes, sig) != UA_OK) {
        log_error("[result#%d] cannot sign output file name", c->result_id);
        sig[0] = '\0';
    }
    buf_puts(b, "<file_info>\n");
    buf_elem(b, IND, "name", out_name);
    buf_elem(b, IND, "url", ctx->cfg.upload_url);
    put_int(b, IND, "max_nbytes", max_nbytes);
    buf_elem(b, IND, "xml_signature", sig);
    buf_puts(b, "</file_info>\n");

    buf_puts(b, "<result>\n");
    buf_elem(b, IND, "name", c->result_name);
    buf_elem(b, IND, "wu_name", c->wu_name);
    put_int(b, IND, "report_deadline", job->report_deadline);
    buf_elem(b, IND, "platform", job->av->row.platform);
    put_int(b, IND, "version_num", job->av->row.version_num);
    buf_elem(b, IND, "plan_class", job->av->row.plan_class);
    buf_puts(b, IND "<file_ref>\n");
    buf_elem(b, IND IND, "file_name", out_name);
    buf_elem(b, IND IND, "open_name", "out");
    buf_puts(b, IND "</file_ref>\n");
    if (ctx->cfg.report_immediately)
        buf_puts(b, IND "<report_immediately/>\n");
    buf_puts(b, "</result>\n");
}

/* Resource types the project has no app version for, for this host. */
static void write_no_rsc_apps(struct buf *b, const struct sched_ctx *ctx,
                              const struct request_state *rs)
{
    static const char *const gpu_types[] = { "NVIDIA", "ATI", "intel_gpu" };
    const char *missing[HANDLER_MAX_RSC + 3];
    int nmissing = 0, host_missing = 0, i, j;

    for (i = 0; i < rs->nrscs; i++) {
        const struct rsc_state *r = &rs->rscs[i];
        int have = 0;
        for (j = 0; j < ctx->apps.navs && !have; j++) {
            const struct app_version *av = &ctx->apps.avs[j];
            if (strcmp(av->row.coproc_type, r->is_cpu ? "" : r->name) == 0) {
                int k, ok = strcmp(av->row.platform, rs->req.platform_name) == 0;
                for (k = 0; k < rs->req.n_alt_platforms && !ok; k++)
                    ok = strcmp(av->row.platform, rs->req.alt_platforms[k]) == 0;
                have = ok;
            }
        }
        if (!have) {
            missing[nmissing++] = r->name;
            host_missing++;
        }
    }
    /* the client cancels the flag when it is set for every resource */
    if (host_missing == rs->nrscs)
        return;
    for (i = 0; i < 3; i++) {
        int have = rsc_index_of(rs, gpu_types[i]) >= 0;
        for (j = 0; j < ctx->apps.navs && !have; j++)
            have = strcmp(ctx->apps.avs[j].row.coproc_type, gpu_types[i]) == 0;
        if (!have)
            missing[nmissing++] = gpu_types[i];
    }
    for (i = 0; i < nmissing; i++)
        buf_elem(b, "", "no_rsc_apps", missing[i]);
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
    case NW_NONE: break;
    }
    return "";
}

void reply_write(struct buf *b, struct sched_ctx *ctx, const struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct idset apps = { .n = 0 }, avs = { .n = 0 }, files = { .n = 0 };
    int i, delay = ctx->cfg.min_request_delay;

    buf_reset(b);
    reply_head(b, ctx);
    if (rs->send_hostid)
        put_int(b, "", "hostid", rs->hostid);
    if (rs->note[0])
        put_message(b, "notice", rs->note);
    if (!req->have_ip_results)
        buf_puts(b, "<send_full_workload/>\n");
    if (!req->have_code_sign_key && ctx->code_sign_key[0]) {
        buf_puts(b, "<code_sign_key>\n");
        buf_put_xml(b, ctx->code_sign_key);
        buf_puts(b, "</code_sign_key>\n");
    }
    write_no_rsc_apps(b, ctx, rs);

    for (i = 0; i < req->nresults; i++) {
        buf_puts(b, "<result_ack>\n");
        buf_elem(b, IND, "name", req->results[i].name);
        buf_puts(b, "</result_ack>\n");
    }

    for (i = 0; i < rs->njobs; i++) {
        const struct sent_job *job = &rs->jobs[i];
        if (idset_add(&apps, job->av->row.appid)) {
            buf_puts(b, "<app>\n");
            buf_elem(b, IND, "name", job->av->row.app_name);
            if (job->av->row.app_user_friendly_name[0])
                buf_elem(b, IND, "user_friendly_name", job->av->row.app_user_friendly_name);
            buf_puts(b, "</app>\n");
        }
        if (idset_add(&avs, job->av->row.id))
            write_app_version(b, rs, job);
        write_job(b, ctx, rs, job, &files);
    }

    for (i = 0; i < rs->ndelete_files; i++)
        buf_elem(b, "", "delete_file_info", rs->delete_files[i]);

    if (rs->wants_work || req->dont_send_work) {
        for (i = 0; i < rs->nrscs; i++) {
            const struct rsc_state *r = &rs->rscs[i];
            char msg[512];
            if (r->req_secs <= 0 && r->req_instances <= 0)
                continue;
            if (r->njobs > 0 || r->reason == NW_NONE)
                continue;
            buf_puts(b, "<rsc_no_work>\n");
            buf_elem(b, IND, "rsc", r->name);
            buf_elem(b, IND, "reason", no_work_reason_name(r->reason));
            buf_puts(b, "</rsc_no_work>\n");
            snprintf(msg, sizeof msg, "No %s tasks sent: %s.", r->name, reason_text(r->reason));
            put_message(b, "low", msg);
            if (delay < ctx->cfg.no_work_request_delay && r->reason != NW_NOT_SUPPORTED)
                delay = ctx->cfg.no_work_request_delay;
        }
    }
    if (rs->njobs > 0)
        delay = ctx->cfg.min_request_delay;
    if (delay > 0)
        put_int(b, "", "request_delay", delay);
    buf_puts(b, "</scheduler_reply>\n");
}
