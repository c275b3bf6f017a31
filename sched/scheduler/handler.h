/*
 * handler.h - one scheduler request, from body to reply.
 *
 * sched_handle() parses the body, authenticates the host, handles its
 * reported results and sends jobs for each processing resource, all in one
 * database transaction, then writes the <scheduler_reply>.  It never fails
 * silently: every problem becomes a reply with a clear <message>, and a
 * request that fails changes nothing in the database.
 *
 * The same entry point serves the FastCGI program, the tests and the
 * emulator; the clock is injected through struct sched_ctx.
 */
#ifndef LOCSCHED_HANDLER_H
#define LOCSCHED_HANDLER_H

#include <time.h>

#include "app_cache.h"
#include "buf.h"
#include "code_sign_key.h"
#include "config.h"
#include "db.h"
#include "db_sched.h"
#include "edf.h"
#include "host_rhythm.h"
#include "scan_front.h"
#include "job_source.h"
#include "sched_limits.h"
#include "sched_request.h"
#include "upload_auth.h"

#define HANDLER_MAX_RSC (1 + LIM_COPROC_TYPES)

/* Why a resource that asked for work got none (machine-readable). */
enum no_work_reason {
    NW_NONE = 0,
    NW_NO_WORK,          /* supported, but no job is available now */
    NW_DEADLINE,         /* jobs exist but none would meet its deadline here */
    NW_NOT_SUPPORTED,    /* the project has no app version for this resource */
    NW_DONT_SEND,        /* the client said "no new tasks" */
    NW_NO_HOST_INFO,     /* the request lacks what an estimate needs */
    NW_FINISH_LINE,      /* a batch's last jobs: this host would finish them late */
    NW_DAILY_QUOTA,      /* the host got its daily quota of jobs (host_quota.h) */
    NW_YOUNG_BATCH       /* a new batch goes to idle CPUs first */
};
const char *no_work_reason_name(enum no_work_reason r);

/* One processing resource of the host during a request. */
struct rsc_state {
    char name[LIM_NAME_LEN + 1];   /* "CPU" or the coprocessor type */
    int is_cpu;
    int ninstances;
    double flops;                  /* per instance, before app version scale */
    double avail;                  /* fraction of time available */
    double req_secs;
    double req_instances;
    double estimated_delay;        /* seconds until an instance is free */
    double secs_filled;
    int njobs;
    int supported;                 /* the project has an app version for it */
    int refused_deadline;          /* candidates refused by the EDF check */
    int refused_finish;            /* candidates refused by a batch's finish line */
    int refused_young;             /* candidates of a young batch refused: no idle instance */
    enum no_work_reason reason;
    struct edf_queue q;
};

struct app_version;

/* A job accepted for this reply. */
struct sent_job {
    struct db_candidate cand;
    const struct app_version *av;
    int rsc;
    double flops;
    double est_runtime;
    int report_deadline;
    int resent;                    /* a lost job sent again (already claimed) */
};

/* A job the client holds that it should drop (<result_abort>, or
 * <result_abort_if_not_started> when the job is merely no longer needed). */
struct result_abort {
    char name[LIM_NAME_LEN + 1];
    int if_not_started;
};

struct request_state {
    struct sched_request req;
    time_t now;
    unsigned char auth_hash[32];
    struct db_user_row user;
    struct db_host_row host;
    struct db_hav_row havs[DB_MAX_HAV];
    int nhavs;
    int nhavs_db;                  /* havs[0..nhavs_db) exist in the database */
    struct db_hav_row havs_changed[DB_MAX_HAV];   /* of those, changed: written with the host */
    int nhavs_changed;
    struct db_reported_row *reported;   /* the reported results found by the look-up */
    int nreported_rows;
    /* locality: the host's teams, read by the look-up (teams_read) for the
     * host id the client gave; valid only if that is host.id */
    struct db_cursor_row teams[LOC_MAX_BATCHES];
    int nteams, teams_read;
    struct host_rhythm rhythm;     /* the host's, with this request's gap and reports */
    int hostid;
    int send_hostid;               /* tell the client its (new) hostid */
    int auth_failed;
    int wants_work;
    struct rsc_state rscs[HANDLER_MAX_RSC];
    int nrscs;
    struct sent_job jobs[LIM_JOBS_PER_REPLY];
    int njobs;
    int nreported;                 /* reports that changed a result */
    char note[256];                /* an extra message for the volunteer */
    /* the host's daily quota (sched/policy/host_quota.h): its standing
     * as the look-up read it (rs->host.standing is changed by the reports) */
    struct db_host_standing standing_was;
    long quota_limit;              /* jobs per day; -1: no quota */
    int quota_sent_today;          /* jobs sent today before this request */
    int quota_reached;             /* work was refused because of it */
    char quota_note[160];          /* the message saying so */
    int plain_window;              /* candidates of plain batches to read (candidate_limit()) */
    /* locality: plain candidates to read only if the locality ones do not
     * fill the request (send_work()); 0: none */
    int plain_later;
    /* locality: the first stretch this request decided outside a join
     * (batch_id > 0), written by the host update (db_host_update) */
    struct db_stretch_write stretch;
    /* locality: the host's team in each active locality batch, chosen by
     * the source's candidates (loc_chosen: they ran in this attempt) */
    struct loc_choice loc[LOC_MAX_BATCHES];
    int nloc, loc_chosen;
    /* locality: the sticky files the host listed, mapped to those batches
     * by the source's candidates (held_mapped), sorted by batch and file */
    struct loc_held_file *held;
    int nheld, held_mapped;
    /* lost jobs (lost_jobs.c): resent ones are in jobs[] too */
    int nresent;
    int nlost;
    struct result_abort *aborts;
    int naborts, cap_aborts;
    /* files the host should delete (locality) */
    char (*delete_files)[LIM_NAME_LEN + 1];
    int ndelete_files;
};

