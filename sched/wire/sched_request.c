/*
 * sched_request.c - the hardened parser of a client's <scheduler_request>.
 *
 * The body is untrusted.  It is read with libxml2's streaming xmlTextReader
 * so that every cap of limits.h is enforced while parsing, before any
 * large structure can be built:
 *   - the body size is checked before libxml2 sees a byte;
 *   - a DOCTYPE is refused (by a scan of the prolog, before libxml2 could
 *     read an internal subset, and again if the reader reports one), so no
 *     entity can be declared; undefined entities are fatal errors in
 *     libxml2 when there is no DTD; entity substitution, DTD loading,
 *     network access and XInclude are never enabled;
 *   - nesting depth and element count are counted per element;
 *   - every kept string has a length cap (too long is an error, except
 *     <stderr_out>, which is truncated);
 *   - every array has a cap (reported results, sticky files, ...);
 *   - every number is parsed strictly (see parse_number()) and range checked.
 * After parsing, sched_request_validate() checks the request as a whole
 * (required elements, work requests of at most 28 days per instance,
 * cross references).
 *
 * Element handling is table driven: each context (the root, <host_info>,
 * a reported <result>, ...) has a small table of the child elements we
 * keep, with their kind, destination offset and range.  Unknown elements
 * are skipped with their whole subtree (forward compatibility) but still
 * count toward the depth and element limits.  Only direct children of a
 * known context are matched, so e.g. the <peak_flops> inside a GPU's
 * <coproc_opencl> never overrides the GPU's own <peak_flops>.
 *
 * libxml2 never prints: sched_request_init() installs silent global error
 * handlers, and each parse installs a structured handler on its reader
 * that keeps the first error message for our one-line error text.
 */
#include "sched_request.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

/* ------------------------------------------------------------------ */
/* Ranges of fields that limits.h has no cap for.  Each is far beyond   */
/* what a real client sends and keeps later arithmetic finite.          */

/* Durations and delays (final_cpu_time, time_remaining, estimated_delay):
 * 1e10 s is over 300 years. */
#define SRQ_MAX_SECONDS    1e10
/* Unix times (report_deadline): 1e11 is the year 5138. */
#define SRQ_MAX_UNIX_TIME  1e11
/* Byte counts (memory, disk, file sizes): one exabyte. */
#define SRQ_MAX_BYTES      1e18
/* Work buffer preferences, in days (the client's own maximum is 10). */
#define SRQ_MAX_BUF_DAYS   365.0
/* hostid and rpc_seqno are stored in INT columns. */
#define SRQ_MAX_DB_ID      2147483647.0
/* Timezone offset in seconds. */
#define SRQ_MAX_TZ         86400.0

/* <limits.h> is shadowed by sched/limits.h on the include path, so the
 * int range comes from <stdint.h>. */
_Static_assert(sizeof(int) == 4, "int is 32 bits");
#define SRQ_INT_MIN ((double)INT32_MIN)
#define SRQ_INT_MAX ((double)INT32_MAX)

/* Alternate platforms the struct has room for. */
#define SRQ_MAX_ALT_PLATFORMS \
    ((int)(sizeof(((struct sched_request *)0)->alt_platforms) / \
           sizeof(((struct sched_request *)0)->alt_platforms[0])))

/* Text of one leaf element we collect before deciding it is too long:
 * comfortably above LIM_NAME_LEN plus surrounding whitespace. */
#define SRQ_TEXT_BUF       1024

/* Longest excerpt of an offending value quoted in an error message. */
#define SRQ_QUOTE_MAX      40

/* ------------------------------------------------------------------ */
/* Element tables                                                      */

/* Parsing contexts: what the element on top of the stack is. */
enum ctx {
    CTX_IGNORE = 0,   /* unknown element: skip the subtree */
    CTX_LEAF,         /* a kept number or string: collect text */
    CTX_STDERR,       /* <stderr_out> or an element inside it */
    CTX_ROOT,         /* <scheduler_request> */
    CTX_ALT,          /* <alt_platform> */
    CTX_WGP,          /* <working_global_preferences> */
    CTX_PREFS,        /* its <global_preferences> */
    CTX_TIME,         /* <time_stats> */
    CTX_HOST,         /* <host_info> */
    CTX_DISK,         /* <disk_usage> */
    CTX_COPROCS,      /* <coprocs> */
    CTX_COPROC,       /* <coprocs><coproc> (non-GPU or cc_config type) */
    CTX_GPU,          /* <coproc_cuda>, <coproc_ati>, <coproc_intel_gpu>, ... */
    CTX_RESULT,       /* a reported <result> */
    CTX_RFILE,        /* an output <file_info> of a reported result */
    CTX_STICKY,       /* a top-level (sticky) <file_info> */
    CTX_AVS,          /* <app_versions> */
    CTX_AV,           /* <app_version> */
    CTX_AVCOPROC,     /* <app_version><coproc> */
    CTX_ORS,          /* <other_results> */
    CTX_OR,           /* <other_result> */
    CTX_IPS,          /* <in_progress_results> */
    CTX_IP,           /* <ip_result> */
    CTX_COUNT
};

/* What an element of a table is. */
enum kind {
    K_STR,      /* bounded string; too long is an error */
    K_INT,      /* int, strict, range [min, max] */
    K_I64,      /* long long, strict, range [min, max] */
    K_DBL,      /* double, strict, finite, range [min, max] */
    K_FLAG,     /* presence sets an int to 1; content ignored */
    K_STDERR,   /* the text of <stderr_out>, truncated */
    K_NODE      /* a container; its children are in context .sub */
};

/* Flags of a table entry. */
#define F_MULTI   1   /* may repeat (array members) */
#define F_M1      2   /* the value -1 is accepted besides [min, max] */
#define F_SECRET  4   /* never quote the value in an error */
#define F_HAVECPU 8   /* presence sets have_cpu_req_secs */

struct field {
    const char *name;
    unsigned char len;       /* strlen(name) */
    unsigned char kind;      /* enum kind */
    unsigned char sub;       /* K_NODE: the child context */
    unsigned char flags;     /* F_* */
    unsigned int off;        /* offset in the context's record */
    unsigned int size;       /* K_STR, K_STDERR: size of the char array */
    double min, max;         /* numbers: accepted range */
};

