/*
 * sched_request.h - a client's <scheduler_request>, parsed and validated.
 *
 * The body comes from an untrusted client.  sched_request_parse() reads it
 * with libxml2 under the caps of sched_limits.h (no DTD, no entities, no network,
 * bounded depth, element count and string lengths) and checks every
 * number.  The result is a plain struct with bounded strings: nothing in it
 * points into the request body, and the only heap memory is the arrays,
 * freed by sched_request_free().
 *
 * Wire format: as sent by the BOINC client 7.20 (see doc/protocol.md).
 */
#ifndef LOCSCHED_SCHED_REQUEST_H
#define LOCSCHED_SCHED_REQUEST_H

#include <stddef.h>
#include <stdio.h>
#include "sched_limits.h"

/* Client-side result states seen in reported <result> elements. */
enum client_result_state {
    CRS_NEW = 0,
    CRS_FILES_DOWNLOADING = 1, /* download failed (exit_status -186) */
    CRS_FILES_DOWNLOADED = 2,
    CRS_COMPUTE_ERROR = 3,
    CRS_FILES_UPLOADING = 4,
    CRS_FILES_UPLOADED = 5,    /* success, unless an upload failed */
    CRS_ABORTED = 6,
    CRS_UPLOAD_FAILED = 7
};

/* The exit status of a task the client aborted because the project said
 * so (<result_abort>, <result_abort_if_not_started>). */
#define EXIT_ABORTED_BY_PROJECT 202

/* One coprocessor type the host has, with its own work request. */
struct req_coproc {
    char type[LIM_NAME_LEN + 1];   /* "NVIDIA", "ATI", "intel_gpu", or a cc_config type */
    int count;
    double peak_flops;             /* per instance */
    double req_secs;               /* instance-seconds wanted */
    double req_instances;          /* idle instances to fill */
    double estimated_delay;        /* seconds until an instance is free */
};

/* One completed job being reported. */
struct req_reported_result {
    char name[LIM_NAME_LEN + 1];
    int state;                     /* enum client_result_state */
    int exit_status;
    double final_cpu_time;
    double final_elapsed_time;
    char platform[LIM_NAME_LEN + 1];
    int version_num;
    char plan_class[LIM_NAME_LEN + 1];
    double peak_working_set_size;
    double peak_swap_size;
    double peak_disk_usage;
    int upload_failed;             /* an output <file_info> carried <error_msg> */
    char stderr_out[4096];         /* truncated text of <stderr_out> */
};

/* A sticky file the host holds (or is downloading, or failed to get). */
struct req_sticky_file {
    char name[LIM_NAME_LEN + 1];
    double nbytes;
    int status;                    /* 1 present, 0 not yet, <0 download error */
};

/* An entry of <app_versions>: what the client holds. */
struct req_app_version {
    char app_name[LIM_NAME_LEN + 1];
    int version_num;
    char platform[LIM_NAME_LEN + 1];
    char plan_class[LIM_NAME_LEN + 1];
    double avg_ncpus;
    double flops;
    char coproc_type[LIM_NAME_LEN + 1]; /* empty for CPU versions */
    double coproc_count;
};

/* An entry of <other_results>: a job held and not being reported. */
struct req_other_result {
    char name[LIM_NAME_LEN + 1];
    int app_version;               /* index into app_versions, -1 if absent */
    char plan_class[LIM_NAME_LEN + 1];
};

/* An entry of <in_progress_results>. */
struct req_ip_result {
    char name[LIM_NAME_LEN + 1];
    double report_deadline;        /* Unix time */
    double time_remaining;         /* client's estimate, seconds */
    double avg_ncpus;
    double ncudas, natis, nintel_gpus; /* GPU usage, 0 for CPU jobs */
};

struct sched_request {
    /* identity */
    char authenticator[LIM_AUTH_LEN + 1];
    long long hostid;              /* 0 on first contact */
    long long rpc_seqno;
    int core_client_major_version;
    int core_client_minor_version;
    int core_client_release;
    char platform_name[LIM_NAME_LEN + 1];
    char alt_platforms[4][LIM_NAME_LEN + 1];
    int n_alt_platforms;
    int have_code_sign_key;        /* the client echoed a <code_sign_key> */

    /* flags and shares */
    double resource_share_fraction;
    double duration_correction_factor;
    int dont_send_work;

    /* CPU work request */
    double work_req_seconds;       /* legacy total */
    double cpu_req_secs;
    double cpu_req_instances;
    double estimated_delay;
    int have_cpu_req_secs;         /* <cpu_req_secs> was present (new client) */

    /* time_stats */
    double on_frac;
    double connected_frac;         /* -1 = unknown, as clients send */
    double cpu_and_network_available_frac;
    double active_frac;
    double gpu_active_frac;

