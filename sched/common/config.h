/*
 * config.h - locsched's configuration: one table of keys with type,
 * default and range (see config.c), read from a "key = value" file.
 *
 * File format: one setting per line, "name = value"; '#' starts a comment;
 * blank lines are ignored; values run to the end of the line (trailing
 * blanks removed).  An unknown key, a repeated key, a malformed number or
 * an out-of-range value is an error naming the file and the line.
 */
#ifndef LOCSCHED_CONFIG_H
#define LOCSCHED_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#define CONFIG_STR_MAX 1024

enum sched_policy { POLICY_WS1 = 1, POLICY_WS2 = 2 };

struct config {
    char config_dir[CONFIG_STR_MAX];   /* folder of the config file */

    /* project */
    char project_name[CONFIG_STR_MAX];
    char master_url[CONFIG_STR_MAX];
    char download_url[CONFIG_STR_MAX]; /* base URL of download/ */
    char upload_url[CONFIG_STR_MAX];   /* the file_upload_handler URL */
    char download_dir[CONFIG_STR_MAX];
    char upload_dir[CONFIG_STR_MAX];
    char log_dir[CONFIG_STR_MAX];
    char key_dir[CONFIG_STR_MAX];
    char record_dir[CONFIG_STR_MAX];

    /* database */
    char db_name[CONFIG_STR_MAX];
    char db_user[CONFIG_STR_MAX];
    char db_password[CONFIG_STR_MAX];
    char db_host[CONFIG_STR_MAX];      /* empty: use db_socket */
    char db_socket[CONFIG_STR_MAX];
    int db_port;
    int db_timeout;                    /* seconds: connect, read, write */
    int db_lock_wait_timeout;          /* seconds, innodb_lock_wait_timeout */
    int db_retries;                    /* tries for deadlock / lost connection */

    /* scheduler */
    int sched_policy;                  /* enum sched_policy */
    int max_jobs_per_reply;
    int min_request_delay;             /* seconds between RPCs we ask for */
    int overload_request_delay;        /* seconds, when the DB is unavailable */
    int project_is_down;               /* 1: every request gets <project_is_down/> */
    int no_work_request_delay;         /* seconds, when we had no work to send */
    int record_requests;               /* 1: save every request in record_dir */
    int report_immediately;            /* ask clients to report at once */
    int resend_lost_results;           /* resend or mark lost what a host lost */
    int candidate_factor;              /* candidates read per job wanted */
    double gpu_flops_scale;            /* fraction of GPU peak flops achieved */
    int log_level;                     /* 0 debug, 1 info, 2 warn, 3 error */

    /* locality */
    int team_size_min;
    int team_size_max;
    double move_ratio;                 /* move when est(C) < move_ratio * est(D) */
    int move_min_interval;             /* seconds a host stays before moving again */
    int host_idle_timeout;             /* seconds unseen before leaving its team */
    int work_cushion;                  /* unsent jobs kept per cursor */
    int locality_window;               /* unsent jobs of a cursor considered per request */
    int locality_file_preference;      /* 1: prefer jobs whose files the host holds */
    int locality_positions;            /* 1: each member works its own stretch */
    double credit_half_life;           /* seconds, BOINC's: one week */

    /* lost hosts and tail replicas (doc/locality.md) */
    int next_rpc_delay;                /* seconds: call back even with nothing to do */
    double lost_host_gap_factor;       /* silence limit: factor * (gap avg + 4 dev) */
    int lost_host_min_silence;         /* seconds: the floor of the limit */
    int lost_host_new_silence;         /* seconds: the limit without a rhythm */
    double tail_budget;                /* share of a batch's flops for backups */
    double tail_gain_ratio;            /* backup time <= ratio * original's remaining */
    double tail_deadline_factor;       /* backup deadline = factor * its expected time */
    int tail_min_reports;              /* reports before a host gets backups */
    int tail_candidates;               /* in-progress results considered */
    double finish_line_slack;          /* 0: off; see sched/policy/finish_line.h */
    int finish_line_young;             /* seconds a batch is young; 0: off */

    /* validator (doc/admin-guide.md "Validation") */
    char validator[CONFIG_STR_MAX];    /* none, identical or a command */
    int validate_timeout;              /* seconds the command may run */
    int daily_result_quota;            /* jobs per CPU per day; 0: no quota */
    double gpu_multiplier;             /* a GPU counts as this many CPUs for the quota */

    /* assimilator, file deleter, purge (doc/admin-guide.md "Outputs") */
    char results_dir[CONFIG_STR_MAX];  /* RESULTS_DIR/BATCH/: assimilated outputs */
    char assimilate_command[CONFIG_STR_MAX]; /* "": copy outputs into results_dir */
    int assimilate_timeout;            /* seconds the command may run */
    int assimilate_tries;              /* failed command runs before giving up */
    char archive_dir[CONFIG_STR_MAX];  /* where the purge writes its archives */
    double purge_min_age_days;         /* rows assimilated this long ago are purged */

    /* account web RPCs (sched/webrpc, doc/protocol.md) */
    int account_creation;              /* enum account_creation */
    char invitation_code[CONFIG_STR_MAX]; /* with ACCOUNT_CREATION_INVITATION */
    char terms_of_use_file[CONFIG_STR_MAX]; /* "": none */
    int min_passwd_length;             /* told to the client, which checks it */
    int min_client_version;            /* told to the client; 0: none */
    int create_account_limit;          /* create_account requests per address per window */
    int lookup_account_limit;          /* lookup_account requests per address per window */
    int account_rpc_window;            /* seconds of the rate-limit window */
};

enum account_creation {
    ACCOUNT_CREATION_OPEN = 0,
    ACCOUNT_CREATION_CLOSED = 1,
    ACCOUNT_CREATION_INVITATION = 2
};

/* The file that stops the project while it exists, next to the
 * configuration file (BOINC's convention: made and removed without a
 * restart). */
#define STOP_SCHED_FILE "stop_sched"

/* 1 when the administrator has stopped the project: project_is_down, or
 * the file STOP_SCHED_FILE in config_dir (one stat() per call). */
int config_project_stopped(const struct config *cfg);

/* 1 when a validator decides validity (validator is not "none"). */
int config_validating(const struct config *cfg);

/* Fill *cfg with the defaults of every key. */
void config_defaults(struct config *cfg);

/*
 * Read a config file over the defaults.  Returns 0, or -1 with a message
 * "FILE:LINE: reason" in err.  Relative directory settings are resolved
 * against the file's folder; unset directories default to subfolders of it.
 */
int config_load(struct config *cfg, const char *path, char *err, size_t errlen);

/*
 * Parse config text already in memory (name is used in messages).
 * Same rules as config_load; dir is the folder relative paths resolve to.
 */
int config_parse(struct config *cfg, const char *text, size_t len, const char *name,
                 const char *dir, char *err, size_t errlen);

/* Find the config file: explicit path, else $LOCSCHED_CONFIG, else
 * ./locsched.conf.  Returns a pointer to a static or given string. */
const char *config_locate(const char *explicit_path);

/* Print every key with its type, default and range (for --help-config and
 * the generated reference in doc/). */
void config_print_reference(FILE *out);

#endif /* LOCSCHED_CONFIG_H */
