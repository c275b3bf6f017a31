/*
 * request_host.c - the scheduler request's identity, host and work request:
 * the root element's table, <alt_platform>, the preferences, <time_stats>,
 * <host_info>, <disk_usage> and <coprocs> with each coprocessor's own work
 * request; their whole-request checks and their part of the dump.
 */
#include "request_internal.h"

#include <string.h>
#include <strings.h>

static const struct field root_fields[] = {
    FSTR("authenticator", SR, authenticator, F_SECRET),
    FI64("hostid", SR, hostid, 0, SRQ_MAX_DB_ID),
    FI64("rpc_seqno", SR, rpc_seqno, 0, SRQ_MAX_DB_ID),
    FINT("core_client_major_version", SR, core_client_major_version, 0, SRQ_INT_MAX),
    FINT("core_client_minor_version", SR, core_client_minor_version, 0, SRQ_INT_MAX),
    FINT("core_client_release", SR, core_client_release, 0, SRQ_INT_MAX),
    FSTR("platform_name", SR, platform_name, 0),
    FNODE("alt_platform", CTX_ALT, F_MULTI),
    FFLAG("code_sign_key", SR, have_code_sign_key, 0),
    FDBL("resource_share_fraction", SR, resource_share_fraction, 0, 1, 0),
    FDBL("duration_correction_factor", SR, duration_correction_factor, 0, 100, 0),
    FINT("dont_send_work", SR, dont_send_work, 0, 1),
    FDBL("work_req_seconds", SR, work_req_seconds, 0, MAX_REQ_SECS, 0),
    FDBL("cpu_req_secs", SR, cpu_req_secs, 0, MAX_REQ_SECS, F_HAVECPU),
    FDBL("cpu_req_instances", SR, cpu_req_instances, 0, LIM_NINSTANCES, 0),
    FDBL("estimated_delay", SR, estimated_delay, 0, SRQ_MAX_SECONDS, 0),
    FNODE("working_global_preferences", CTX_WGP, 0),
    FNODE("time_stats", CTX_TIME, 0),
    FNODE("host_info", CTX_HOST, 0),
    FNODE("disk_usage", CTX_DISK, 0),
    FNODE("coprocs", CTX_COPROCS, 0),
    FNODE("result", CTX_RESULT, F_MULTI),
    FNODE("file_info", CTX_STICKY, F_MULTI),
    FNODE("app_versions", CTX_AVS, 0),
    FNODE("other_results", CTX_ORS, 0),
    FNODE("in_progress_results", CTX_IPS, 0),
};

static const struct field alt_fields[] = {
    /* the record of an <alt_platform> is one char[LIM_NAME_LEN + 1] */
    { "name", 4, K_STR, 0, 0, 0, LIM_NAME_LEN + 1, 0, 0 },
};

static const struct field wgp_fields[] = {
    FNODE("global_preferences", CTX_PREFS, 0),
};

static const struct field prefs_fields[] = {
    FDBL("work_buf_min_days", SR, work_buf_min_days, 0, SRQ_MAX_BUF_DAYS, 0),
    FDBL("work_buf_additional_days", SR, work_buf_additional_days, 0, SRQ_MAX_BUF_DAYS, 0),
};

static const struct field time_fields[] = {
    FDBL("on_frac", SR, on_frac, 0, 1, 0),
    FDBL("connected_frac", SR, connected_frac, 0, 1, F_M1),
    FDBL("cpu_and_network_available_frac", SR, cpu_and_network_available_frac, 0, 1, 0),
    FDBL("active_frac", SR, active_frac, 0, 1, 0),
    FDBL("gpu_active_frac", SR, gpu_active_frac, 0, 1, 0),
};

