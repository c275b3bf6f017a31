/*
 * request_results.c - the reported results of a scheduler request: the
 * tables of <result> and of its output <file_info>, their check and their
 * part of the dump.
 */
#include "request_internal.h"

static const struct field result_fields[] = {
    FSTR("name", RR, name, 0),
    FDBL("final_cpu_time", RR, final_cpu_time, 0, SRQ_MAX_SECONDS, 0),
    FDBL("final_elapsed_time", RR, final_elapsed_time, 0, SRQ_MAX_SECONDS, 0),
    FINT("exit_status", RR, exit_status, SRQ_INT_MIN, SRQ_INT_MAX),
    FINT("state", RR, state, CRS_NEW, CRS_UPLOAD_FAILED),
    FSTR("platform", RR, platform, 0),
    FINT("version_num", RR, version_num, 0, SRQ_INT_MAX),
    FSTR("plan_class", RR, plan_class, 0),
    FDBL("final_peak_working_set_size", RR, peak_working_set_size, 0, SRQ_MAX_BYTES, 0),
    FDBL("final_peak_swap_size", RR, peak_swap_size, 0, SRQ_MAX_BYTES, 0),
    FDBL("final_peak_disk_usage", RR, peak_disk_usage, 0, SRQ_MAX_BYTES, 0),
    { "stderr_out", 10, K_STDERR, 0, 0, offsetof(RR, stderr_out), MSIZE(RR, stderr_out), 0, 0 },
    FNODE("file_info", CTX_RFILE, F_MULTI),
};

/* The record of an output file is the result itself. */
static const struct field rfile_fields[] = {
    FFLAG("error_msg", RR, upload_failed, F_MULTI),
};

const struct ctx_table srq_result_table = TABLE(result_fields);
const struct ctx_table srq_rfile_table = TABLE(rfile_fields);

int srq_validate_results(const struct sched_request *req, char *err, size_t errlen)
{
    for (int i = 0; i < req->nresults; i++)
        if (!req->results[i].name[0])
            return srq_verr(err, errlen, SRQ_ERR_MISSING, "reported <result> #%d has no <name>",
                        i + 1);
    return SRQ_OK;
}

void srq_dump_results(const struct sched_request *r, FILE *out)
{
    char p[64];
    const char *t = "";

    srq_dump_i(out, t, "nresults", r->nresults);
    for (int i = 0; i < r->nresults; i++) {
        const struct req_reported_result *x = &r->results[i];
        snprintf(p, sizeof p, "results[%d].", i);
        srq_dump_s(out, p, "name", x->name);
        srq_dump_i(out, p, "state", x->state);
        srq_dump_i(out, p, "exit_status", x->exit_status);
        srq_dump_d(out, p, "final_cpu_time", x->final_cpu_time);
        srq_dump_d(out, p, "final_elapsed_time", x->final_elapsed_time);
        srq_dump_s(out, p, "platform", x->platform);
        srq_dump_i(out, p, "version_num", x->version_num);
        srq_dump_s(out, p, "plan_class", x->plan_class);
        srq_dump_d(out, p, "peak_working_set_size", x->peak_working_set_size);
        srq_dump_d(out, p, "peak_swap_size", x->peak_swap_size);
        srq_dump_d(out, p, "peak_disk_usage", x->peak_disk_usage);
        srq_dump_i(out, p, "upload_failed", x->upload_failed);
        srq_dump_s(out, p, "stderr_out", x->stderr_out);
    }
}
