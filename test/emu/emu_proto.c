/*
 * emu_proto.c - scheduler requests and replies of the emulated client
 * (emu_proto.h).  Replies are read with libxml2's text reader.
 */
#include "emu_proto.h"

#include <libxml/xmlreader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_request.h"

/* ---- requests ---- */

int emu_request_write(struct buf *b, const struct emu_client *c, const struct emu_ask *ask,
                      const struct emu_req_info *ri, const struct emu_names *files, double now)
{
    const struct emu_cproj *p = &c->proj[ask->proj];
    double total_share = 0, work = 0;
    int i, r;

    for (i = 0; i < c->nproj; i++)
        total_share += c->proj[i].share;
    for (r = 0; r < EMU_NRSC; r++)
        if (ask->req_secs[r] > work)
            work = ask->req_secs[r];
    buf_reset(b);
    buf_printf(b,
               "<scheduler_request>\n"
               "<authenticator>%s</authenticator>\n"
               "<hostid>%lld</hostid>\n"
               "<rpc_seqno>%lld</rpc_seqno>\n"
               "<core_client_major_version>7</core_client_major_version>\n"
               "<core_client_minor_version>20</core_client_minor_version>\n"
               "<core_client_release>5</core_client_release>\n"
               "<resource_share_fraction>%.6f</resource_share_fraction>\n"
               "<duration_correction_factor>%.6f</duration_correction_factor>\n"
               "<platform_name>%s</platform_name>\n"
               "<work_req_seconds>%.3f</work_req_seconds>\n"
               "<cpu_req_secs>%.3f</cpu_req_secs>\n"
               "<cpu_req_instances>%.3f</cpu_req_instances>\n"
               "<estimated_delay>%.3f</estimated_delay>\n"
               "<time_stats>\n<on_frac>%.6f</on_frac>\n<connected_frac>1</connected_frac>\n"
               "<active_frac>1</active_frac>\n<gpu_active_frac>1</gpu_active_frac>\n"
               "</time_stats>\n"
               "<host_info>\n<p_ncpus>%d</p_ncpus>\n<p_fpops>%.0f</p_fpops>\n"
               "<p_iops>%.0f</p_iops>\n<m_nbytes>8e9</m_nbytes>\n<d_total>1e12</d_total>\n"
               "<d_free>5e11</d_free>\n<host_cpid>emu%d</host_cpid>\n"
               "<os_name>Linux</os_name>\n</host_info>\n",
               ri->authenticator, p->hostid, p->seqno,
               total_share > 0 ? p->share / total_share : 1, c->par.jc == 2 ? p->dcf : 1.0,
               ri->platform, work, ask->req_secs[0], ask->req_instances[0],
               ask->estimated_delay[0], c->hw.on_frac, c->hw.ncpus, c->hw.cpu_flops,
               c->hw.cpu_flops, ri->host_index);
    if (c->hw.ngpus > 0)
        buf_printf(b,
                   "<coprocs>\n<coproc_cuda>\n<count>%d</count>\n<peak_flops>%.0f</peak_flops>\n"
                   "<req_secs>%.3f</req_secs>\n<req_instances>%.3f</req_instances>\n"
                   "<estimated_delay>%.3f</estimated_delay>\n</coproc_cuda>\n</coprocs>\n",
                   c->hw.ngpus, c->hw.gpu_peak, ask->req_secs[1], ask->req_instances[1],
                   ask->estimated_delay[1]);

    for (i = 0, r = 0; i < c->njobs && r < ask->nreport; i++) {
        const struct emu_job *j = &c->jobs[i];
        if (j->proj != ask->proj || j->finished <= 0)
            continue;
        r++;
        /* an aborted job is reported as the scheduler reads one */
        buf_printf(b,
                   "<result>\n<name>%s</name>\n<final_cpu_time>%.3f</final_cpu_time>\n"
                   "<final_elapsed_time>%.3f</final_elapsed_time>\n<exit_status>%d</exit_status>\n"
                   "<state>%d</state>\n<platform>%s</platform>\n<version_num>%d</version_num>\n"
                   "%s%s%s</result>\n",
                   j->name, j->elapsed, j->elapsed, j->aborted ? EXIT_ABORTED_BY_PROJECT : 0,
                   j->aborted ? CRS_ABORTED : CRS_FILES_UPLOADED,
                   ri->platform, ri->version_num,
                   j->rsc ? "<plan_class>" : "", j->rsc ? ri->gpu_plan_class : "",
                   j->rsc ? "</plan_class>\n" : "");
    }
    if (ask->proj == 0)
        for (i = 0; i < c->nfiles; i++)
            if (c->files[i].sticky)
                buf_printf(b,
                           "<file_info>\n<name>%s</name>\n<nbytes>%.0f</nbytes>\n"
                           "<status>1</status>\n</file_info>\n",
                           files->names[c->files[i].file], c->files[i].nbytes);
    buf_printf(b,
               "<app_versions>\n<app_version>\n<app_name>%s</app_name>\n"
               "<version_num>%d</version_num>\n<platform>%s</platform>\n"
               "<avg_ncpus>1</avg_ncpus>\n<flops>%.0f</flops>\n</app_version>\n",
               ri->app_name, ri->version_num, ri->platform, c->hw.cpu_flops);
    if (c->hw.ngpus > 0)
        buf_printf(b,
                   "<app_version>\n<app_name>%s</app_name>\n<version_num>%d</version_num>\n"
                   "<platform>%s</platform>\n<plan_class>%s</plan_class>\n"
                   "<avg_ncpus>0.1</avg_ncpus>\n<flops>%.0f</flops>\n"
                   "<coproc>\n<type>%s</type>\n<count>1</count>\n</coproc>\n</app_version>\n",
                   ri->app_name, ri->version_num, ri->platform, ri->gpu_plan_class,
                   c->hw.gpu_peak, ri->gpu_type);
    buf_puts(b, "</app_versions>\n<other_results>\n");
    for (i = 0; i < c->njobs; i++) {
        const struct emu_job *j = &c->jobs[i];
        if (j->proj != ask->proj || j->finished > 0)
            continue;
        buf_printf(b, "<other_result>\n<name>%s</name>\n<app_version>%d</app_version>\n%s%s%s"
                      "</other_result>\n",
                   j->name, j->rsc ? 1 : 0, j->rsc ? "<plan_class>" : "",
                   j->rsc ? ri->gpu_plan_class : "", j->rsc ? "</plan_class>\n" : "");
    }
    buf_puts(b, "</other_results>\n");
    if (p->full_workload) {
        buf_puts(b, "<in_progress_results>\n");
        for (i = 0; i < c->njobs; i++) {
            const struct emu_job *j = &c->jobs[i];
            if (j->proj != ask->proj || j->finished > 0)
                continue;
            buf_printf(b,
                       "<ip_result>\n<name>%s</name>\n<report_deadline>%.0f</report_deadline>\n"
                       "<time_remaining>%.3f</time_remaining>\n<avg_ncpus>%s</avg_ncpus>\n%s"
                       "</ip_result>\n",
                       j->name, j->deadline, emu_job_time_left(c, j), j->rsc ? "0.1" : "1",
                       j->rsc ? "<ncudas>1</ncudas>\n" : "");
        }
        buf_puts(b, "</in_progress_results>\n");
    }
    buf_puts(b, "</scheduler_request>\n");
    (void)now;
    return b->oom ? -1 : 0;
}