static const struct field host_fields[] = {
    FINT("timezone", SR, timezone, -SRQ_MAX_TZ, SRQ_MAX_TZ),
    FSTR("domain_name", SR, domain_name, 0),
    FSTR("ip_addr", SR, ip_addr, 0),
    FSTR("host_cpid", SR, host_cpid, 0),
    FINT("p_ncpus", SR, p_ncpus, 0, LIM_NINSTANCES),
    FSTR("p_vendor", SR, p_vendor, 0),
    FSTR("p_model", SR, p_model, 0),
    FDBL("p_fpops", SR, p_fpops, 0, LIM_FLOPS, 0),
    FDBL("p_iops", SR, p_iops, 0, LIM_FLOPS, 0),
    FDBL("p_membw", SR, p_membw, 0, LIM_FLOPS, 0),
    FDBL("m_nbytes", SR, m_nbytes, 0, SRQ_MAX_BYTES, 0),
    FDBL("m_cache", SR, m_cache, 0, SRQ_MAX_BYTES, 0),
    FDBL("m_swap", SR, m_swap, 0, SRQ_MAX_BYTES, 0),
    FDBL("d_total", SR, d_total, 0, SRQ_MAX_BYTES, 0),
    FDBL("d_free", SR, d_free, 0, SRQ_MAX_BYTES, 0),
    FSTR("os_name", SR, os_name, 0),
    FSTR("os_version", SR, os_version, 0),
    FINT("n_usable_coprocs", SR, n_usable_coprocs, 0, LIM_NINSTANCES),
};

static const struct field disk_fields[] = {
    FDBL("d_boinc_used_total", SR, d_boinc_used_total, 0, SRQ_MAX_BYTES, 0),
    FDBL("d_boinc_used_project", SR, d_boinc_used_project, 0, SRQ_MAX_BYTES, 0),
    FDBL("d_project_share", SR, d_project_share, 0, SRQ_MAX_BYTES, 0),
};


/* Type names of the vendor GPU elements (BOINC's proc_type_name_xml()). */
const char *const srq_gpu_types[4] = { "NVIDIA", "ATI", "intel_gpu", "apple_gpu" };

static const struct field coprocs_fields[] = {
    FNODE("coproc", CTX_COPROC, F_MULTI),
    FGPU("coproc_cuda", 0),
    FGPU("coproc_ati", 1),
    FGPU("coproc_intel_gpu", 2),
    FGPU("coproc_apple_gpu", 3),
};

static const struct field coproc_fields[] = {
    FSTR("type", RC, type, 0),
    FINT("count", RC, count, 0, LIM_NINSTANCES),
    FDBL("peak_flops", RC, peak_flops, 0, LIM_FLOPS, 0),
    FDBL("req_secs", RC, req_secs, 0, MAX_REQ_SECS, 0),
    FDBL("req_instances", RC, req_instances, 0, LIM_NINSTANCES, 0),
    FDBL("estimated_delay", RC, estimated_delay, 0, SRQ_MAX_SECONDS, 0),
};

/* A vendor GPU element has no <type>: it is implied by the element name. */
static const struct field gpu_fields[] = {
    FINT("count", RC, count, 0, LIM_NINSTANCES),
    FDBL("peak_flops", RC, peak_flops, 0, LIM_FLOPS, 0),
    FDBL("req_secs", RC, req_secs, 0, MAX_REQ_SECS, 0),
    FDBL("req_instances", RC, req_instances, 0, LIM_NINSTANCES, 0),
    FDBL("estimated_delay", RC, estimated_delay, 0, SRQ_MAX_SECONDS, 0),
};

const struct ctx_table srq_root_table = TABLE(root_fields);
const struct ctx_table srq_alt_table = TABLE(alt_fields);
const struct ctx_table srq_wgp_table = TABLE(wgp_fields);
const struct ctx_table srq_prefs_table = TABLE(prefs_fields);
const struct ctx_table srq_time_table = TABLE(time_fields);
const struct ctx_table srq_host_table = TABLE(host_fields);
const struct ctx_table srq_disk_table = TABLE(disk_fields);
const struct ctx_table srq_coprocs_table = TABLE(coprocs_fields);
const struct ctx_table srq_coproc_table = TABLE(coproc_fields);
const struct ctx_table srq_gpu_table = TABLE(gpu_fields);

