/*
 * fuzz_sched_request.c - libFuzzer target of the scheduler request parser
 * (sched/wire/sched_request.h): any bytes as a request body.
 *
 * Besides the sanitizers' findings, a broken promise of the header is a
 * finding: on success the request validates, every string is terminated,
 * every array is within its cap and every number finite, and the dump
 * runs; on failure the code is a known one, the reason one line, and
 * nothing is left allocated.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "sched_request.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sched_request_init();
    devnull = fopen("/dev/null", "w");
    return 0;
}

static void check_request(const struct sched_request *r)
{
    char err[256];
    int i;

    FUZZ_CHECK(sched_request_validate(r, err, sizeof err) == SRQ_OK);
    FUZZ_CHECK(strlen(r->authenticator) > 0 && strlen(r->authenticator) <= LIM_AUTH_LEN);
    FUZZ_CHECK(strlen(r->platform_name) > 0 && FUZZ_TERMINATED(r->platform_name));
    FUZZ_CHECK(r->n_alt_platforms >= 0 && r->n_alt_platforms <= 4);
    for (i = 0; i < r->n_alt_platforms; i++)
        FUZZ_CHECK(FUZZ_TERMINATED(r->alt_platforms[i]));
    FUZZ_CHECK(FUZZ_TERMINATED(r->host_cpid) && FUZZ_TERMINATED(r->domain_name) &&
               FUZZ_TERMINATED(r->ip_addr) && FUZZ_TERMINATED(r->p_vendor) &&
               FUZZ_TERMINATED(r->p_model) && FUZZ_TERMINATED(r->os_name) &&
               FUZZ_TERMINATED(r->os_version));
    FUZZ_CHECK(r->hostid >= 0);
    FUZZ_CHECK(isfinite(r->work_req_seconds) && isfinite(r->cpu_req_secs) &&
               isfinite(r->cpu_req_instances) && isfinite(r->estimated_delay) &&
               isfinite(r->resource_share_fraction) && isfinite(r->duration_correction_factor));
    FUZZ_CHECK(isfinite(r->on_frac) && isfinite(r->connected_frac) &&
               isfinite(r->cpu_and_network_available_frac) && isfinite(r->active_frac) &&
               isfinite(r->gpu_active_frac));
    FUZZ_CHECK(isfinite(r->p_fpops) && isfinite(r->p_iops) && isfinite(r->p_membw) &&
               isfinite(r->m_nbytes) && isfinite(r->m_cache) && isfinite(r->m_swap) &&
               isfinite(r->d_total) && isfinite(r->d_free));
    FUZZ_CHECK(r->ncoprocs >= 0 && r->ncoprocs <= LIM_COPROC_TYPES);
    for (i = 0; i < r->ncoprocs; i++) {
        const struct req_coproc *c = &r->coprocs[i];
        FUZZ_CHECK(c->type[0] && FUZZ_TERMINATED(c->type));
        FUZZ_CHECK(isfinite(c->peak_flops) && isfinite(c->req_secs) &&
                   isfinite(c->req_instances) && isfinite(c->estimated_delay));
    }
    FUZZ_CHECK(r->nresults >= 0 && r->nresults <= LIM_REPORTED_RESULTS);
    FUZZ_CHECK(r->nresults == 0 || r->results);
    for (i = 0; i < r->nresults; i++) {
        const struct req_reported_result *x = &r->results[i];
        FUZZ_CHECK(x->name[0] && FUZZ_TERMINATED(x->name) && FUZZ_TERMINATED(x->platform) &&
                   FUZZ_TERMINATED(x->plan_class) && FUZZ_TERMINATED(x->stderr_out));
        FUZZ_CHECK(isfinite(x->final_cpu_time) && isfinite(x->final_elapsed_time) &&
                   isfinite(x->peak_working_set_size) && isfinite(x->peak_swap_size) &&
                   isfinite(x->peak_disk_usage));
    }
    FUZZ_CHECK(r->nsticky_files >= 0 && r->nsticky_files <= LIM_STICKY_FILES);
    FUZZ_CHECK(r->nsticky_files == 0 || r->sticky_files);
    for (i = 0; i < r->nsticky_files; i++)
        FUZZ_CHECK(r->sticky_files[i].name[0] && FUZZ_TERMINATED(r->sticky_files[i].name) &&
                   isfinite(r->sticky_files[i].nbytes));
    FUZZ_CHECK(r->napp_versions >= 0 && r->napp_versions <= LIM_CLIENT_APP_VERSIONS);
    FUZZ_CHECK(r->napp_versions == 0 || r->app_versions);
    for (i = 0; i < r->napp_versions; i++) {
        const struct req_app_version *v = &r->app_versions[i];
        FUZZ_CHECK(v->app_name[0] && FUZZ_TERMINATED(v->app_name) &&
                   FUZZ_TERMINATED(v->platform) && FUZZ_TERMINATED(v->plan_class) &&
                   FUZZ_TERMINATED(v->coproc_type));
        FUZZ_CHECK(isfinite(v->avg_ncpus) && isfinite(v->flops) && isfinite(v->coproc_count));
    }
    FUZZ_CHECK(r->nother_results >= 0 && r->nother_results <= LIM_IP_RESULTS);
    FUZZ_CHECK(r->nother_results == 0 || r->other_results);
    for (i = 0; i < r->nother_results; i++) {
        const struct req_other_result *o = &r->other_results[i];
        FUZZ_CHECK(o->name[0] && FUZZ_TERMINATED(o->name) && FUZZ_TERMINATED(o->plan_class));
        FUZZ_CHECK(o->app_version >= -1 && o->app_version < r->napp_versions);
    }
    FUZZ_CHECK(r->nip_results >= 0 && r->nip_results <= LIM_IP_RESULTS);
    FUZZ_CHECK(r->nip_results == 0 || r->ip_results);
    for (i = 0; i < r->nip_results; i++) {
        const struct req_ip_result *p = &r->ip_results[i];
        FUZZ_CHECK(p->name[0] && FUZZ_TERMINATED(p->name));
        FUZZ_CHECK(isfinite(p->report_deadline) && isfinite(p->time_remaining) &&
                   isfinite(p->avg_ncpus) && isfinite(p->ncudas) && isfinite(p->natis) &&
                   isfinite(p->nintel_gpus));
    }
    if (devnull)
        sched_request_dump(r, devnull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sched_request req;
    char err[256];
    int rc;

    memset(err, 'x', sizeof err);
    rc = sched_request_parse((const char *)data, size, &req, err, sizeof err);
    if (rc == SRQ_OK) {
        check_request(&req);
    } else {
        FUZZ_CHECK(rc >= SRQ_ERR_NOMEM && rc <= SRQ_ERR_TOO_BIG);
        FUZZ_CHECK(FUZZ_TERMINATED(err) && err[0] != '\0' && !strchr(err, '\n'));
        FUZZ_CHECK(!req.results && !req.sticky_files && !req.app_versions &&
                   !req.other_results && !req.ip_results);
    }
    sched_request_free(&req);
    return 0;
}
