/*
 * request_internal.h - what the parts of the scheduler request parser
 * share (sched/wire/sched_request.c and request_*.c); not for other code.
 *
 * The parser is table driven (see sched_request.c): each context (the
 * root, <host_info>, a reported <result>, ...) has a table of the child
 * elements it keeps.  The tables, the whole-request checks and the dump of
 * each section of the request live in their own file:
 *   request_host.c      identity, host info, preferences, coprocessors and
 *                       the work request (the root table);
 *   request_results.c   reported results;
 *   request_held.c      what the client holds: app versions, other results,
 *                       in-progress results;
 *   request_files.c     the sticky file list;
 * request_elements.c applies the tables to the elements as they come,
 * request_text.c has the shared quoting, number formatting and dump helpers.
 */
#ifndef LOCSCHED_REQUEST_INTERNAL_H
#define LOCSCHED_REQUEST_INTERNAL_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched_request.h"

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
/* A GPU element: off holds the index of its type name in srq_gpu_types[]. */
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

/* The table of one context. */
struct ctx_table {
    const struct field *fields;
    int n;
};

#define TABLE(t) { t, (int)(sizeof(t) / sizeof(t[0])) }

/* request_host.c */
extern const struct ctx_table srq_root_table, srq_alt_table, srq_wgp_table, srq_prefs_table,
    srq_time_table, srq_host_table, srq_disk_table, srq_coprocs_table, srq_coproc_table,
    srq_gpu_table;
/* Type names of the vendor GPU elements (BOINC's proc_type_name_xml()). */
extern const char *const srq_gpu_types[4];
/* request_results.c */
extern const struct ctx_table srq_result_table, srq_rfile_table;
/* request_held.c */
extern const struct ctx_table srq_avs_table, srq_av_table, srq_avcoproc_table, srq_ors_table,
    srq_or_table, srq_ips_table, srq_ip_table;
/* request_files.c */
extern const struct ctx_table srq_sticky_table;

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

    void *xml_ctxt;               /* the libxml2 parser (sched_request.c) */
    int skip_end;                 /* the next end event closes an empty element */

    /* first libxml2 messages: fatal, and any error */
    char xml_fatal[256];
    int xml_fatal_line;
    char xml_error[256];
    int xml_error_line;

    /* text of the open leaf element (leading whitespace skipped); last, so
     * that the set-up does not need to clear it */
    char text[SRQ_TEXT_BUF];
};


/* ---- request_text.c ---- */

extern locale_t srq_c_locale;    /* "C" numbers, whatever the process locale */

/* Append to out (size outsz, NUL-terminated) an escaped excerpt of the
 * len bytes at s: printable ASCII as is, '"' and '\\' backslashed, other
 * bytes as \xNN; longer than SRQ_QUOTE_MAX source bytes -> "...". */
void srq_quote_text(char *out, size_t outsz, const char *s, size_t len);

/* Format v in the shortest of %.15g/%.16g/%.17g that reads back exactly,
 * with a '.' decimal point whatever the process locale. */
void srq_fmt_double(char *buf, size_t sz, double v);

/* Write a one-line message into err and return code. */
__attribute__((format(printf, 4, 5)))
int srq_verr(char *err, size_t errlen, int code, const char *fmt, ...);

/* Dump lines "<pre><key>=<value>" (strings escaped onto one line). */
void srq_dump_s(FILE *out, const char *pre, const char *key, const char *s);
void srq_dump_d(FILE *out, const char *pre, const char *key, double v);
void srq_dump_i(FILE *out, const char *pre, const char *key, long long v);

/* ---- request_elements.c ---- */

/* Record the first error: code and a one-line message.  Returns code. */
__attribute__((format(printf, 3, 4)))
int srq_fail(struct pstate *st, int code, const char *fmt, ...);

/* Name of the nearest named element among the frames below index top,
 * and of the element that holds the open frames' top, for messages. */
const char *srq_name_below(const struct pstate *st, int top);
const char *srq_parent_name(const struct pstate *st);

int srq_is_xml_space(unsigned char c);

/* Append n bytes to the open <stderr_out>, truncating at the field size
 * without splitting a UTF-8 sequence. */
void srq_stderr_append(struct pstate *st, const char *s, size_t n);

/* An element starts (name: nlen bytes; empty: it is <x/>), an element
 * ends.  Return 0 or a negative code. */
int srq_on_start(struct pstate *st, const char *name, int empty);
int srq_on_end(struct pstate *st, const char *name, int empty);

/* ---- the whole-request checks and the dump of each section ---- */

int srq_validate_host(const struct sched_request *req, char *err, size_t errlen);
int srq_validate_results(const struct sched_request *req, char *err, size_t errlen);
int srq_validate_files(const struct sched_request *req, char *err, size_t errlen);
int srq_validate_held(const struct sched_request *req, char *err, size_t errlen);
void srq_dump_host(const struct sched_request *r, FILE *out);
void srq_dump_results(const struct sched_request *r, FILE *out);
void srq_dump_files(const struct sched_request *r, FILE *out);
void srq_dump_held(const struct sched_request *r, FILE *out);

#endif
