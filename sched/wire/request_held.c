/*
 * request_held.c - what the client holds, in a scheduler request: its
 * <app_versions>, <other_results> (the jobs it has, with their app
 * version) and <in_progress_results> (their deadlines and remaining
 * times): the tables, the checks and their part of the dump.
 */
#include "request_internal.h"

#include <string.h>

static const struct field avs_fields[] = {
    FNODE("app_version", CTX_AV, F_MULTI),
};

static const struct field av_fields[] = {
    FSTR("app_name", RA, app_name, 0),
    FINT("version_num", RA, version_num, 0, SRQ_INT_MAX),
    FSTR("platform", RA, platform, 0),
    FSTR("plan_class", RA, plan_class, 0),
    FDBL("avg_ncpus", RA, avg_ncpus, 0, LIM_NINSTANCES, 0),
    FDBL("flops", RA, flops, 0, LIM_FLOPS, 0),
    FNODE("coproc", CTX_AVCOPROC, 0),
};

/* The record of an app version's <coproc> is the app version itself. */
static const struct field avcoproc_fields[] = {
    FSTR("type", RA, coproc_type, 0),
    FDBL("count", RA, coproc_count, 0, LIM_NINSTANCES, 0),
};

static const struct field ors_fields[] = {
    FNODE("other_result", CTX_OR, F_MULTI),
};

static const struct field or_fields[] = {
    FSTR("name", RO, name, 0),
    FINT("app_version", RO, app_version, -1, LIM_CLIENT_APP_VERSIONS - 1),
    FSTR("plan_class", RO, plan_class, 0),
};

static const struct field ips_fields[] = {
    FNODE("ip_result", CTX_IP, F_MULTI),
};

static const struct field ip_fields[] = {
    FSTR("name", RI, name, 0),
    FDBL("report_deadline", RI, report_deadline, 0, SRQ_MAX_UNIX_TIME, 0),
    /* negative when a job has outrun its estimate (the client 7.20 sends
     * e.g. -1.00 for an app that reports progress); the handler clamps */
    FDBL("time_remaining", RI, time_remaining, -SRQ_MAX_SECONDS, SRQ_MAX_SECONDS, 0),
    FDBL("avg_ncpus", RI, avg_ncpus, 0, LIM_NINSTANCES, 0),
    FDBL("ncudas", RI, ncudas, 0, LIM_NINSTANCES, 0),
    FDBL("natis", RI, natis, 0, LIM_NINSTANCES, 0),
    FDBL("nintel_gpus", RI, nintel_gpus, 0, LIM_NINSTANCES, 0),
};

const struct ctx_table srq_avs_table = TABLE(avs_fields);
const struct ctx_table srq_av_table = TABLE(av_fields);
const struct ctx_table srq_avcoproc_table = TABLE(avcoproc_fields);
const struct ctx_table srq_ors_table = TABLE(ors_fields);
const struct ctx_table srq_or_table = TABLE(or_fields);
const struct ctx_table srq_ips_table = TABLE(ips_fields);
const struct ctx_table srq_ip_table = TABLE(ip_fields);

int srq_validate_held(const struct sched_request *req, char *err, size_t errlen)
{
    char q[128];

    for (int i = 0; i < req->napp_versions; i++)
        if (!req->app_versions[i].app_name[0])
            return srq_verr(err, errlen, SRQ_ERR_MISSING, "<app_version> #%d has no <app_name>",
                        i + 1);
    for (int i = 0; i < req->nother_results; i++) {
        const struct req_other_result *o = &req->other_results[i];
        if (!o->name[0])
            return srq_verr(err, errlen, SRQ_ERR_MISSING, "<other_result> #%d has no <name>", i + 1);
        if (o->app_version < -1 || o->app_version >= req->napp_versions) {
            q[0] = '\0';
            srq_quote_text(q, sizeof q, o->name, strlen(o->name));
            return srq_verr(err, errlen, SRQ_ERR_NUMBER,
                        "<app_version> of <other_result> \"%s\": index %d, but %d <app_version> "
                        "listed", q, o->app_version, req->napp_versions);
        }
    }
    for (int i = 0; i < req->nip_results; i++)
        if (!req->ip_results[i].name[0])
            return srq_verr(err, errlen, SRQ_ERR_MISSING, "<ip_result> #%d has no <name>", i + 1);
    return SRQ_OK;
}

void srq_dump_held(const struct sched_request *r, FILE *out)
{
    char p[64];
    const char *t = "";

    srq_dump_i(out, t, "napp_versions", r->napp_versions);
    for (int i = 0; i < r->napp_versions; i++) {
        const struct req_app_version *x = &r->app_versions[i];
        snprintf(p, sizeof p, "app_versions[%d].", i);
        srq_dump_s(out, p, "app_name", x->app_name);
        srq_dump_i(out, p, "version_num", x->version_num);
        srq_dump_s(out, p, "platform", x->platform);
        srq_dump_s(out, p, "plan_class", x->plan_class);
        srq_dump_d(out, p, "avg_ncpus", x->avg_ncpus);
        srq_dump_d(out, p, "flops", x->flops);
        srq_dump_s(out, p, "coproc_type", x->coproc_type);
        srq_dump_d(out, p, "coproc_count", x->coproc_count);
    }

    srq_dump_i(out, t, "have_other_results", r->have_other_results);
    srq_dump_i(out, t, "nother_results", r->nother_results);
    for (int i = 0; i < r->nother_results; i++) {
        const struct req_other_result *x = &r->other_results[i];
        snprintf(p, sizeof p, "other_results[%d].", i);
        srq_dump_s(out, p, "name", x->name);
        srq_dump_i(out, p, "app_version", x->app_version);
        srq_dump_s(out, p, "plan_class", x->plan_class);
    }

    srq_dump_i(out, t, "have_ip_results", r->have_ip_results);
    srq_dump_i(out, t, "nip_results", r->nip_results);
    for (int i = 0; i < r->nip_results; i++) {
        const struct req_ip_result *x = &r->ip_results[i];
        snprintf(p, sizeof p, "ip_results[%d].", i);
        srq_dump_s(out, p, "name", x->name);
        srq_dump_d(out, p, "report_deadline", x->report_deadline);
        srq_dump_d(out, p, "time_remaining", x->time_remaining);
        srq_dump_d(out, p, "avg_ncpus", x->avg_ncpus);
        srq_dump_d(out, p, "ncudas", x->ncudas);
        srq_dump_d(out, p, "natis", x->natis);
        srq_dump_d(out, p, "nintel_gpus", x->nintel_gpus);
    }
}