/* What happened, for tests, logs and benchmarks. */
/* STOP_SCHED_FILE (config.h) next to the configuration stops the project:
 * every request is answered <project_is_down/> (doc/admin-guide.md). */
struct sched_stats {
    int jobs_sent;
    int results_reported;
    int results_acked;
    int jobs_resent;               /* lost jobs sent again (included in jobs_sent) */
    int results_lost;              /* lost jobs marked lost */
    int results_aborted;           /* result aborts in the reply */
    unsigned long statements;
    unsigned long retries;         /* transactions run again (conflicts, lost connection) */
    int status;                    /* 0 ok, else the db or parse status */
    char outcome[32];              /* "ok", "malformed", "auth", "unavailable", ... */
};

struct sched_ctx {
    struct config cfg;
    struct db_conn *db;
    struct db_params dbp;
    struct app_cache apps;
    struct upload_key upload_key;
    char code_sign_key[CODE_SIGN_KEY_TEXT_MAX];   /* BOINC text format, empty if none */
    struct code_sign_watch code_sign_watch;       /* reloads it when the file changes */
    const struct job_source *source;
    time_t (*clock)(void);
    unsigned long nrequests;
    time_t db_down_until;          /* after a failure: answer "later" without trying */
    double short_fpops;            /* the smallest rsc_fpops_est of the last candidates read */
    struct scan_front plain_front; /* where the next read of plain candidates starts */
    /* lost jobs since the process started, for the summary in the log */
    unsigned long total_resent, total_lost, total_aborts;
};

/*
 * Set up a scheduler context from a config file: read the config, the
 * keys, and connect to the database (a failed connection is not fatal:
 * it is retried per request).  Returns 0 or -1 with a reason in err.
 */
int sched_ctx_init(struct sched_ctx *ctx, const char *config_path, char *err, size_t errlen);
void sched_ctx_free(struct sched_ctx *ctx);

/* Can the host run some version of app appid (platform and resource)? */
int handler_app_runnable(const struct sched_ctx *ctx, const struct request_state *rs, int appid);

/* The apps the host can run, at most max, into appids; returns the count. */
int handler_runnable_apps(const struct sched_ctx *ctx, const struct request_state *rs,
                          int *appids, int max);

/* The resource an app version runs on for this host, or -1. */
int handler_av_rsc(const struct request_state *rs, const struct app_version *av);

/* The app version to send a job of app appid with: the highest version on
 * a resource of the host (only those that still need work when
 * only_needing), coprocessors first.  NULL if none; *rsc gets its resource. */
const struct app_version *handler_choose_av(const struct sched_ctx *ctx,
                                           const struct request_state *rs, int appid,
                                           int only_needing, int *rsc);

/* The host's runtime correction for an app version (1 when unknown). */
double handler_av_correction(struct request_state *rs, int app_version_id);

/* A job's estimate on this host: app version, resource, speed, times. */
struct job_estimate {
    const struct app_version *av;
    int rsc;
    double flops;                  /* of the app version on the resource */
    double runtime;                /* seconds of computing */
    double wall;                   /* with the resource's availability */
    double delay;                  /* seconds until an instance is free (client's estimate) */
};

/* For the tail source (job_source_tail.c): estimate candidate c on this
 * host; 0 when no app version fits a resource that still needs work. */
int handler_job_estimate(struct sched_ctx *ctx, struct request_state *rs,
                         const struct db_candidate *c, struct job_estimate *e);

/* Would job c fit with report deadline `deadline` (the WS2 check; always
 * under WS1), and would this host finish it by its batch's finish line? */
int handler_job_fits(const struct sched_ctx *ctx, struct request_state *rs,
                     const struct db_candidate *c, const struct job_estimate *e, int deadline);

/* Add a job already claimed (a backup made by the tail source) to the
 * reply, with its deadline.  Returns -1 when out of memory. */
int handler_add_claimed(struct request_state *rs, const struct db_candidate *c,
                        const struct job_estimate *e, int deadline);

/* Handle one request body and write the reply into out (reset first). */
void sched_handle(struct sched_ctx *ctx, const char *body, size_t len, struct buf *out,
                  struct sched_stats *stats);

#endif