#define NAMELEN(n) ((unsigned char)(sizeof(n) - 1))
#define MSIZE(T, m) ((unsigned int)sizeof(((T *)0)->m))
#define FSTR(n, T, m, fl) { n, NAMELEN(n), K_STR, 0, fl, offsetof(T, m), MSIZE(T, m), 0, 0 }
#define FINT(n, T, m, lo, hi) { n, NAMELEN(n), K_INT, 0, 0, offsetof(T, m), 0, lo, hi }
#define FI64(n, T, m, lo, hi) { n, NAMELEN(n), K_I64, 0, 0, offsetof(T, m), 0, lo, hi }
#define FDBL(n, T, m, lo, hi, fl) { n, NAMELEN(n), K_DBL, 0, fl, offsetof(T, m), 0, lo, hi }
#define FFLAG(n, T, m, fl) { n, NAMELEN(n), K_FLAG, 0, fl, offsetof(T, m), 0, 0, 0 }
#define FNODE(n, c, fl) { n, NAMELEN(n), K_NODE, c, fl, 0, 0, 0, 0 }
/* A GPU element: off holds the index of its type name in gpu_types[]. */
#define FGPU(n, i) { n, NAMELEN(n), K_NODE, CTX_GPU, F_MULTI, i, 0, 0, 0 }

typedef struct sched_request SR;
typedef struct req_coproc RC;
typedef struct req_reported_result RR;
typedef struct req_sticky_file RS;
typedef struct req_app_version RA;
typedef struct req_other_result RO;
typedef struct req_ip_result RI;

/* Largest total work request we parse before the per-instance check. */
#define MAX_REQ_SECS (LIM_REQ_SECS_PER_INSTANCE * LIM_NINSTANCES * (1 + LIM_COPROC_TYPES))

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
static const char *const gpu_types[] = { "NVIDIA", "ATI", "intel_gpu", "apple_gpu" };

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

static const struct field sticky_fields[] = {
    FSTR("name", RS, name, 0),
    FDBL("nbytes", RS, nbytes, 0, SRQ_MAX_BYTES, 0),
    FINT("status", RS, status, SRQ_INT_MIN, 1),
};

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

#define TABLE(t) { t, (int)(sizeof(t) / sizeof(t[0])) }

/* The table of each context, indexed by enum ctx. */
static const struct ctx_table {
    const struct field *fields;
    int n;
} ctx_tables[CTX_COUNT] = {
    [CTX_ROOT] = TABLE(root_fields),
    [CTX_ALT] = TABLE(alt_fields),
    [CTX_WGP] = TABLE(wgp_fields),
    [CTX_PREFS] = TABLE(prefs_fields),
    [CTX_TIME] = TABLE(time_fields),
    [CTX_HOST] = TABLE(host_fields),
    [CTX_DISK] = TABLE(disk_fields),
    [CTX_COPROCS] = TABLE(coprocs_fields),
    [CTX_COPROC] = TABLE(coproc_fields),
    [CTX_GPU] = TABLE(gpu_fields),
    [CTX_RESULT] = TABLE(result_fields),
    [CTX_RFILE] = TABLE(rfile_fields),
    [CTX_STICKY] = TABLE(sticky_fields),
    [CTX_AVS] = TABLE(avs_fields),
    [CTX_AV] = TABLE(av_fields),
    [CTX_AVCOPROC] = TABLE(avcoproc_fields),
    [CTX_ORS] = TABLE(ors_fields),
    [CTX_OR] = TABLE(or_fields),
    [CTX_IPS] = TABLE(ips_fields),
    [CTX_IP] = TABLE(ip_fields),
};

/* The duplicate check keeps one bit per table entry. */
_Static_assert(sizeof(root_fields) / sizeof(root_fields[0]) <= 64, "seen mask");
_Static_assert(sizeof(host_fields) / sizeof(host_fields[0]) <= 64, "seen mask");

/* ------------------------------------------------------------------ */
/* Parse state                                                          */

/* One open element. */
struct frame {
    unsigned char ctx;            /* enum ctx */
    const struct field *f;        /* the entry that opened it; NULL for root/ignored */
    void *base;                   /* record its children write into */
    uint64_t seen;                /* entries already seen (duplicate check) */
};

struct pstate {
    struct sched_request *req;
    char *err;
    size_t errlen;
    int code;                     /* first error, 0 if none */

    struct frame stack[LIM_XML_DEPTH];
    int depth;
    long nelements;
    int root_seen;

    size_t text_len;              /* bytes stored in text */
    size_t text_total;            /* bytes seen (may exceed text_len) */

    /* the open <stderr_out> */
    char *se_dst;
    size_t se_len, se_cap;
    int se_full;

    int rfiles;                   /* output files of the open result */

    int cap_results, cap_sticky, cap_av, cap_or, cap_ip;

    /* first libxml2 messages: fatal, and any error */
    char xml_fatal[256];
    int xml_fatal_line;
    char xml_error[256];
    int xml_error_line;

    /* text of the open leaf element (leading whitespace skipped); last, so
     * that the set-up does not need to clear it */
    char text[SRQ_TEXT_BUF];
};

static locale_t c_locale;        /* "C" numbers, whatever the process locale */
static int srq_initialised;

/* ------------------------------------------------------------------ */
/* Errors                                                               */

/* Append to out (size outsz, NUL-terminated) an escaped excerpt of the
 * len bytes at s: printable ASCII as is, '"' and '\\' backslashed, other
 * bytes as \xNN; longer than SRQ_QUOTE_MAX source bytes -> "...". */
static void quote_text(char *out, size_t outsz, const char *s, size_t len)
{
    size_t o = strlen(out);
    size_t n = len > SRQ_QUOTE_MAX ? SRQ_QUOTE_MAX : len;
    for (size_t i = 0; i < n && o + 5 < outsz; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
        }
    }
    if (len > n && o + 4 < outsz) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o < outsz ? o : outsz - 1] = '\0';
}