/* ---- replies ---- */

enum rec { R_NONE, R_FILE, R_AV, R_WU, R_RESULT, R_ACK, R_NO_WORK, R_ABORT };

struct parse {
    struct emu_reply *r;
    enum rec rec;
    char top[32];                  /* element at depth 1 */
    char path[3][32];              /* names at depths 1..3 */
};

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

/* Start of an element at depth d (1: child of <scheduler_reply>). */
static void start(struct parse *p, int d, const char *name, int empty)
{
    struct emu_reply *r = p->r;
    if (d >= 1 && d <= 3)
        copy(p->path[d - 1], sizeof p->path[0], name);
    if (d == 1) {
        copy(p->top, sizeof p->top, name);
        p->rec = R_NONE;
        if (strcmp(name, "file_info") == 0) {
            if (r->nfiles < EMU_R_MAX_FILES) {
                memset(&r->files[r->nfiles], 0, sizeof r->files[0]);
                p->rec = R_FILE;
            } else {
                r->overflow = 1;
            }
        } else if (strcmp(name, "app_version") == 0) {
            if (r->navs < EMU_R_MAX_AVS) {
                memset(&r->avs[r->navs], 0, sizeof r->avs[0]);
                p->rec = R_AV;
            } else {
                r->overflow = 1;
            }
        } else if (strcmp(name, "workunit") == 0) {
            if (r->nwus < EMU_R_MAX_JOBS) {
                memset(&r->wus[r->nwus], 0, sizeof r->wus[0]);
                p->rec = R_WU;
            } else {
                r->overflow = 1;
            }
        } else if (strcmp(name, "result") == 0) {
            if (r->nresults < EMU_R_MAX_JOBS) {
                memset(&r->results[r->nresults], 0, sizeof r->results[0]);
                p->rec = R_RESULT;
            } else {
                r->overflow = 1;
            }
        } else if (strcmp(name, "result_ack") == 0) {
            p->rec = R_ACK;
        } else if (strcmp(name, "result_abort") == 0 ||
                   strcmp(name, "result_abort_if_not_started") == 0) {
            if (r->naborts < EMU_R_MAX_ABORTS) {
                r->aborts[r->naborts][0] = '\0';
                r->abort_always[r->naborts] = strcmp(name, "result_abort") == 0;
                p->rec = R_ABORT;
            } else {
                r->overflow = 1;
            }
        } else if (strcmp(name, "rsc_no_work") == 0) {
            if (r->nno_work < EMU_R_MAX_RSC) {
                r->no_work_rsc[r->nno_work][0] = '\0';
                r->no_work_reason[r->nno_work][0] = '\0';
                p->rec = R_NO_WORK;
            } else {
                r->overflow = 1;
            }
        } else if (strcmp(name, "send_full_workload") == 0) {
            r->send_full_workload = 1;
        }
    } else if (d == 2 && p->rec == R_FILE && empty) {
        if (strcmp(name, "sticky") == 0)
            r->files[r->nfiles].sticky = 1;
        else if (strcmp(name, "executable") == 0)
            r->files[r->nfiles].executable = 1;
    } else if (d == 2 && p->rec == R_WU && strcmp(name, "file_ref") == 0) {
        if (r->wus[r->nwus].nfiles < EMU_MAX_JOB_FILES)
            r->wus[r->nwus].files[r->wus[r->nwus].nfiles++][0] = '\0';
        else
            r->overflow = 1;
    }
}

