/*
 * reply_write.c - the <scheduler_reply> writer (see sched_reply.h).
 *
 * Apps, app versions and input files are numbered in the order the jobs
 * first use them (reply_build.c does so), so "the first time" is simply
 * "the next number not yet written".
 */
#include "sched_reply.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define IND "    "

/* indent<tag>v</tag>\n, v in decimal as "%lld" writes it, through
 * buf_elem (the reply's numbers are written without printf: it was a
 * fifth of the scheduler's instructions). */
static void put_int(struct buf *b, const char *indent, const char *tag, long long v)
{
    char d[24];
    int i = (int)sizeof d - 1;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    d[i] = '\0';
    do {
        d[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        d[--i] = '-';
    buf_elem(b, indent, tag, d + i);
}

/* "%.15g": an integral value below 1e15 in magnitude is written as its
 * digits, exactly as %.15g would (no exponent below 10^precision); any
 * other value, -0 included, through printf. */
static void put_double(struct buf *b, const char *indent, const char *tag, double v)
{
    if (v > -1e15 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
        put_int(b, indent, tag, (long long)v);
        return;
    }
    buf_printf(b, "%s<%s>%.15g</%s>\n", indent, tag, v, tag);
}

static void put_message(struct buf *b, const char *priority, const char *text)
{
    buf_printf(b, "<message priority=\"%s\">", priority);
    buf_put_xml(b, text);
    buf_puts(b, "</message>\n");
}

static void write_app(struct buf *b, const struct reply_app *app)
{
    buf_puts(b, "<app>\n");
    buf_elem(b, IND, "name", app->name);
    if (app->user_friendly_name[0])
        buf_elem(b, IND, "user_friendly_name", app->user_friendly_name);
    buf_puts(b, "</app>\n");
}

static void write_app_version(struct buf *b, const struct reply_app_version *av)
{
    int i;

    for (i = 0; i < av->nfiles; i++) {
        const struct reply_av_file *f = &av->files[i];
        buf_puts(b, "<file_info>\n");
        buf_elem(b, IND, "name", f->name);
        buf_elem(b, IND, "url", f->url);
        buf_puts(b, IND "<executable/>\n");
        if (f->signature[0]) {
            buf_puts(b, IND "<file_signature>\n");
            buf_put_xml(b, f->signature);
            if (f->signature[strlen(f->signature) - 1] != '\n')
                buf_puts(b, "\n");
            buf_puts(b, IND "</file_signature>\n");
        }
        buf_elem(b, IND, "md5_cksum", f->md5_cksum);
        put_double(b, IND, "nbytes", f->nbytes);
        buf_puts(b, "</file_info>\n");
    }
    buf_puts(b, "<app_version>\n");
    buf_elem(b, IND, "app_name", av->app_name);
    put_int(b, IND, "version_num", av->version_num);
    buf_elem(b, IND, "platform", av->platform);
    if (av->plan_class[0])
        buf_elem(b, IND, "plan_class", av->plan_class);
    put_double(b, IND, "avg_ncpus", av->avg_ncpus);
    put_double(b, IND, "flops", av->flops);
    if (av->api_version[0])
        buf_elem(b, IND, "api_version", av->api_version);
    if (av->cmdline[0])
        buf_elem(b, IND, "cmdline", av->cmdline);
    if (av->coproc_type[0]) {
        buf_puts(b, IND "<coproc>\n");
        buf_elem(b, IND IND, "type", av->coproc_type);
        put_double(b, IND IND, "count", av->coproc_count);
        buf_puts(b, IND "</coproc>\n");
    }
    for (i = 0; i < av->nfiles; i++) {
        const struct reply_av_file *f = &av->files[i];
        buf_puts(b, IND "<file_ref>\n");
        buf_elem(b, IND IND, "file_name", f->name);
        if (f->open_name[0])
            buf_elem(b, IND IND, "open_name", f->open_name);
        if (f->main_program)
            buf_puts(b, IND IND "<main_program/>\n");
        if (f->copy_file)
            buf_puts(b, IND IND "<copy_file/>\n");
        buf_puts(b, IND "</file_ref>\n");
    }
    buf_puts(b, "</app_version>\n");
}

static void write_input_file(struct buf *b, const struct reply_file *f)
{
    buf_puts(b, "<file_info>\n");
    buf_elem(b, IND, "name", f->name);
    buf_puts(b, IND "<url>");
    if (f->url[0]) {
        buf_put_xml(b, f->url);
    } else {
        buf_put_xml(b, f->download_url);
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

/* The next app, app version and input file not yet written. */
struct written {
    int apps, app_versions, files;
};

static void write_job(struct buf *b, const struct sched_reply *r, const struct reply_job *job,
                      struct written *w)
{
    const struct reply_app_version *av = &r->app_versions[job->app_version];
    int k;

    if (job->app >= w->apps) {
        write_app(b, &r->apps[job->app]);
        w->apps = job->app + 1;
    }
    if (job->app_version >= w->app_versions) {
        write_app_version(b, av);
        w->app_versions = job->app_version + 1;
    }
    for (k = 0; k < job->ninputs; k++) {
        int f = job->inputs[k].file;
        if (f >= w->files) {
            write_input_file(b, &r->files[f]);
            w->files = f + 1;
        }
    }
    buf_puts(b, "<workunit>\n");
    buf_elem(b, IND, "name", job->wu_name);
    buf_elem(b, IND, "app_name", av->app_name);
    put_int(b, IND, "version_num", av->version_num);
    buf_elem(b, IND, "command_line", job->command_line);
    put_double(b, IND, "rsc_fpops_est", job->rsc_fpops_est);
    put_double(b, IND, "rsc_fpops_bound", job->rsc_fpops_bound);
    put_double(b, IND, "rsc_memory_bound", job->rsc_memory_bound);
    put_double(b, IND, "rsc_disk_bound", job->rsc_disk_bound);
    for (k = 0; k < job->ninputs; k++) {
        char open_name[32];
        snprintf(open_name, sizeof open_name, "in_%d", job->inputs[k].open_index);
        buf_puts(b, IND "<file_ref>\n");
        buf_elem(b, IND IND, "file_name", r->files[job->inputs[k].file].name);
        buf_elem(b, IND IND, "open_name", open_name);
        buf_puts(b, IND "</file_ref>\n");
    }
    buf_puts(b, "</workunit>\n");

    buf_puts(b, "<file_info>\n");
    buf_elem(b, IND, "name", job->out_name);
    buf_elem(b, IND, "url", job->upload_url);
    put_int(b, IND, "max_nbytes", job->max_nbytes);
    buf_elem(b, IND, "xml_signature", job->xml_signature);
    buf_puts(b, "</file_info>\n");

    buf_puts(b, "<result>\n");
    buf_elem(b, IND, "name", job->result_name);
    buf_elem(b, IND, "wu_name", job->wu_name);
    put_int(b, IND, "report_deadline", job->report_deadline);
    buf_elem(b, IND, "platform", av->platform);
    put_int(b, IND, "version_num", av->version_num);
    buf_elem(b, IND, "plan_class", av->plan_class);
    buf_puts(b, IND "<file_ref>\n");
    buf_elem(b, IND IND, "file_name", job->out_name);
    buf_elem(b, IND IND, "open_name", "out");
    buf_puts(b, IND "</file_ref>\n");
    if (job->report_immediately)
        buf_puts(b, IND "<report_immediately/>\n");
    buf_puts(b, "</result>\n");
}

void sched_reply_write(struct buf *b, const struct sched_reply *r)
{
    struct written w = { 0, 0, 0 };
    int i;

    buf_reset(b);
    buf_puts(b, "<scheduler_reply>\n");
    buf_elem(b, "", "project_name", r->project_name);
    if (r->master_url && r->master_url[0])
        buf_elem(b, "", "master_url", r->master_url);
    if (r->project_is_down)
        buf_puts(b, "<project_is_down/>\n");
    if (r->hostid > 0)
        put_int(b, "", "hostid", r->hostid);
    if (r->account.user_name) {
        const struct reply_account *a = &r->account;
        buf_elem(b, "", "user_name", a->user_name);
        put_double(b, "", "user_total_credit", a->user_total_credit);
        put_double(b, "", "user_expavg_credit", a->user_expavg_credit);
        put_int(b, "", "user_create_time", a->user_create_time);
        put_double(b, "", "host_total_credit", a->host_total_credit);
        put_double(b, "", "host_expavg_credit", a->host_expavg_credit);
    }
    for (i = 0; i < r->nmessages; i++)
        put_message(b, r->messages[i].priority, r->messages[i].text);
    if (r->send_full_workload)
        buf_puts(b, "<send_full_workload/>\n");
    if (r->code_sign_key && r->code_sign_key[0]) {
        buf_puts(b, "<code_sign_key>\n");
        buf_put_xml(b, r->code_sign_key);
        buf_puts(b, "</code_sign_key>\n");
    }
    for (i = 0; i < r->nno_rsc_apps; i++)
        buf_elem(b, "", "no_rsc_apps", r->no_rsc_apps[i]);

    for (i = 0; i < r->nacks; i++) {
        buf_puts(b, "<result_ack>\n");
        buf_elem(b, IND, "name", r->acks[i]);
        buf_puts(b, "</result_ack>\n");
    }
    for (i = 0; i < r->njobs; i++)
        write_job(b, r, &r->jobs[i], &w);

    for (i = 0; i < r->ndelete_files; i++)
        buf_elem(b, "", "delete_file_info", r->delete_files[i]);
    for (i = 0; i < r->naborts; i++) {
        const char *tag = r->aborts[i].kind == REPLY_ABORT_IF_NOT_STARTED
                              ? "result_abort_if_not_started" : "result_abort";
        buf_printf(b, "<%s>\n", tag);
        buf_elem(b, IND, "name", r->aborts[i].name);
        buf_printf(b, "</%s>\n", tag);
    }
    for (i = 0; i < r->nno_work; i++) {
        const struct reply_no_work *nw = &r->no_work[i];
        buf_puts(b, "<rsc_no_work>\n");
        buf_elem(b, IND, "rsc", nw->rsc);
        buf_elem(b, IND, "reason", nw->reason);
        buf_puts(b, "</rsc_no_work>\n");
        put_message(b, "low", nw->message);
    }
    if (r->request_delay >= 0)
        put_int(b, "", "request_delay", r->request_delay);
    if (r->next_rpc_delay > 0)
        put_int(b, "", "next_rpc_delay", r->next_rpc_delay);
    buf_puts(b, "</scheduler_reply>\n");
}