/* Record the first error: code and a one-line message.  Returns code. */
__attribute__((format(printf, 3, 4)))
static int fail(struct pstate *st, int code, const char *fmt, ...)
{
    if (st->code)
        return st->code;
    st->code = code;
    if (st->err && st->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->err, st->errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Name of the nearest named element among the frames below index top,
 * for messages. */
static const char *name_below(const struct pstate *st, int top)
{
    for (int i = top - 1; i >= 0; i--)
        if (st->stack[i].f)
            return st->stack[i].f->name;
    return "scheduler_request";
}

/* Name of the element that holds the open frames' top, for messages. */
static const char *parent_name(const struct pstate *st)
{
    return name_below(st, st->depth);
}

/* libxml2's structured error handler of our reader: keep the first fatal
 * error and the first error, one line, escaped.  Inside <authenticator>
 * the message is replaced, as it could quote part of the key. */
#if LIBXML_VERSION >= 21200
static void xml_error_cb(void *ctx, const xmlError *e)
#else
static void xml_error_cb(void *ctx, xmlErrorPtr e)
#endif
{
    struct pstate *st = ctx;
    char *dst;
    int *line;
    if (!st || !e || e->level < XML_ERR_ERROR)
        return;
    if (e->level == XML_ERR_FATAL && !st->xml_fatal[0]) {
        dst = st->xml_fatal;
        line = &st->xml_fatal_line;
    } else if (!st->xml_error[0]) {
        dst = st->xml_error;
        line = &st->xml_error_line;
    } else {
        return;
    }
    *line = e->line;
    if (st->depth > 0 && st->stack[st->depth - 1].f &&
        (st->stack[st->depth - 1].f->flags & F_SECRET)) {
        snprintf(dst, 256, "malformed content in <%s>", st->stack[st->depth - 1].f->name);
        return;
    }
    const char *m = e->message ? e->message : "unknown error";
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == '\r' || m[n - 1] == ' '))
        n--;
    /* quote_text caps at SRQ_QUOTE_MAX; messages deserve more room */
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < 256; i++) {
        unsigned char c = (unsigned char)m[i];
        if (c >= 0x20 && c < 0x7f)
            dst[o++] = (char)c;
        else if (c == '\n' || c == '\t')
            dst[o++] = ' ';
        else
            o += (size_t)snprintf(dst + o, 256 - o, "\\x%02x", c);
    }
    dst[o] = '\0';
}

/* Silent handlers for anything libxml2 reports outside our reader. */
#if LIBXML_VERSION >= 21200
static void silent_structured(void *ctx, const xmlError *e)
#else
static void silent_structured(void *ctx, xmlErrorPtr e)
#endif
{
    (void)ctx;
    (void)e;
}

static void silent_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* ------------------------------------------------------------------ */
/* Numbers                                                              */

static int is_xml_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Check that s[0..len) (already trimmed) is a decimal number:
 * [+-] digits [. digits] [e [+-] digits], or [+-] . digits [...].
 * No hex, no inf/nan, no junk.  int_only: no fraction or exponent.
 * Returns 1 if it is. */
static int number_syntax_ok(const char *s, size_t len, int int_only)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        i++;
        digits++;
    }
    if (int_only)
        return digits > 0 && i == len;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t ed = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            ed++;
        }
        if (ed == 0)
            return 0;
    }
    return i == len;
}

/* Parse the trimmed text of a numeric leaf (s, NUL-terminated, len bytes)
 * into *out, checking syntax and finiteness; the range is checked by the
 * caller.  Returns 0, or SRQ_ERR_NUMBER with the error recorded. */
static int parse_number(struct pstate *st, const struct field *f, const char *s,
                        size_t len, double *out)
{
    char q[128] = "";
    int int_only = f->kind != K_DBL;
    if (len == 0)
        return fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: empty, a number is required",
                    f->name, parent_name(st));
    if (!number_syntax_ok(s, len, int_only)) {
        quote_text(q, sizeof q, s, len);
        return fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" is not %s", f->name,
                    parent_name(st), q, int_only ? "an integer" : "a decimal number");
    }
    if (int_only) {
        /* exact integer arithmetic; more than 18 digits is out of any range */
        size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
        long long v = 0;
        while (i < len && s[i] == '0')
            i++;
        if (len - i > 18) {
            quote_text(q, sizeof q, s, len);
            return fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" out of range", f->name,
                        parent_name(st), q);
        }
        for (; i < len; i++)
            v = v * 10 + (s[i] - '0');
        *out = s[0] == '-' ? -(double)v : (double)v;
        return 0;
    }
    errno = 0;
    char *end = NULL;
    double v = c_locale ? strtod_l(s, &end, c_locale) : strtod(s, &end);
    if (end != s + len || !isfinite(v)) {
        quote_text(q, sizeof q, s, len);
        return fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" %s", f->name, parent_name(st),
                    q, isfinite(v) ? "is not a number" : "out of range (not finite)");
    }
    *out = v;
    return 0;
}

/* Format v in the shortest of %.15g/%.16g/%.17g that reads back exactly,
 * with a '.' decimal point whatever the process locale. */
static void fmt_double(char *buf, size_t sz, double v)
{
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sz, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (old)
        uselocale(old);
}

/* ------------------------------------------------------------------ */
/* Elements                                                             */

/* Find the entry of ctx named name (nlen bytes); NULL if unknown. */
static const struct field *lookup(int ctx, const char *name, size_t nlen)
{
    const struct ctx_table *t = &ctx_tables[ctx];
    for (int i = 0; i < t->n; i++) {
        const struct field *f = &t->fields[i];
        if (f->len == nlen && f->name[0] == name[0] && memcmp(f->name, name, nlen) == 0)
            return f;
    }
    return NULL;
}

/* Append a zeroed element to a heap array of the request, growing it
 * geometrically up to lim elements.  Returns the element, or NULL with
 * the error recorded (SRQ_ERR_LIMIT or SRQ_ERR_NOMEM). */
static void *arr_push(struct pstate *st, void **arr, int *n, int *cap, size_t elsize, int lim,
                      const char *what)
{
    if (*n >= lim) {
        fail(st, SRQ_ERR_LIMIT, "too many <%s> elements (max %d)", what, lim);
        return NULL;
    }
    if (*n >= *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        if (ncap > lim)
            ncap = lim;
        void *p = realloc(*arr, (size_t)ncap * elsize);
        if (!p) {
            fail(st, SRQ_ERR_NOMEM, "out of memory for <%s> (%d elements)", what, *n + 1);
            return NULL;
        }
        *arr = p;
        *cap = ncap;
    }
    char *el = (char *)*arr + (size_t)*n * elsize;
    memset(el, 0, elsize);
    (*n)++;
    return el;
}

/* Open a container entry f under frame parent: create its record if it
 * is an array member and fill frame fr.  Returns 0 or a negative code. */
