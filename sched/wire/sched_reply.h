/*
 * sched_reply.h - the description of a <scheduler_reply> and its writer.
 *
 * The scheduler fills a struct sched_reply completely (see
 * sched/scheduler/reply_build.c): every string, file and number the reply
 * carries, already decided and already loaded.  sched_reply_write() only
 * turns it into the XML that the BOINC client 7.20 accepts (see
 * doc/protocol.md for the elements and why each is sent); it does no I/O
 * but the output buffer, and knows nothing of the database or the
 * scheduler's state.  Strings are borrowed: they must outlive the write.
 *
 * A job is written in the order the client links its parts: its app and
 * app version (each the first time a job of the reply uses it), the app
 * version's files before it, the job's input files (each the first time),
 * the workunit, the output file and the result.
 */
#ifndef LOCSCHED_SCHED_REPLY_H
#define LOCSCHED_SCHED_REPLY_H

#include "buf.h"
#include "sched_limits.h"

#define REPLY_MAX_MESSAGES 8
#define REPLY_MAX_RSC (1 + LIM_COPROC_TYPES)
/* every resource of the host, and the three GPU types the client knows */
#define REPLY_MAX_NO_RSC_APPS (REPLY_MAX_RSC + 3)

/* <message priority="...">text</message> */
struct reply_message {
    const char *priority;          /* "notice", "low", ... */
    const char *text;
};

/* <app> */
struct reply_app {
    const char *name;
    const char *user_friendly_name;   /* "" : not sent */
};

/* One file of an app version: its <file_info> and its <file_ref>. */
struct reply_av_file {
    const char *name;
    const char *url;
    const char *signature;         /* "" : not sent */
    const char *md5_cksum;
    double nbytes;
    const char *open_name;         /* "" : not sent */
    int main_program;
    int copy_file;
};

/* <app_version> with its files */
struct reply_app_version {
    const char *app_name;
    int version_num;
    const char *platform;
    const char *plan_class;        /* "" : not sent */
    double avg_ncpus;
    double flops;
    const char *api_version;       /* "" : not sent */
    const char *cmdline;           /* "" : not sent */
    const char *coproc_type;       /* "" : no <coproc> */
    double coproc_count;
    const struct reply_av_file *files;
    int nfiles;
};

/* An input file's <file_info>. */
struct reply_file {
    const char *name;
    const char *url;               /* "" : download_url + "/" + name */
    const char *download_url;
    const char *md5_cksum;         /* "" : not sent */
    double nbytes;                 /* <= 0 : not sent */
    int sticky;
};

/* A workunit's reference to an input file, opened as "in_<open_index>". */
struct reply_file_ref {
    int file;                      /* index into sched_reply.files */
    int open_index;
};

/* One job: workunit, output file and result. */
struct reply_job {
    int app;                       /* index into sched_reply.apps */
    int app_version;               /* index into sched_reply.app_versions */
    const struct reply_file_ref *inputs;
    int ninputs;
    const char *wu_name;
    const char *command_line;
    double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
    const char *result_name;
    int report_deadline;
    const char *out_name;          /* the output file */
    const char *upload_url;
    long long max_nbytes;
    const char *xml_signature;
    int report_immediately;
};

enum reply_abort_kind {
    REPLY_ABORT,                   /* <result_abort> */
    REPLY_ABORT_IF_NOT_STARTED     /* <result_abort_if_not_started> */
};

/* A result the client must abort. */
struct reply_abort {
    const char *name;
    enum reply_abort_kind kind;
};

/* <rsc_no_work> for a resource that asked for work and got none, and its
 * message for the volunteer. */
struct reply_no_work {
    const char *rsc;
    const char *reason;            /* machine-readable */
    const char *message;           /* sent with priority "low" */
};

/* What the client shows the volunteer of the account (BOINC's tags). */
struct reply_account {
    const char *user_name;         /* NULL: none of this is sent */
    double user_total_credit, user_expavg_credit;
    int user_create_time;
    double host_total_credit, host_expavg_credit;
};

struct sched_reply {
    const char *project_name;
    const char *master_url;        /* "" : not sent */
    int project_is_down;           /* <project_is_down/>: the client processes nothing else */
    int hostid;                    /* > 0 : sent (the host's new id) */
    struct reply_account account;
    struct reply_message messages[REPLY_MAX_MESSAGES];
    int nmessages;
    int send_full_workload;
    const char *code_sign_key;     /* NULL or "" : not sent */
    const char *no_rsc_apps[REPLY_MAX_NO_RSC_APPS];
    int nno_rsc_apps;
    const char *const *acks;       /* names of reported results */
    int nacks;
    const struct reply_app *apps;
    int napps;
    const struct reply_app_version *app_versions;
    int napp_versions;
    const struct reply_file *files;
    int nfiles;
    const struct reply_job *jobs;
    int njobs;
    const char *const *delete_files;   /* <delete_file_info> */
    int ndelete_files;
    const struct reply_abort *aborts;
    int naborts;
    struct reply_no_work no_work[REPLY_MAX_RSC];
    int nno_work;
    int request_delay;             /* < 0 : not sent */
    int next_rpc_delay;            /* call back within (BOINC's); <= 0: not sent */
};

/* Write the reply into out (reset first). */
void sched_reply_write(struct buf *out, const struct sched_reply *r);

#endif
