/*
 * replay_host.h - the simulated BOINC hosts of the load replay: request
 * templates made from recorded bodies, each host's state, building its
 * next request and taking in the reply.  Pure: no I/O, the time is passed
 * in (seconds since the start of the run).
 *
 * A template is a recorded <scheduler_request> with the host-specific
 * parts cut out: authenticator, hostid and rpc_seqno become slots filled
 * per host; reported <result>s, sticky <file_info>s, <code_sign_key>,
 * <app_versions>, <other_results> and <in_progress_results> are removed
 * and replaced by the host's own state, written in the order the BOINC
 * client 7.20 uses.  The work request (work_req_seconds, cpu_req_secs)
 * may be overridden.
 *
 * A host behaves like the client: it takes the hostid a reply gives it
 * (and restarts rpc_seqno at 0), echoes the code-signing key once it has
 * one, lists <in_progress_results> only after a reply carried
 * <send_full_workload/>, keeps the sticky files it was sent until told to
 * delete them, and reports each job run_seconds after receiving it, as a
 * success, until a reply acknowledges the report.
 */
#ifndef LOCSCHED_REPLAY_HOST_H
#define LOCSCHED_REPLAY_HOST_H

#include <stddef.h>

#include "buf.h"
#include "replay_reply.h"

enum rh_slot { RS_AUTH, RS_HOSTID, RS_SEQNO, RS_WORK_SECS, RS_CPU_SECS, RS_KEY, RS_STATE };

struct rh_mark {
    size_t off;            /* offset in skel where the slot's text goes */
    enum rh_slot slot;
};

#define RH_MAX_MARKS 8

struct rh_template {
    char name[256];        /* file name, for messages */
    char *skel;            /* the body with the host-specific parts cut out */
    size_t len;
    struct rh_mark marks[RH_MAX_MARKS];
    int nmarks;            /* sorted by offset */
    char work_secs[64];    /* the recorded values, used when not overridden */
    char cpu_secs[64];
};

/*
 * Make a template from a request body.  Returns 0, or -1 with a reason in
 * err (not a <scheduler_request>, no <authenticator>, <hostid> or
 * <rpc_seqno>, out of memory).  rh_template_free releases it.
 */
int rh_template_init(struct rh_template *t, const char *name, const char *body, size_t len,
                     char *err, size_t errlen);
void rh_template_free(struct rh_template *t);

struct rh_job {
    char *name;            /* heap */
    int av;                /* index into the host's app versions, -1 if unknown */
    double deadline;       /* Unix time */
    double est_secs;       /* estimated computing time */
    double recv_time;      /* run time when received */
};

struct rh_file {
    char *name;            /* heap */
    double nbytes;
};

struct rh_host {
    int index;
    const struct rh_template *tpl;
    const char *auth;
    long long hostid;      /* 0 until a reply gives one */
    long long seqno;
    int has_key;           /* a reply gave the code-signing key */
    int full_workload;     /* a reply asked for <in_progress_results> */
    int reported_once;     /* a reply acknowledged one of its reports */
    struct rh_job *jobs;   /* in progress */
    int njobs, capjobs;
    struct rh_job *done;   /* reported, waiting for an acknowledgement */
    int ndone, capdone;
    struct rh_file *files; /* sticky files held */
    int nfiles, capfiles;
    struct rp_av avs[RP_MAX_AVS];
    int navs;
    double not_before;     /* the last reply's request_delay, as run time */
};

struct rh_opts {
    double run_seconds;    /* a job is reported this long after it arrived */
    double work_secs;      /* < 0: the template's work request */
    const char *upload_url;/* written into reported output files */
    int max_report;        /* reported results per request (<= 256) */
    int max_files;         /* sticky files a host keeps (oldest dropped) */
};

/* Set up host index with its template and authenticator (both must
 * outlive the host). */
void rh_host_init(struct rh_host *h, int index, const struct rh_template *tpl, const char *auth);
void rh_host_free(struct rh_host *h);

/*
 * Write the host's next request into out (reset first).  Jobs whose run
 * is over are moved to the reported list; every job of that list is
 * reported.  key is the code-signing key text echoed once the host has
 * it (may be NULL).  *nreported gets the number of results reported.
 * Returns 0, or -1 when out of memory.
 */
int rh_build(struct rh_host *h, const struct rh_opts *o, double now, const char *key,
             struct buf *out, int *nreported);

/* What a reply did to a host. */
struct rh_outcome {
    int new_jobs;          /* jobs added to the host (names in the reply) */
    int acked;             /* reports acknowledged */
    int unacked;           /* reports sent and not acknowledged (re-sent next time) */
    int no_hostid;         /* a host without id got none */
    int new_hostid;        /* the reply gave a hostid */
};

/*
 * Take in a well-formed reply to the host's last request (built at run
 * time sent_at).  Returns 0, or -1 when out of memory.
 */
int rh_apply(struct rh_host *h, const struct rp_reply *r, const struct rh_opts *o,
             double now, struct rh_outcome *out);

/* Does the request of this template ask for work (with the options)? */
int rh_template_asks_work(const struct rh_template *t, const struct rh_opts *o);

#endif