static int enter_node(struct pstate *st, const struct frame *parent, const struct field *f,
                      struct frame *fr)
{
    struct sched_request *r = st->req;
    fr->ctx = f->sub;
    fr->f = f;
    fr->base = parent->base;
    fr->seen = 0;
    switch (f->sub) {
    case CTX_ALT:
        if (r->n_alt_platforms >= SRQ_MAX_ALT_PLATFORMS)
            return fail(st, SRQ_ERR_LIMIT, "too many <alt_platform> elements (max %d)",
                        SRQ_MAX_ALT_PLATFORMS);
        fr->base = r->alt_platforms[r->n_alt_platforms++];
        break;
    case CTX_COPROC:
    case CTX_GPU: {
        if (r->ncoprocs >= LIM_COPROC_TYPES)
            return fail(st, SRQ_ERR_LIMIT, "too many coprocessor types in <coprocs> (max %d)",
                        LIM_COPROC_TYPES);
        struct req_coproc *c = &r->coprocs[r->ncoprocs++];
        memset(c, 0, sizeof *c);
        if (f->sub == CTX_GPU)
            snprintf(c->type, sizeof c->type, "%s", gpu_types[f->off]);
        fr->base = c;
        break;
    }
    case CTX_RESULT:
        fr->base = arr_push(st, (void **)&r->results, &r->nresults, &st->cap_results,
                            sizeof(RR), LIM_REPORTED_RESULTS, "result");
        st->rfiles = 0;
        break;
    case CTX_RFILE:
        if (++st->rfiles > LIM_RESULT_FILES)
            return fail(st, SRQ_ERR_LIMIT, "too many output <file_info> in <result> (max %d)",
                        LIM_RESULT_FILES);
        break;
    case CTX_STICKY:
        fr->base = arr_push(st, (void **)&r->sticky_files, &r->nsticky_files, &st->cap_sticky,
                            sizeof(RS), LIM_STICKY_FILES, "file_info");
        break;
    case CTX_AV:
        fr->base = arr_push(st, (void **)&r->app_versions, &r->napp_versions, &st->cap_av,
                            sizeof(RA), LIM_CLIENT_APP_VERSIONS, "app_version");
        break;
    case CTX_OR: {
        RO *o = arr_push(st, (void **)&r->other_results, &r->nother_results, &st->cap_or,
                         sizeof(RO), LIM_IP_RESULTS, "other_result");
        if (o)
            o->app_version = -1;
        fr->base = o;
        break;
    }
    case CTX_ORS:
        r->have_other_results = 1;
        break;
    case CTX_IPS:
        r->have_ip_results = 1;
        break;
    case CTX_IP:
        fr->base = arr_push(st, (void **)&r->ip_results, &r->nip_results, &st->cap_ip,
                            sizeof(RI), LIM_IP_RESULTS, "ip_result");
        break;
    default:
        break;
    }
    return fr->base ? 0 : st->code;
}

/* Append n bytes to the open <stderr_out>, truncating at the field size
 * without splitting a UTF-8 sequence. */
static void stderr_append(struct pstate *st, const char *s, size_t n)
{
    if (st->se_full || !n)
        return;
    size_t room = st->se_cap - 1 - st->se_len;
    if (n > room) {
        n = room;
        /* do not cut a multi-byte character: drop continuation bytes and
         * the lead byte of the character they belong to */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        st->se_full = 1;
    }
    memcpy(st->se_dst + st->se_len, s, n);
    st->se_len += n;
    st->se_dst[st->se_len] = '\0';
}

/* Store the collected text of leaf f into its record.  Returns 0 or a
 * negative code. */
static int finish_leaf(struct pstate *st, const struct frame *fr)
{
    const struct field *f = fr->f;
    char *dst = (char *)fr->base + f->off;
    size_t len = st->text_len;
    char q[128] = "";
    while (len && is_xml_space((unsigned char)st->text[len - 1]))
        len--;
    st->text[len] = '\0';

    if (f->kind == K_STR) {
        if (st->text_total > st->text_len || len > f->size - 1) {
            size_t shown = st->text_total > st->text_len ? st->text_total : len;
            if (f->flags & F_SECRET)
                return fail(st, SRQ_ERR_LIMIT, "<%s> in <%s>: too long (%zu bytes, max %u)",
                            f->name, parent_name(st), shown, f->size - 1);
            quote_text(q, sizeof q, st->text, len);
            return fail(st, SRQ_ERR_LIMIT, "<%s> in <%s>: too long (%zu bytes, max %u): \"%s\"",
                        f->name, parent_name(st), shown, f->size - 1, q);
        }
        memcpy(dst, st->text, len + 1);
        return 0;
    }

    if (st->text_total > st->text_len) {
        quote_text(q, sizeof q, st->text, st->text_len);
        return fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: number too long (%zu bytes): \"%s\"",
                    f->name, parent_name(st), st->text_total, q);
    }
    double v = 0;
    int rc = parse_number(st, f, st->text, len, &v);
    if (rc)
        return rc;
    if ((v < f->min || v > f->max) && !((f->flags & F_M1) && v == -1.0)) {
        char lo[40], hi[40];
        fmt_double(lo, sizeof lo, f->min);
        fmt_double(hi, sizeof hi, f->max);
        quote_text(q, sizeof q, st->text, len);
        return fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" out of range [%s, %s]%s", f->name,
                    parent_name(st), q, lo, hi, (f->flags & F_M1) ? " or -1" : "");
    }
    switch (f->kind) {
    case K_INT: {
        int iv = (int)v;
        memcpy(dst, &iv, sizeof iv);
        break;
    }
    case K_I64: {
        long long lv = (long long)v;
        memcpy(dst, &lv, sizeof lv);
        break;
    }
    default:
        memcpy(dst, &v, sizeof v);
        if (f->flags & F_HAVECPU)
            st->req->have_cpu_req_secs = 1;
        break;
    }
    return 0;
}

/* Push frame fr.  The depth was checked by the caller. */
static void push(struct pstate *st, const struct frame *fr)
{
    st->stack[st->depth++] = *fr;
}

/* Close the top element (name: its name, empty: it was <x/>).
 * Returns 0 or a negative code. */
static int on_end(struct pstate *st, const char *name, int empty)
{
    if (st->depth <= 0)
        return fail(st, SRQ_ERR_XML, "unbalanced end tag");
    struct frame *fr = &st->stack[--st->depth];
    switch (fr->ctx) {
    case CTX_LEAF:
        return finish_leaf(st, fr);
    case CTX_STDERR:
        if (fr->f) {             /* </stderr_out> itself */
            st->se_dst = NULL;
        } else if (!empty) {
            stderr_append(st, "</", 2);
            stderr_append(st, name, strlen(name));
            stderr_append(st, ">", 1);
        }
        return 0;
    default:
        return 0;
    }
}

