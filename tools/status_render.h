/*
 * status_render.h - the project's status page and its batch pages as
 * static HTML with inline SVG charts (no JavaScript), rendered from an
 * in-memory description.  Pure: no database, no files, no clock (the
 * caller passes "now").  Output is appended to a struct buf (check its
 * oom flag once at the end).  The markup is also well-formed XML, so
 * tests can parse it strictly.
 *
 * Accessibility: one h1 per page and h2 per section, every table has a
 * caption and header cells, every chart is an <svg role="img"> with a
 * <title> and a <desc> and its numbers are also in a table, and every
 * state is written in words (colour only repeats it).
 */
#ifndef LOCSCHED_STATUS_RENDER_H
#define LOCSCHED_STATUS_RENDER_H

#include "batch_render.h"
#include "buf.h"

#define SR_HOURS 24       /* the hourly charts cover the last 24 hours */
#define SR_MINUTES 60     /* the scheduler chart covers the last 60 minutes */

/* One daemon instance, as its status row says (db_status.h). */
struct sr_daemon {
    char name[64];
    char hostname[256];
    int mod_n, mod_i;
    int pid;
    int start_time, last_pass_time;
    long long last_items, npasses;
    int sleep_secs, last_error_time, stopped;
};

enum sr_daemon_state { SR_RUNNING = 0, SR_STOPPED = 1, SR_SILENT = 2, SR_FAILING = 3 };

/*
 * What a daemon is doing at now: SR_STOPPED when it said it stopped;
 * SR_SILENT when no pass ended for longer than sr_silent_after(d);
 * SR_FAILING when its last pass failed; else SR_RUNNING.
 */
int sr_daemon_state(const struct sr_daemon *d, int now);
/* Seconds without a pass after which a daemon counts as silent. */
int sr_silent_after(const struct sr_daemon *d);
/* "running", "stopped", "not heard from", "failing". */
const char *sr_daemon_state_name(int state);

/* The scheduler's requests and errors per minute, from its log. */
struct sr_sched_minutes {
    int minute0;                       /* start of the oldest minute */
    long long requests[SR_MINUTES];
    long long errors[SR_MINUTES];
    int have_log;                      /* 0: no log was found */
};

/* A batch in the status page's list. */
struct sr_batch_line {
    int id;
    char name[256];
    int state;
    long long njobs, done;
    double fraction_done;
    int finish_eta;                    /* 0: not projected */
};

struct sr_status {
    char project[128];                 /* project name (title) */
    int now;
    struct sr_daemon *daemons;
    int ndaemons;
    struct sr_sched_minutes sched;
    long long unsent, in_progress;
    int hour0;                         /* start of the oldest hour */
    long long reported[SR_HOURS];      /* results reported per hour */
    long long hosts_active_day;
    double db_bytes;
    long long tr_backlog;              /* workunits due for a transition */
    int tr_oldest;                     /* the earliest one's due time; 0: none */
    struct sr_batch_line *batches;
    int nbatches;
};

/* The status page (index.html of the status folder). */
void sr_status_html(struct buf *out, const struct sr_status *s);

/* One hour of a batch's completion: jobs finished in [hour, hour+3600). */
struct sr_hour {
    int hour;
    long long n;
};

/* BOINC's validate_state codes 0..5 (INIT, VALID, INVALID, NO_CHECK,
 * INCONCLUSIVE, TOO_LATE). */
#define SR_VALIDATE_STATES 6
const char *sr_validate_state_name(int state);

struct sr_batch_page {
    char project[128];
    int now;
    struct br_batch *b;                /* computed (br_batch_compute) */
    int create_time, finish_eta, completion_time;
    const struct sr_hour *done_hours;  /* ascending */
    int ndone_hours;
    long long file_copies, files_on_hosts;
    double bytes_sent;
    long long validate[SR_VALIDATE_STATES];
    long long validate_other;          /* codes outside 0..5 */
};

/* The page of one batch (batch_ID.html). */
void sr_batch_html(struct buf *out, const struct sr_batch_page *p);

/* The file name of a batch's page: "batch_ID.html". */
void sr_batch_file(char *out, size_t len, int batch_id);

/* A time for people, UTC: "2026-11-25 04:31 UTC"; 0: "-". */
void sr_format_time(char *out, size_t len, int t);
/* A size for people: "812 B", "3.4 MB", "1.2 GB". */
void sr_format_bytes(char *out, size_t len, double bytes);
/* A duration for people: "42 s", "7 min", "3.5 h", "2.1 d". */
void sr_format_secs(char *out, size_t len, double secs);

#endif /* LOCSCHED_STATUS_RENDER_H */