    /* host_info */
    char host_cpid[LIM_NAME_LEN + 1];
    char domain_name[LIM_NAME_LEN + 1];
    char ip_addr[LIM_NAME_LEN + 1];
    int timezone;
    int p_ncpus;
    char p_vendor[LIM_NAME_LEN + 1];
    char p_model[LIM_NAME_LEN + 1];
    double p_fpops;
    double p_iops;
    double p_membw;
    double m_nbytes;
    double m_cache;
    double m_swap;
    double d_total;
    double d_free;
    char os_name[LIM_NAME_LEN + 1];
    char os_version[LIM_NAME_LEN + 1];
    int n_usable_coprocs;

    /* disk_usage */
    double d_boinc_used_total;
    double d_boinc_used_project;
    double d_project_share;

    /* global preferences in force (informational) */
    double work_buf_min_days;
    double work_buf_additional_days;

    /* coprocessors, each with its own request */
    struct req_coproc coprocs[LIM_COPROC_TYPES];
    int ncoprocs;

    /* variable-length parts (heap; freed by sched_request_free) */
    struct req_reported_result *results;
    int nresults;
    struct req_sticky_file *sticky_files;
    int nsticky_files;
    struct req_app_version *app_versions;
    int napp_versions;
    struct req_other_result *other_results;
    int nother_results;
    int have_other_results;        /* <other_results> was present (may be empty) */
    struct req_ip_result *ip_results;
    int nip_results;
    int have_ip_results;           /* <in_progress_results> was present */
};

/* Error codes of sched_request_parse(). */
enum sched_request_err {
    SRQ_OK = 0,
    SRQ_ERR_TOO_BIG = -1,     /* body over LIM_REQUEST_BYTES */
    SRQ_ERR_XML = -2,         /* not well-formed, DTD, entity, ... */
    SRQ_ERR_LIMIT = -3,       /* depth, element count, string length, array size */
    SRQ_ERR_NUMBER = -4,      /* a number that is not one, or out of range */
    SRQ_ERR_MISSING = -5,     /* a required element is absent */
    SRQ_ERR_NOMEM = -6
};

/*
 * Parse and validate a request body of len bytes (not NUL-terminated).
 * On success returns SRQ_OK and fills *req (which the caller must later
 * pass to sched_request_free).  On failure returns a negative
 * enum sched_request_err, writes a one-line human-readable reason naming
 * the element into err (errlen bytes, always NUL-terminated), and leaves
 * *req freed (safe to call sched_request_free on it again).
 */
int sched_request_parse(const char *body, size_t len, struct sched_request *req,
                        char *err, size_t errlen);

/*
 * Values of elements the request leaves out: 0 or "", except
 * duration_correction_factor 1.0, the five time_stats fractions -1
 * ("unknown", as connected_frac already uses), and
 * req_other_result.app_version -1.
 * GPUs that the client writes as <coproc_cuda>, <coproc_ati>,
 * <coproc_intel_gpu> (and <coproc_apple_gpu> in later clients) become
 * req_coproc entries of type "NVIDIA", "ATI", "intel_gpu" ("apple_gpu").
 * <stderr_out> keeps the text of its content (child elements such as
 * <core_client_version> are kept as tags, CDATA as its text), truncated to
 * the field size at a UTF-8 character boundary.
 */

/*
 * Check a parsed request as a whole (sched_request_parse() calls it):
 * authenticator and platform_name present and non-empty; CPU and each
 * coprocessor's work request at most LIM_REQ_SECS_PER_INSTANCE per
 * instance (max(1, p_ncpus), max(1, count)), and work_req_seconds at most
 * that per instance of all resources; coprocessor types present, unique
 * and not "CPU"; every reported result, sticky file, app version,
 * other_result and ip_result named; other_result.app_version a valid
 * index or -1.  Returns SRQ_OK or a negative enum sched_request_err with
 * a one-line reason in err (errlen bytes, may be NULL/0).
 */
int sched_request_validate(const struct sched_request *req, char *err, size_t errlen);

/*
 * Print every parsed field as "key=value" lines in a fixed order (arrays
 * as results[0].name=..., doubles in the shortest form that reads back
 * exactly, strings with \\, \n, \r, \t and \xNN escapes).  The
 * authenticator is shown only by its length.  Used by the golden tests.
 */
void sched_request_dump(const struct sched_request *req, FILE *out);

/* Free the arrays of a parsed request; the struct itself is the caller's. */
void sched_request_free(struct sched_request *req);

/* Short name of an error code, for logs. */
const char *sched_request_strerror(int code);

/* Call once per process before the first parse (libxml2 set-up). */
void sched_request_init(void);

#endif /* LOCSCHED_SCHED_REQUEST_H */