/* An element starts.  Returns 0 or a negative code. */
static int on_start(struct pstate *st, xmlTextReaderPtr rd)
{
    const char *name = (const char *)xmlTextReaderConstName(rd);
    int empty = xmlTextReaderIsEmptyElement(rd) == 1;
    struct frame fr = { CTX_IGNORE, NULL, NULL, 0 };
    char q[128] = "";
    if (!name)
        return fail(st, SRQ_ERR_NOMEM, "out of memory reading an element name");
    size_t nlen = strlen(name);

    if (++st->nelements > LIM_XML_ELEMENTS) {
        quote_text(q, sizeof q, name, nlen);
        return fail(st, SRQ_ERR_LIMIT, "more than %d elements (at <%s>)", LIM_XML_ELEMENTS, q);
    }
    if (st->depth >= LIM_XML_DEPTH) {
        quote_text(q, sizeof q, name, nlen);
        return fail(st, SRQ_ERR_LIMIT, "elements nested deeper than %d (at <%s>)",
                    LIM_XML_DEPTH, q);
    }

    if (st->depth == 0) {
        if (st->root_seen)
            return fail(st, SRQ_ERR_XML, "a second root element");
        st->root_seen = 1;
        if (strcmp(name, "scheduler_request") != 0) {
            quote_text(q, sizeof q, name, nlen);
            return fail(st, SRQ_ERR_XML, "root element is <%s>, expected <scheduler_request>", q);
        }
        fr.ctx = CTX_ROOT;
        fr.base = st->req;
        push(st, &fr);
        return empty ? on_end(st, name, 1) : 0;
    }

    struct frame *parent = &st->stack[st->depth - 1];
    switch (parent->ctx) {
    case CTX_IGNORE:
        break;
    case CTX_STDERR:
        /* keep child elements of <stderr_out> as text, as the client wrote them */
        fr.ctx = CTX_STDERR;
        stderr_append(st, "<", 1);
        stderr_append(st, name, nlen);
        stderr_append(st, empty ? "/>" : ">", empty ? 2 : 1);
        break;
    case CTX_LEAF:
        quote_text(q, sizeof q, name, nlen);
        return fail(st, SRQ_ERR_XML, "<%s> in <%s>: unexpected child element <%s>",
                    parent->f->name, name_below(st, st->depth - 1), q);
    default: {
        const struct field *f = lookup(parent->ctx, name, nlen);
        if (!f)
            break;               /* unknown: ignore the subtree */
        uint64_t bit = (uint64_t)1 << (f - ctx_tables[parent->ctx].fields);
        if ((parent->seen & bit) && !(f->flags & F_MULTI))
            return fail(st, SRQ_ERR_XML, "duplicate <%s> in <%s>", f->name, parent_name(st));
        parent->seen |= bit;
        fr.f = f;
        fr.base = parent->base;
        switch (f->kind) {
        case K_NODE: {
            int rc = enter_node(st, parent, f, &fr);
            if (rc)
                return rc;
            break;
        }
        case K_FLAG: {
            int one = 1;
            memcpy((char *)parent->base + f->off, &one, sizeof one);
            fr.ctx = CTX_IGNORE;
            break;
        }
        case K_STDERR:
            fr.ctx = CTX_STDERR;
            st->se_dst = (char *)parent->base + f->off;
            st->se_cap = f->size;
            st->se_len = 0;
            st->se_full = 0;
            st->se_dst[0] = '\0';
            break;
        default:
            fr.ctx = CTX_LEAF;
            st->text_len = 0;
            st->text_total = 0;
            break;
        }
        break;
    }
    }
    push(st, &fr);
    return empty ? on_end(st, name, 1) : 0;
}

/* Text or CDATA inside an element.  Returns 0 or a negative code. */
static int on_text(struct pstate *st, xmlTextReaderPtr rd, int cdata)
{
    if (st->depth == 0)
        return 0;
    const struct frame *fr = &st->stack[st->depth - 1];
    if (fr->ctx != CTX_LEAF && fr->ctx != CTX_STDERR)
        return 0;                /* text of containers and ignored elements */
    if (fr->ctx == CTX_LEAF && cdata)
        return fail(st, fr->f->kind == K_STR ? SRQ_ERR_XML : SRQ_ERR_NUMBER,
                    "<%s> in <%s>: CDATA section not allowed here", fr->f->name,
                    name_below(st, st->depth - 1));
    const char *v = (const char *)xmlTextReaderConstValue(rd);
    if (!v)
        return fail(st, SRQ_ERR_NOMEM, "out of memory reading text");
    size_t n = strlen(v);
    if (fr->ctx == CTX_STDERR) {
        stderr_append(st, v, n);
        return 0;
    }
    if (st->text_total == 0)
        while (n && is_xml_space((unsigned char)*v)) {
            v++;
            n--;
        }
    st->text_total += n;
    size_t room = sizeof st->text - 1 - st->text_len;
    size_t c = n < room ? n : room;
    memcpy(st->text + st->text_len, v, c);
    st->text_len += c;
    return 0;
}

/* Number of newlines in b[0..n). */
static int count_lines(const char *b, size_t n)
{
    int lines = 0;
    for (const char *p = b; (p = memchr(p, '\n', n - (size_t)(p - b))) != NULL; p++)
        lines++;
    return lines;
}

/* Refuse a DOCTYPE (or any other markup declaration) in the prolog before
 * libxml2 could read an internal subset: skip a UTF-8 BOM, whitespace, the
 * XML declaration, processing instructions and comments up to the root
 * start tag.  Anything not recognised is left to libxml2.  Returns 0 or
 * SRQ_ERR_XML. */
static int scan_prolog(struct pstate *st, const char *b, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (;;) {
        while (i < len && is_xml_space((unsigned char)b[i]))
            i++;
        if (len - i < 2 || b[i] != '<')
            return 0;
        if (b[i + 1] == '?') {
            const char *e = memmem(b + i + 2, len - i - 2, "?>", 2);
            if (!e)
                return 0;
            i = (size_t)(e - b) + 2;
        } else if (b[i + 1] == '!') {
            if (len - i >= 4 && memcmp(b + i, "<!--", 4) == 0) {
                const char *e = memmem(b + i + 4, len - i - 4, "-->", 3);
                if (!e)
                    return 0;
                i = (size_t)(e - b) + 3;
            } else if (len - i >= 9 && memcmp(b + i, "<!DOCTYPE", 9) == 0) {
                return fail(st, SRQ_ERR_XML, "DOCTYPE not allowed (line %d)",
                            1 + count_lines(b, i));
            } else {
                return fail(st, SRQ_ERR_XML,
                            "markup declaration not allowed before the root element");
            }
        } else {
            return 0;
        }
    }
}

/* Line of the reader's current node (the parser's own line is ahead). */
static int node_line(xmlTextReaderPtr rd)
{
    xmlNodePtr n = xmlTextReaderCurrentNode(rd);
    return n ? (int)xmlGetLineNo(n) : 0;
}

/* Options of the reader: no entity substitution (no XML_PARSE_NOENT), no
 * DTD loading or validation, no network, no XInclude; the body is always
 * read as UTF-8 whatever its XML declaration says. */
#define SRQ_XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_IGNORE_ENC | XML_PARSE_COMPACT)

