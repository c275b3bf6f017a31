/*
 * replay_reply.h - what the load replay needs of a <scheduler_reply>:
 * the hostid, the jobs sent (result, workunit, app version, sticky input
 * files), the acknowledged reports, files to delete, the request delay and
 * the messages, whether the request was handled at all, and the
 * reasons given for no work.  Parsed with libxml2's SAX interface (no tree is built, so
 * that the replay stays cheap next to the server it loads).  Pure: no I/O.
 */
#ifndef LOCSCHED_REPLAY_REPLY_H
#define LOCSCHED_REPLAY_REPLY_H

#include <stddef.h>

#define RP_NAME 256          /* names are at most 255 bytes (LIM_NAME_LEN) */
#define RP_SHORT 64
#define RP_MAX_JOBS 64       /* twice the protocol's jobs-per-reply cap */
#define RP_MAX_ACKS 512      /* twice the reported-results cap */
#define RP_MAX_FILES 512
#define RP_MAX_DELETES 512
#define RP_MAX_AVS 16
#define RP_MAX_NO_WORK 16    /* more than the scheduler's resources per reply */

struct rp_job {
    char name[RP_NAME];
    char wu_name[RP_NAME];
    double report_deadline;
    int version_num;
    char platform[RP_SHORT];
    char plan_class[RP_SHORT];
};

struct rp_wu {
    char name[RP_NAME];
    double rsc_fpops_est;
};

struct rp_file {
    char name[RP_NAME];
    double nbytes;
    int sticky;
};

struct rp_av {
    char app_name[RP_SHORT];
    int version_num;
    char platform[RP_SHORT];
    char plan_class[RP_SHORT];
    double avg_ncpus;
    double flops;
};

/* <rsc_no_work>: a resource that asked for work and got none, and why
 * (the scheduler's reason name: no_work, daily_quota, finish_line, ...). */
struct rp_no_work {
    char rsc[RP_SHORT];
    char reason[RP_SHORT];
};

struct rp_reply {
    int have_hostid;
    long long hostid;
    int have_request_delay;
    double request_delay;
    int send_full_workload;
    int project_is_down;
    int have_code_sign_key;
    char code_sign_key[2048];
    /* The scheduler handled the request: its reply carries the account
     * (<user_name>); a refused request gets a reply without it and with
     * one notice (the error replies of doc/protocol.md). */
    int have_account;
    int nnotices;                 /* <message> of a priority other than "low" */
    int ninfo_messages;           /* <message priority="low"> */
    char first_notice[256];       /* text of the first message not "low" */
    struct rp_no_work no_work[RP_MAX_NO_WORK];
    int nno_work;
    struct rp_job jobs[RP_MAX_JOBS];
    int njobs;
    struct rp_wu wus[RP_MAX_JOBS];
    int nwus;
    char acks[RP_MAX_ACKS][RP_NAME];
    int nacks;
    struct rp_file files[RP_MAX_FILES];
    int nfiles;
    char deletes[RP_MAX_DELETES][RP_NAME];
    int ndeletes;
    struct rp_av avs[RP_MAX_AVS];
    int navs;
    int overflow;                 /* more entries than the arrays hold */
};

/*
 * Parse a reply body of len bytes into *r (the struct is large: allocate
 * it once and reuse it).  Returns 0 for a well-formed document whose root
 * is <scheduler_reply>, -1 otherwise (*r then holds what was read before
 * the error).  No network access, no DTD or entity loading.
 */
int rp_parse(struct rp_reply *r, const char *body, size_t len);

/*
 * Is the reply a refusal: <project_is_down/>, or a message without the
 * account (the scheduler did not handle the request and says why)?  The
 * only replies the replay counts as error replies: a notice in a handled
 * reply (a daily quota reached, a copied host) is no error, and neither
 * is a resource that got no work.  (The benchmark's floor sends no
 * account, and a message only when it refuses.)
 */
int rp_refused(const struct rp_reply *r);

/* The workunit of a job in the same reply, or NULL. */
const struct rp_wu *rp_find_wu(const struct rp_reply *r, const char *wu_name);

#endif