/* The duplicate check keeps one bit per table entry. */
_Static_assert(sizeof(root_fields) / sizeof(root_fields[0]) <= 64, "seen mask");
_Static_assert(sizeof(host_fields) / sizeof(host_fields[0]) <= 64, "seen mask");

/* Identity, platform, coprocessors and work requests of at most
 * LIM_REQ_SECS_PER_INSTANCE per instance. */
int srq_validate_host(const struct sched_request *req, char *err, size_t errlen)
{
    const double days = LIM_REQ_SECS_PER_INSTANCE / 86400.0;
    char v[40], m[40], q[128];

    if (!req->authenticator[0])
        return srq_verr(err, errlen, SRQ_ERR_MISSING, "<authenticator> is missing or empty");
    if (!req->platform_name[0])
        return srq_verr(err, errlen, SRQ_ERR_MISSING, "<platform_name> is missing or empty");

    int ncpus = req->p_ncpus > 1 ? req->p_ncpus : 1;
    double lim = LIM_REQ_SECS_PER_INSTANCE * ncpus;
    if (!(req->cpu_req_secs <= lim)) {
        srq_fmt_double(v, sizeof v, req->cpu_req_secs);
        srq_fmt_double(m, sizeof m, lim);
        return srq_verr(err, errlen, SRQ_ERR_NUMBER,
                    "<cpu_req_secs>: \"%s\" is over %g days per instance (max %s for %d CPUs)",
                    v, days, m, ncpus);
    }

    double ninst = ncpus;
    for (int i = 0; i < req->ncoprocs; i++) {
        const struct req_coproc *c = &req->coprocs[i];
        if (!c->type[0])
            return srq_verr(err, errlen, SRQ_ERR_MISSING, "<coproc> #%d in <coprocs> has no <type>",
                        i + 1);
        q[0] = '\0';
        srq_quote_text(q, sizeof q, c->type, strlen(c->type));
        if (strcasecmp(c->type, "CPU") == 0)
            return srq_verr(err, errlen, SRQ_ERR_XML, "<coprocs>: coprocessor type \"%s\" is reserved",
                        q);
        for (int j = 0; j < i; j++)
            if (strcmp(req->coprocs[j].type, c->type) == 0)
                return srq_verr(err, errlen, SRQ_ERR_XML,
                            "<coprocs>: duplicate coprocessor type \"%s\"", q);
        int count = c->count > 1 ? c->count : 1;
        double clim = LIM_REQ_SECS_PER_INSTANCE * count;
        if (!(c->req_secs <= clim)) {
            srq_fmt_double(v, sizeof v, c->req_secs);
            srq_fmt_double(m, sizeof m, clim);
            return srq_verr(err, errlen, SRQ_ERR_NUMBER,
                        "<req_secs> of coprocessor \"%s\": \"%s\" is over %g days per instance "
                        "(max %s for %d instances)", q, v, days, m, count);
        }
        ninst += count;
    }
    if (!(req->work_req_seconds <= LIM_REQ_SECS_PER_INSTANCE * ninst)) {
        srq_fmt_double(v, sizeof v, req->work_req_seconds);
        srq_fmt_double(m, sizeof m, LIM_REQ_SECS_PER_INSTANCE * ninst);
        return srq_verr(err, errlen, SRQ_ERR_NUMBER,
                    "<work_req_seconds>: \"%s\" is over %g days per instance (max %s for %g "
                    "instances)", v, days, m, ninst);
    }
    return SRQ_OK;
}