int sched_request_parse(const char *body, size_t len, struct sched_request *req,
                        char *err, size_t errlen)
{
    struct pstate st;
    xmlTextReaderPtr rd = NULL;
    int ret = 0;

    if (err && errlen)
        err[0] = '\0';
    if (!req) {
        if (err && errlen)
            snprintf(err, errlen, "no request structure");
        return SRQ_ERR_MISSING;
    }
    memset(req, 0, sizeof *req);
    req->duration_correction_factor = 1.0;
    req->on_frac = req->connected_frac = req->cpu_and_network_available_frac = -1.0;
    req->active_frac = req->gpu_active_frac = -1.0;

    memset(&st, 0, offsetof(struct pstate, text));
    st.req = req;
    st.err = err;
    st.errlen = errlen;

    if (!srq_initialised)
        sched_request_init();

    if (len > LIM_REQUEST_BYTES) {
        fail(&st, SRQ_ERR_TOO_BIG, "request body of %zu bytes is over the limit of %d bytes",
             len, LIM_REQUEST_BYTES);
        goto out;
    }
    if (!body || len == 0) {
        fail(&st, SRQ_ERR_XML, "empty request body");
        goto out;
    }
    const char *nul = memchr(body, '\0', len);
    if (nul) {
        fail(&st, SRQ_ERR_XML, "NUL byte in the request body (line %d, offset %zu)",
             1 + count_lines(body, (size_t)(nul - body)), (size_t)(nul - body));
        goto out;
    }
    if (scan_prolog(&st, body, len))
        goto out;

    rd = xmlReaderForMemory(body, (int)len, NULL, "UTF-8", SRQ_XML_OPTIONS);
    if (!rd) {
        fail(&st, SRQ_ERR_NOMEM, "cannot create the XML reader");
        goto out;
    }
    xmlTextReaderSetStructuredErrorHandler(rd, xml_error_cb, &st);

    while ((ret = xmlTextReaderRead(rd)) == 1) {
        int rc = 0;
        switch (xmlTextReaderNodeType(rd)) {
        case XML_READER_TYPE_ELEMENT:
            rc = on_start(&st, rd);
            break;
        case XML_READER_TYPE_END_ELEMENT: {
            const char *name = (const char *)xmlTextReaderConstName(rd);
            rc = on_end(&st, name ? name : "?", 0);
            break;
        }
        case XML_READER_TYPE_TEXT:
        case XML_READER_TYPE_WHITESPACE:
        case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
            rc = on_text(&st, rd, 0);
            break;
        case XML_READER_TYPE_CDATA:
            rc = on_text(&st, rd, 1);
            break;
        case XML_READER_TYPE_PROCESSING_INSTRUCTION: {
            const char *name = (const char *)xmlTextReaderConstName(rd);
            char q[128] = "";
            quote_text(q, sizeof q, name ? name : "", name ? strlen(name) : 0);
            rc = fail(&st, SRQ_ERR_XML, "processing instruction <?%s?> not allowed (line %d)",
                      q, node_line(rd));
            break;
        }
        case XML_READER_TYPE_DOCUMENT_TYPE:
        case XML_READER_TYPE_DOCUMENT_FRAGMENT:
        case XML_READER_TYPE_NOTATION:
            rc = fail(&st, SRQ_ERR_XML, "DOCTYPE not allowed");
            break;
        case XML_READER_TYPE_ENTITY_REFERENCE:
        case XML_READER_TYPE_ENTITY:
        case XML_READER_TYPE_END_ENTITY: {
            const char *name = (const char *)xmlTextReaderConstName(rd);
            char q[128] = "";
            quote_text(q, sizeof q, name ? name : "", name ? strlen(name) : 0);
            rc = fail(&st, SRQ_ERR_XML, "entity reference &%s; not allowed (line %d)", q,
                      node_line(rd));
            break;
        }
        default:                 /* comments, XML declaration */
            break;
        }
        if (rc)
            break;
    }
    if (!st.code && ret < 0) {
        if (st.xml_fatal[0])
            fail(&st, SRQ_ERR_XML, "XML error at line %d: %s", st.xml_fatal_line, st.xml_fatal);
        else if (st.xml_error[0])
            fail(&st, SRQ_ERR_XML, "XML error at line %d: %s", st.xml_error_line, st.xml_error);
        else
            fail(&st, SRQ_ERR_XML, "XML error (no detail from the parser)");
    }
    if (!st.code && !st.root_seen)
        fail(&st, SRQ_ERR_XML, "no root element");
    if (!st.code && st.depth != 0)
        fail(&st, SRQ_ERR_XML, "document ends inside <%s>", parent_name(&st));
    if (!st.code)
        st.code = sched_request_validate(req, err, errlen);

out:
    if (rd)
        xmlFreeTextReader(rd);
    if (st.code) {
        sched_request_free(req);
        memset(req, 0, sizeof *req);
    }
    return st.code;
}

/* ------------------------------------------------------------------ */
/* Validation of the whole request                                      */