/* Text inside the element at depth d. */
static void text(struct parse *p, int d, const char *v)
{
    struct emu_reply *r = p->r;
    const char *e1 = p->path[0], *e2 = p->path[1], *e3 = p->path[2];
    if (d == 1) {
        if (strcmp(e1, "hostid") == 0)
            r->hostid = atoll(v);
        else if (strcmp(e1, "request_delay") == 0)
            r->request_delay = atof(v);
        else if (strcmp(e1, "next_rpc_delay") == 0)
            r->next_rpc_delay = atof(v);
        else if (strcmp(e1, "delete_file_info") == 0) {
            if (r->ndeletes < EMU_R_MAX_DELETES)
                copy(r->deletes[r->ndeletes++], EMU_RNAME, v);
            else
                r->overflow = 1;
        } else if (strcmp(e1, "no_rsc_apps") == 0) {
            if (r->nno_rsc_apps < EMU_R_MAX_RSC)
                copy(r->no_rsc_apps[r->nno_rsc_apps++], 32, v);
        }
        return;
    }
    if (d == 2) {
        switch (p->rec) {
        case R_FILE:
            if (strcmp(e2, "name") == 0)
                copy(r->files[r->nfiles].name, EMU_RNAME, v);
            else if (strcmp(e2, "nbytes") == 0)
                r->files[r->nfiles].nbytes = atof(v);
            break;
        case R_AV:
            if (strcmp(e2, "app_name") == 0)
                copy(r->avs[r->navs].app_name, 64, v);
            else if (strcmp(e2, "version_num") == 0)
                r->avs[r->navs].version_num = atoi(v);
            else if (strcmp(e2, "plan_class") == 0)
                copy(r->avs[r->navs].plan_class, 64, v);
            else if (strcmp(e2, "flops") == 0)
                r->avs[r->navs].flops = atof(v);
            break;
        case R_WU:
            if (strcmp(e2, "name") == 0)
                copy(r->wus[r->nwus].name, EMU_RNAME, v);
            else if (strcmp(e2, "rsc_fpops_est") == 0)
                r->wus[r->nwus].rsc_fpops_est = atof(v);
            break;
        case R_RESULT:
            if (strcmp(e2, "name") == 0)
                copy(r->results[r->nresults].name, EMU_RNAME, v);
            else if (strcmp(e2, "wu_name") == 0)
                copy(r->results[r->nresults].wu_name, EMU_RNAME, v);
            else if (strcmp(e2, "report_deadline") == 0)
                r->results[r->nresults].report_deadline = atof(v);
            else if (strcmp(e2, "version_num") == 0)
                r->results[r->nresults].version_num = atoi(v);
            else if (strcmp(e2, "plan_class") == 0)
                copy(r->results[r->nresults].plan_class, 64, v);
            break;
        case R_ACK:
            if (strcmp(e2, "name") == 0) {
                if (r->nacks < EMU_R_MAX_ACKS)
                    copy(r->acks[r->nacks++], EMU_RNAME, v);
                else
                    r->overflow = 1;
            }
            break;
        case R_ABORT:
            if (strcmp(e2, "name") == 0)
                copy(r->aborts[r->naborts], EMU_RNAME, v);
            break;
        case R_NO_WORK:
            if (strcmp(e2, "rsc") == 0)
                copy(r->no_work_rsc[r->nno_work], 32, v);
            else if (strcmp(e2, "reason") == 0)
                copy(r->no_work_reason[r->nno_work], 32, v);
            break;
        default:
            break;
        }
        return;
    }
    if (d == 3) {
        if (p->rec == R_AV && strcmp(e2, "coproc") == 0 && strcmp(e3, "type") == 0)
            copy(r->avs[r->navs].coproc, 32, v);
        else if (p->rec == R_WU && strcmp(e2, "file_ref") == 0 && strcmp(e3, "file_name") == 0 &&
                 r->wus[r->nwus].nfiles > 0)
            copy(r->wus[r->nwus].files[r->wus[r->nwus].nfiles - 1], EMU_RNAME, v);
    }
}