void srq_dump_host(const struct sched_request *r, FILE *out)
{
    char p[64];
    const char *t = "";

    /* the key itself is never printed: this text may end up in a log */
    fprintf(out, "authenticator=(%zu bytes, not shown)\n", strlen(r->authenticator));
    srq_dump_i(out, t, "hostid", r->hostid);
    srq_dump_i(out, t, "rpc_seqno", r->rpc_seqno);
    srq_dump_i(out, t, "core_client_major_version", r->core_client_major_version);
    srq_dump_i(out, t, "core_client_minor_version", r->core_client_minor_version);
    srq_dump_i(out, t, "core_client_release", r->core_client_release);
    srq_dump_s(out, t, "platform_name", r->platform_name);
    srq_dump_i(out, t, "n_alt_platforms", r->n_alt_platforms);
    for (int i = 0; i < r->n_alt_platforms && i < SRQ_MAX_ALT_PLATFORMS; i++) {
        snprintf(p, sizeof p, "alt_platforms[%d]", i);
        srq_dump_s(out, p, "", r->alt_platforms[i]);
    }
    srq_dump_i(out, t, "have_code_sign_key", r->have_code_sign_key);
    srq_dump_d(out, t, "resource_share_fraction", r->resource_share_fraction);
    srq_dump_d(out, t, "duration_correction_factor", r->duration_correction_factor);
    srq_dump_i(out, t, "dont_send_work", r->dont_send_work);
    srq_dump_d(out, t, "work_req_seconds", r->work_req_seconds);
    srq_dump_d(out, t, "cpu_req_secs", r->cpu_req_secs);
    srq_dump_d(out, t, "cpu_req_instances", r->cpu_req_instances);
    srq_dump_d(out, t, "estimated_delay", r->estimated_delay);
    srq_dump_i(out, t, "have_cpu_req_secs", r->have_cpu_req_secs);
    srq_dump_d(out, t, "on_frac", r->on_frac);
    srq_dump_d(out, t, "connected_frac", r->connected_frac);
    srq_dump_d(out, t, "cpu_and_network_available_frac", r->cpu_and_network_available_frac);
    srq_dump_d(out, t, "active_frac", r->active_frac);
    srq_dump_d(out, t, "gpu_active_frac", r->gpu_active_frac);
    srq_dump_s(out, t, "host_cpid", r->host_cpid);
    srq_dump_s(out, t, "domain_name", r->domain_name);
    srq_dump_s(out, t, "ip_addr", r->ip_addr);
    srq_dump_i(out, t, "timezone", r->timezone);
    srq_dump_i(out, t, "p_ncpus", r->p_ncpus);
    srq_dump_s(out, t, "p_vendor", r->p_vendor);
    srq_dump_s(out, t, "p_model", r->p_model);
    srq_dump_d(out, t, "p_fpops", r->p_fpops);
    srq_dump_d(out, t, "p_iops", r->p_iops);
    srq_dump_d(out, t, "p_membw", r->p_membw);
    srq_dump_d(out, t, "m_nbytes", r->m_nbytes);
    srq_dump_d(out, t, "m_cache", r->m_cache);
    srq_dump_d(out, t, "m_swap", r->m_swap);
    srq_dump_d(out, t, "d_total", r->d_total);
    srq_dump_d(out, t, "d_free", r->d_free);
    srq_dump_s(out, t, "os_name", r->os_name);
    srq_dump_s(out, t, "os_version", r->os_version);
    srq_dump_i(out, t, "n_usable_coprocs", r->n_usable_coprocs);
    srq_dump_d(out, t, "d_boinc_used_total", r->d_boinc_used_total);
    srq_dump_d(out, t, "d_boinc_used_project", r->d_boinc_used_project);
    srq_dump_d(out, t, "d_project_share", r->d_project_share);
    srq_dump_d(out, t, "work_buf_min_days", r->work_buf_min_days);
    srq_dump_d(out, t, "work_buf_additional_days", r->work_buf_additional_days);

    srq_dump_i(out, t, "ncoprocs", r->ncoprocs);
    for (int i = 0; i < r->ncoprocs && i < LIM_COPROC_TYPES; i++) {
        const struct req_coproc *c = &r->coprocs[i];
        snprintf(p, sizeof p, "coprocs[%d].", i);
        srq_dump_s(out, p, "type", c->type);
        srq_dump_i(out, p, "count", c->count);
        srq_dump_d(out, p, "peak_flops", c->peak_flops);
        srq_dump_d(out, p, "req_secs", c->req_secs);
        srq_dump_d(out, p, "req_instances", c->req_instances);
        srq_dump_d(out, p, "estimated_delay", c->estimated_delay);
    }
}