/* Write a one-line message into err and return code. */
__attribute__((format(printf, 4, 5)))
static int verr(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

int sched_request_validate(const struct sched_request *req, char *err, size_t errlen)
{
    const double days = LIM_REQ_SECS_PER_INSTANCE / 86400.0;
    char v[40], m[40], q[128];

    if (!req->authenticator[0])
        return verr(err, errlen, SRQ_ERR_MISSING, "<authenticator> is missing or empty");
    if (!req->platform_name[0])
        return verr(err, errlen, SRQ_ERR_MISSING, "<platform_name> is missing or empty");

    int ncpus = req->p_ncpus > 1 ? req->p_ncpus : 1;
    double lim = LIM_REQ_SECS_PER_INSTANCE * ncpus;
    if (!(req->cpu_req_secs <= lim)) {
        fmt_double(v, sizeof v, req->cpu_req_secs);
        fmt_double(m, sizeof m, lim);
        return verr(err, errlen, SRQ_ERR_NUMBER,
                    "<cpu_req_secs>: \"%s\" is over %g days per instance (max %s for %d CPUs)",
                    v, days, m, ncpus);
    }

    double ninst = ncpus;
    for (int i = 0; i < req->ncoprocs; i++) {
        const struct req_coproc *c = &req->coprocs[i];
        if (!c->type[0])
            return verr(err, errlen, SRQ_ERR_MISSING, "<coproc> #%d in <coprocs> has no <type>",
                        i + 1);
        q[0] = '\0';
        quote_text(q, sizeof q, c->type, strlen(c->type));
        if (strcasecmp(c->type, "CPU") == 0)
            return verr(err, errlen, SRQ_ERR_XML, "<coprocs>: coprocessor type \"%s\" is reserved",
                        q);
        for (int j = 0; j < i; j++)
            if (strcmp(req->coprocs[j].type, c->type) == 0)
                return verr(err, errlen, SRQ_ERR_XML,
                            "<coprocs>: duplicate coprocessor type \"%s\"", q);
        int count = c->count > 1 ? c->count : 1;
        double clim = LIM_REQ_SECS_PER_INSTANCE * count;
        if (!(c->req_secs <= clim)) {
            fmt_double(v, sizeof v, c->req_secs);
            fmt_double(m, sizeof m, clim);
            return verr(err, errlen, SRQ_ERR_NUMBER,
                        "<req_secs> of coprocessor \"%s\": \"%s\" is over %g days per instance "
                        "(max %s for %d instances)", q, v, days, m, count);
        }
        ninst += count;
    }
    if (!(req->work_req_seconds <= LIM_REQ_SECS_PER_INSTANCE * ninst)) {
        fmt_double(v, sizeof v, req->work_req_seconds);
        fmt_double(m, sizeof m, LIM_REQ_SECS_PER_INSTANCE * ninst);
        return verr(err, errlen, SRQ_ERR_NUMBER,
                    "<work_req_seconds>: \"%s\" is over %g days per instance (max %s for %g "
                    "instances)", v, days, m, ninst);
    }

    for (int i = 0; i < req->nresults; i++)
        if (!req->results[i].name[0])
            return verr(err, errlen, SRQ_ERR_MISSING, "reported <result> #%d has no <name>",
                        i + 1);
    for (int i = 0; i < req->nsticky_files; i++)
        if (!req->sticky_files[i].name[0])
            return verr(err, errlen, SRQ_ERR_MISSING, "sticky <file_info> #%d has no <name>",
                        i + 1);
    for (int i = 0; i < req->napp_versions; i++)
        if (!req->app_versions[i].app_name[0])
            return verr(err, errlen, SRQ_ERR_MISSING, "<app_version> #%d has no <app_name>",
                        i + 1);
    for (int i = 0; i < req->nother_results; i++) {
        const struct req_other_result *o = &req->other_results[i];
        if (!o->name[0])
            return verr(err, errlen, SRQ_ERR_MISSING, "<other_result> #%d has no <name>", i + 1);
        if (o->app_version < -1 || o->app_version >= req->napp_versions) {
            q[0] = '\0';
            quote_text(q, sizeof q, o->name, strlen(o->name));
            return verr(err, errlen, SRQ_ERR_NUMBER,
                        "<app_version> of <other_result> \"%s\": index %d, but %d <app_version> "
                        "listed", q, o->app_version, req->napp_versions);
        }
    }
    for (int i = 0; i < req->nip_results; i++)
        if (!req->ip_results[i].name[0])
            return verr(err, errlen, SRQ_ERR_MISSING, "<ip_result> #%d has no <name>", i + 1);
    return SRQ_OK;
}

/* ------------------------------------------------------------------ */
/* Dump                                                                 */

/* Print s escaped: printable ASCII as is, '\\' doubled, \n \r \t, other
 * bytes as \xNN; so every value fits on its line. */
static void dump_escaped(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p >= 0x20 && *p < 0x7f)
                fputc(*p, out);
            else
                fprintf(out, "\\x%02x", *p);
        }
    }
}

static void dump_s(FILE *out, const char *pre, const char *key, const char *s)
{
    fprintf(out, "%s%s=", pre, key);
    dump_escaped(out, s);
    fputc('\n', out);
}

static void dump_d(FILE *out, const char *pre, const char *key, double v)
{
    char b[40];
    fmt_double(b, sizeof b, v);
    fprintf(out, "%s%s=%s\n", pre, key, b);
}

static void dump_i(FILE *out, const char *pre, const char *key, long long v)
{
    fprintf(out, "%s%s=%lld\n", pre, key, v);
}