/* End of a record at depth 1. */
static void finish(struct parse *p)
{
    struct emu_reply *r = p->r;
    switch (p->rec) {
    case R_FILE: r->nfiles++; break;
    case R_AV: r->navs++; break;
    case R_WU: r->nwus++; break;
    case R_RESULT: r->nresults++; break;
    case R_NO_WORK: r->nno_work++; break;
    case R_ABORT: r->naborts += r->aborts[r->naborts][0] != '\0'; break;
    default: break;
    }
    p->rec = R_NONE;
}

int emu_reply_parse(struct emu_reply *r, const char *body, size_t len)
{
    xmlTextReaderPtr rd;
    struct parse p;
    int ret, ok = 0, depth_open = 0;

    r->hostid = 0;
    r->request_delay = 0;
    r->next_rpc_delay = 0;
    r->send_full_workload = 0;
    r->nfiles = r->navs = r->nwus = r->nresults = r->nacks = r->ndeletes = r->naborts = 0;
    r->nno_rsc_apps = r->nno_work = r->overflow = 0;
    memset(&p, 0, sizeof p);
    p.r = r;
    rd = xmlReaderForMemory(body, (int)len, NULL, NULL, XML_PARSE_NONET);
    if (!rd)
        return -1;
    while ((ret = xmlTextReaderRead(rd)) == 1) {
        int type = xmlTextReaderNodeType(rd), d = xmlTextReaderDepth(rd);
        const char *name = (const char *)xmlTextReaderConstName(rd);
        if (type == XML_READER_TYPE_ELEMENT) {
            int empty = xmlTextReaderIsEmptyElement(rd);
            if (d == 0) {
                ok = strcmp(name, "scheduler_reply") == 0;
                continue;
            }
            start(&p, d, name, empty);
            if (empty && d == 1)
                finish(&p);
            depth_open = empty ? d - 1 : d;
        } else if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA) {
            const char *v = (const char *)xmlTextReaderConstValue(rd);
            if (d - 1 >= 1 && d - 1 == depth_open)
                text(&p, d - 1, v ? v : "");
        } else if (type == XML_READER_TYPE_END_ELEMENT) {
            if (d == 1)
                finish(&p);
            depth_open = d - 1;
        }
    }
    xmlFreeTextReader(rd);
    return ret == 0 && ok ? 0 : -1;
}

const struct emu_rwu *emu_reply_wu(const struct emu_reply *r, const char *name)
{
    int i;
    for (i = 0; i < r->nwus; i++)
        if (strcmp(r->wus[i].name, name) == 0)
            return &r->wus[i];
    return NULL;
}

const struct emu_rfile *emu_reply_file(const struct emu_reply *r, const char *name)
{
    int i;
    for (i = 0; i < r->nfiles; i++)
        if (strcmp(r->files[i].name, name) == 0)
            return &r->files[i];
    return NULL;
}

const struct emu_rav *emu_reply_av(const struct emu_reply *r, int version_num,
                                   const char *plan_class)
{
    int i;
    for (i = 0; i < r->navs; i++)
        if (r->avs[i].version_num == version_num && strcmp(r->avs[i].plan_class, plan_class) == 0)
            return &r->avs[i];
    return NULL;
}