void sched_request_dump(const struct sched_request *r, FILE *out)
{
    char p[64];
    const char *t = "";

    /* the key itself is never printed: this text may end up in a log */
    fprintf(out, "authenticator=(%zu bytes, not shown)\n", strlen(r->authenticator));
    dump_i(out, t, "hostid", r->hostid);
    dump_i(out, t, "rpc_seqno", r->rpc_seqno);
    dump_i(out, t, "core_client_major_version", r->core_client_major_version);
    dump_i(out, t, "core_client_minor_version", r->core_client_minor_version);
    dump_i(out, t, "core_client_release", r->core_client_release);
    dump_s(out, t, "platform_name", r->platform_name);
    dump_i(out, t, "n_alt_platforms", r->n_alt_platforms);
    for (int i = 0; i < r->n_alt_platforms && i < SRQ_MAX_ALT_PLATFORMS; i++) {
        snprintf(p, sizeof p, "alt_platforms[%d]", i);
        dump_s(out, p, "", r->alt_platforms[i]);
    }
    dump_i(out, t, "have_code_sign_key", r->have_code_sign_key);
    dump_d(out, t, "resource_share_fraction", r->resource_share_fraction);
    dump_d(out, t, "duration_correction_factor", r->duration_correction_factor);
    dump_i(out, t, "dont_send_work", r->dont_send_work);
    dump_d(out, t, "work_req_seconds", r->work_req_seconds);
    dump_d(out, t, "cpu_req_secs", r->cpu_req_secs);
    dump_d(out, t, "cpu_req_instances", r->cpu_req_instances);
    dump_d(out, t, "estimated_delay", r->estimated_delay);
    dump_i(out, t, "have_cpu_req_secs", r->have_cpu_req_secs);
    dump_d(out, t, "on_frac", r->on_frac);
    dump_d(out, t, "connected_frac", r->connected_frac);
    dump_d(out, t, "cpu_and_network_available_frac", r->cpu_and_network_available_frac);
    dump_d(out, t, "active_frac", r->active_frac);
    dump_d(out, t, "gpu_active_frac", r->gpu_active_frac);
    dump_s(out, t, "host_cpid", r->host_cpid);
    dump_s(out, t, "domain_name", r->domain_name);
    dump_s(out, t, "ip_addr", r->ip_addr);
    dump_i(out, t, "timezone", r->timezone);
    dump_i(out, t, "p_ncpus", r->p_ncpus);
    dump_s(out, t, "p_vendor", r->p_vendor);
    dump_s(out, t, "p_model", r->p_model);
    dump_d(out, t, "p_fpops", r->p_fpops);
    dump_d(out, t, "p_iops", r->p_iops);
    dump_d(out, t, "p_membw", r->p_membw);
    dump_d(out, t, "m_nbytes", r->m_nbytes);
    dump_d(out, t, "m_cache", r->m_cache);
    dump_d(out, t, "m_swap", r->m_swap);
    dump_d(out, t, "d_total", r->d_total);
    dump_d(out, t, "d_free", r->d_free);
    dump_s(out, t, "os_name", r->os_name);
    dump_s(out, t, "os_version", r->os_version);
    dump_i(out, t, "n_usable_coprocs", r->n_usable_coprocs);
    dump_d(out, t, "d_boinc_used_total", r->d_boinc_used_total);
    dump_d(out, t, "d_boinc_used_project", r->d_boinc_used_project);
    dump_d(out, t, "d_project_share", r->d_project_share);
    dump_d(out, t, "work_buf_min_days", r->work_buf_min_days);
    dump_d(out, t, "work_buf_additional_days", r->work_buf_additional_days);

    dump_i(out, t, "ncoprocs", r->ncoprocs);
    for (int i = 0; i < r->ncoprocs && i < LIM_COPROC_TYPES; i++) {
        const struct req_coproc *c = &r->coprocs[i];
        snprintf(p, sizeof p, "coprocs[%d].", i);
        dump_s(out, p, "type", c->type);
        dump_i(out, p, "count", c->count);
        dump_d(out, p, "peak_flops", c->peak_flops);
        dump_d(out, p, "req_secs", c->req_secs);
        dump_d(out, p, "req_instances", c->req_instances);
        dump_d(out, p, "estimated_delay", c->estimated_delay);
    }

    dump_i(out, t, "nresults", r->nresults);
    for (int i = 0; i < r->nresults; i++) {
        const struct req_reported_result *x = &r->results[i];
        snprintf(p, sizeof p, "results[%d].", i);
        dump_s(out, p, "name", x->name);
        dump_i(out, p, "state", x->state);
        dump_i(out, p, "exit_status", x->exit_status);
        dump_d(out, p, "final_cpu_time", x->final_cpu_time);
        dump_d(out, p, "final_elapsed_time", x->final_elapsed_time);
        dump_s(out, p, "platform", x->platform);
        dump_i(out, p, "version_num", x->version_num);
        dump_s(out, p, "plan_class", x->plan_class);
        dump_d(out, p, "peak_working_set_size", x->peak_working_set_size);
        dump_d(out, p, "peak_swap_size", x->peak_swap_size);
        dump_d(out, p, "peak_disk_usage", x->peak_disk_usage);
        dump_i(out, p, "upload_failed", x->upload_failed);
        dump_s(out, p, "stderr_out", x->stderr_out);
    }

    dump_i(out, t, "nsticky_files", r->nsticky_files);
    for (int i = 0; i < r->nsticky_files; i++) {
        const struct req_sticky_file *x = &r->sticky_files[i];
        snprintf(p, sizeof p, "sticky_files[%d].", i);
        dump_s(out, p, "name", x->name);
        dump_d(out, p, "nbytes", x->nbytes);
        dump_i(out, p, "status", x->status);
    }

    dump_i(out, t, "napp_versions", r->napp_versions);
    for (int i = 0; i < r->napp_versions; i++) {
        const struct req_app_version *x = &r->app_versions[i];
        snprintf(p, sizeof p, "app_versions[%d].", i);
        dump_s(out, p, "app_name", x->app_name);
        dump_i(out, p, "version_num", x->version_num);
        dump_s(out, p, "platform", x->platform);
        dump_s(out, p, "plan_class", x->plan_class);
        dump_d(out, p, "avg_ncpus", x->avg_ncpus);
        dump_d(out, p, "flops", x->flops);
        dump_s(out, p, "coproc_type", x->coproc_type);
        dump_d(out, p, "coproc_count", x->coproc_count);
    }

    dump_i(out, t, "have_other_results", r->have_other_results);
    dump_i(out, t, "nother_results", r->nother_results);
    for (int i = 0; i < r->nother_results; i++) {
        const struct req_other_result *x = &r->other_results[i];
        snprintf(p, sizeof p, "other_results[%d].", i);
        dump_s(out, p, "name", x->name);
        dump_i(out, p, "app_version", x->app_version);
        dump_s(out, p, "plan_class", x->plan_class);
    }

    dump_i(out, t, "have_ip_results", r->have_ip_results);
    dump_i(out, t, "nip_results", r->nip_results);
    for (int i = 0; i < r->nip_results; i++) {
        const struct req_ip_result *x = &r->ip_results[i];
        snprintf(p, sizeof p, "ip_results[%d].", i);
        dump_s(out, p, "name", x->name);
        dump_d(out, p, "report_deadline", x->report_deadline);
        dump_d(out, p, "time_remaining", x->time_remaining);
        dump_d(out, p, "avg_ncpus", x->avg_ncpus);
        dump_d(out, p, "ncudas", x->ncudas);
        dump_d(out, p, "natis", x->natis);
        dump_d(out, p, "nintel_gpus", x->nintel_gpus);
    }
}

/* ------------------------------------------------------------------ */
/* Set-up and clean-up                                                  */

void sched_request_free(struct sched_request *req)
{
    if (!req)
        return;
    free(req->results);
    req->results = NULL;
    req->nresults = 0;
    free(req->sticky_files);
    req->sticky_files = NULL;
    req->nsticky_files = 0;
    free(req->app_versions);
    req->app_versions = NULL;
    req->napp_versions = 0;
    free(req->other_results);
    req->other_results = NULL;
    req->nother_results = 0;
    free(req->ip_results);
    req->ip_results = NULL;
    req->nip_results = 0;
}

const char *sched_request_strerror(int code)
{
    switch (code) {
    case SRQ_OK: return "ok";
    case SRQ_ERR_TOO_BIG: return "request too big";
    case SRQ_ERR_XML: return "malformed XML";
    case SRQ_ERR_LIMIT: return "over a limit";
    case SRQ_ERR_NUMBER: return "bad number";
    case SRQ_ERR_MISSING: return "missing element";
    case SRQ_ERR_NOMEM: return "out of memory";
    default: return "unknown error";
    }
}

void sched_request_init(void)
{
    if (srq_initialised)
        return;
    xmlInitParser();
    /* nothing from libxml2 may reach stderr: errors of our readers go to
     * their own handler, everything else to these silent ones */
    xmlSetGenericErrorFunc(NULL, silent_generic);
    xmlSetStructuredErrorFunc(NULL, silent_structured);
    xmlThrDefSetGenericErrorFunc(NULL, silent_generic);
    xmlThrDefSetStructuredErrorFunc(NULL, silent_structured);
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    srq_initialised = 1;
}
