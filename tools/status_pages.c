/*
 * status_pages.c - write the project's status page and one page per batch
 * (static HTML with inline SVG, no JavaScript) into a folder that Apache
 * serves; run once a minute from a timer with --one-pass, or left running.
 *
 * Reads the database in one read-only snapshot per pass (db_status.h,
 * db_batch.h) and the tail of the scheduler's log; renders with
 * status_render.h; writes each page to a temporary file and renames it,
 * so a reader never sees half a page.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_load.h"
#include "db_status.h"
#include "status_log.h"
#include "status_render.h"
#include "tool_common.h"

#define PROG "status_pages"
#define LOG_TAIL_MAX (16L * 1024 * 1024)   /* bytes of the scheduler log read */
#define MAX_BATCHES 10000
#define MAX_DAEMONS 1000
#define MAX_HOURS 100000

static void usage(FILE *out)
{
    fprintf(out,
        "usage: status_pages [--config FILE] [--out DIR] [--sched-log FILE] [--one-pass]\n"
        "                    [--sleep S]\n"
        "\n"
        "Writes the server status page DIR/index.html and one page per batch that is\n"
        "not retired, DIR/batch_ID.html: static HTML with inline SVG charts, no\n"
        "JavaScript.  The status page shows each daemon on each host (running, last\n"
        "pass, lag; from the daemon_status table the daemons write), the scheduler's\n"
        "requests and errors per minute over the last hour (from its log), results\n"
        "unsent, in progress and reported per hour, hosts active in the last day, the\n"
        "transitioner's backlog and the database's size.  A batch page shows a\n"
        "progress bar per cursor, the ETA (batch.finish_eta), completion over time,\n"
        "the job space (as batch_status --svg), input files on hosts and bytes sent,\n"
        "and the reported results by validation state.\n"
        "\n"
        "  --config FILE    configuration (default $LOCSCHED_CONFIG, else ./locsched.conf)\n"
        "  --out DIR        where to write (default: html/status beside the configuration)\n"
        "  --sched-log FILE the log the scheduler's standard error goes to (Apache's\n"
        "                   error log under mod_fcgid; default LOG_DIR/scheduler.log);\n"
        "                   its last 16 MB are read\n"
        "  --one-pass       write the pages once and exit (for a timer)\n"
        "  --sleep S        without --one-pass: seconds between passes (default 60)\n"
        "\n"
        "Exit status: 0; 1 when the database or a page could not be read or written;\n"
        "2 on a bad command line.\n");
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* Write data to dir/name through dir/.name.tmp and a rename. */
static int write_page(const char *dir, const char *name, const struct buf *data)
{
    char tmp[4096], path[4096];
    FILE *f;
    int ok;
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name) >= sizeof tmp ||
        (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        fprintf(stderr, PROG ": path too long in %s\n", dir);
        return -1;
    }
    f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, PROG ": cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    ok = fwrite(data->p, 1, data->len, f) == data->len;
    if (fclose(f) != 0)
        ok = 0;
    if (ok && chmod(tmp, 0644) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, PROG ": cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Count the scheduler's requests of the last hour from the log's tail. */
static void read_sched_log(const char *path, struct sr_sched_minutes *m)
{
    FILE *f = fopen(path, "r");
    long size, from;
    char *text;
    size_t n;
    if (!f)
        return;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) {
        fclose(f);
        return;
    }
    from = size > LOG_TAIL_MAX ? size - LOG_TAIL_MAX : 0;
    text = malloc((size_t)(size - from) + 1);
    if (!text || fseek(f, from, SEEK_SET) != 0) {
        free(text);
        fclose(f);
        return;
    }
    n = fread(text, 1, (size_t)(size - from), f);
    fclose(f);
    m->have_log = 1;
    sl_count(m, text, n, from > 0);
    free(text);
}

struct pass {
    struct db_conn *db;
    int now;
    struct sr_status st;
    struct br_batch *b;
    int nb, capb;
    int dcap;
    struct sr_hour *hours;
    int nhours, caphours;
    struct sr_batch_page page;
    const char *out_dir;
};

static int daemon_row(void *ctx, const struct db_daemon_status *r)
{
    struct pass *p = ctx;
    struct sr_daemon *d;
    if (p->st.ndaemons >= MAX_DAEMONS)
        return 0;
    if (p->st.ndaemons == p->dcap) {
        int cap = p->dcap ? p->dcap * 2 : 16;
        struct sr_daemon *v = realloc(p->st.daemons, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        p->st.daemons = v;
        p->dcap = cap;
    }
    d = &p->st.daemons[p->st.ndaemons++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", r->name);
    snprintf(d->hostname, sizeof d->hostname, "%s", r->hostname);
    d->mod_n = r->mod_n;
    d->mod_i = r->mod_i;
    d->pid = r->pid;
    d->start_time = r->start_time;
    d->last_pass_time = r->last_pass_time;
    d->last_items = r->last_items;
    d->npasses = r->npasses;
    d->sleep_secs = r->sleep_secs;
    d->last_error_time = r->last_error_time;
    d->stopped = r->stopped;
    return 0;
}

static int batch_row(void *ctx, const struct db_batch_row *r)
{
    struct pass *p = ctx;
    if (p->nb >= MAX_BATCHES)
        return 0;
    if (p->nb == p->capb) {
        int cap = p->capb ? p->capb * 2 : 16;
        struct br_batch *v = realloc(p->b, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        p->b = v;
        p->capb = cap;
    }
    bl_init(&p->b[p->nb++], r);
    return 0;
}

static int reported_row(void *ctx, int hour, long long n)
{
    struct pass *p = ctx;
    int k = (hour - p->st.hour0) / 3600;
    if (hour >= p->st.hour0 && k >= 0 && k < SR_HOURS)
        p->st.reported[k] += n;
    return 0;
}

static int hour_row(void *ctx, int hour, long long n)
{
    struct pass *p = ctx;
    if (p->nhours >= MAX_HOURS)
        return 0;
    if (p->nhours == p->caphours) {
        int cap = p->caphours ? p->caphours * 2 : 64;
        struct sr_hour *v = realloc(p->hours, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        p->hours = v;
        p->caphours = cap;
    }
    p->hours[p->nhours].hour = hour;
    p->hours[p->nhours].n = n;
    p->nhours++;
    return 0;
}

static int validate_row(void *ctx, int state, long long n)
{
    struct sr_batch_page *pg = ctx;
    if (state >= 0 && state < SR_VALIDATE_STATES)
        pg->validate[state] += n;
    else
        pg->validate_other += n;
    return 0;
}

/* Read and write one batch's page. */
static int batch_page(struct pass *p, struct br_batch *b, struct buf *out)
{
    struct sr_batch_page *pg = &p->page;
    char file[64];
    int r;
    memset(pg, 0, sizeof *pg);
    snprintf(pg->project, sizeof pg->project, "%s", p->st.project);
    pg->now = p->now;
    pg->b = b;
    p->nhours = 0;
    r = db_status_batch_times(p->db, b->id, &pg->create_time, &pg->finish_eta,
                              &pg->completion_time);
    if (r == DB_OK)
        r = db_status_batch_done_per_hour(p->db, b->id, hour_row, p);
    if (r == DB_OK)
        r = db_status_batch_files(p->db, b->id, &pg->file_copies, &pg->files_on_hosts,
                                  &pg->bytes_sent);
    if (r == DB_OK)
        r = db_status_batch_validate(p->db, b->id, validate_row, pg);
    if (r != DB_OK) {
        fprintf(stderr, PROG ": batch '%s' [batch#%d]: %s\n", b->name, b->id, db_error(p->db));
        return -1;
    }
    pg->done_hours = p->hours;
    pg->ndone_hours = p->nhours;
    buf_reset(out);
    sr_batch_html(out, pg);
    if (out->oom) {
        fprintf(stderr, PROG ": out of memory\n");
        return -1;
    }
    sr_batch_file(file, sizeof file, b->id);
    return write_page(p->out_dir, file, out);
}

static int one_pass(const struct config *cfg, struct db_conn *db, const char *out_dir,
                    const char *log_path)
{
    struct pass p;
    struct buf out;
    int i, r, rc = -1;

    memset(&p, 0, sizeof p);
    buf_init(&out);
    p.db = db;
    p.now = (int)time(NULL);
    p.out_dir = out_dir;
    {
        const char *name = cfg->project_name[0] ? cfg->project_name : "locsched project";
        size_t n = strlen(name);
        if (n >= sizeof p.st.project)
            n = sizeof p.st.project - 1;
        memcpy(p.st.project, name, n);
        p.st.project[n] = '\0';
    }
    p.st.now = p.now;
    p.st.hour0 = p.now - p.now % 3600 - (SR_HOURS - 1) * 3600;
    p.st.sched.minute0 = p.now - p.now % 60 - (SR_MINUTES - 1) * 60;

    r = db_status_daemons(db, daemon_row, &p);
    if (r == DB_OK)
        r = db_status_result_counts(db, &p.st.unsent, &p.st.in_progress);
    if (r == DB_OK)
        r = db_status_hosts_active(db, p.now - 86400, &p.st.hosts_active_day);
    if (r == DB_OK)
        r = db_status_db_bytes(db, &p.st.db_bytes);
    if (r == DB_OK)
        r = db_status_transition_backlog(db, p.now, &p.st.tr_backlog, &p.st.tr_oldest);
    if (r == DB_OK)
        r = db_batch_list(db, 0, batch_row, &p);
    if (r != DB_OK) {
        fprintf(stderr, PROG ": %s\n", db_error(db));
        goto out;
    }
    p.st.batches = calloc((size_t)(p.nb > 0 ? p.nb : 1), sizeof *p.st.batches);
    if (!p.st.batches)
        goto out;
    for (i = 0; i < p.nb; i++) {
        struct br_batch *b = &p.b[i];
        struct sr_batch_line *l = &p.st.batches[i];
        int ct, ft, ctime;
        if (bl_load(db, b, 1, PROG) != DB_OK)
            goto out;
        br_batch_compute(b);
        r = db_status_reported_per_hour(db, b->id, p.st.hour0, reported_row, &p);
        if (r == DB_OK)
            r = db_status_batch_times(db, b->id, &ct, &ft, &ctime);
        if (r != DB_OK) {
            fprintf(stderr, PROG ": batch '%s' [batch#%d]: %s\n", b->name, b->id,
                    db_error(db));
            goto out;
        }
        l->id = b->id;
        snprintf(l->name, sizeof l->name, "%s", b->name);
        l->state = b->state;
        l->njobs = b->njobs;
        l->done = b->jobs.done;
        l->fraction_done = b->fraction_done;
        l->finish_eta = ctime > 0 ? 0 : ft;
        if (batch_page(&p, b, &out) < 0)
            goto out;
    }
    p.st.nbatches = p.nb;
    read_sched_log(log_path, &p.st.sched);
    db_commit(db);     /* end the read snapshot */
    buf_reset(&out);
    sr_status_html(&out, &p.st);
    if (out.oom) {
        fprintf(stderr, PROG ": out of memory\n");
        goto out;
    }
    if (write_page(out_dir, "index.html", &out) < 0)
        goto out;
    rc = 0;
out:
    db_rollback(db);
    for (i = 0; i < p.nb; i++)
        bl_free(&p.b[i]);
    free(p.b);
    free(p.st.daemons);
    free(p.st.batches);
    free(p.hours);
    buf_free(&out);
    return rc;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *out_dir = NULL, *log_path = NULL;
    char out_buf[CONFIG_STR_MAX + 32], log_buf[CONFIG_STR_MAX + 32];
    int i, once = 0, rc;
    long sleep_secs = 60;
    struct config cfg;
    struct db_conn *db = NULL;
    struct sigaction sa;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--one-pass") == 0) {
            once = 1;
        } else if ((strcmp(a, "--config") == 0 || strcmp(a, "--out") == 0 ||
                    strcmp(a, "--sched-log") == 0 || strcmp(a, "--sleep") == 0)) {
            if (i + 1 >= argc) {
                fprintf(stderr, PROG ": %s needs a value\n", a);
                return 2;
            }
            if (strcmp(a, "--config") == 0)
                config = argv[++i];
            else if (strcmp(a, "--out") == 0)
                out_dir = argv[++i];
            else if (strcmp(a, "--sched-log") == 0)
                log_path = argv[++i];
            else if (tool_parse_long(argv[++i], 1, 86400, &sleep_secs) < 0) {
                fprintf(stderr, PROG ": --sleep wants whole seconds from 1 to 86400, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, PROG ": unknown argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (tool_open(PROG, config, &cfg, &db) < 0)
        return 1;
    if (!out_dir) {
        snprintf(out_buf, sizeof out_buf, "%s/html/status", cfg.config_dir);
        out_dir = out_buf;
    }
    if (!log_path) {
        snprintf(log_buf, sizeof log_buf, "%s/scheduler.log", cfg.log_dir);
        log_path = log_buf;
    }
    if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, PROG ": cannot make %s: %s\n", out_dir, strerror(errno));
        db_close(db);
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    for (;;) {
        rc = one_pass(&cfg, db, out_dir, log_path) < 0 ? 1 : 0;
        if (once || stop)
            break;
        for (i = 0; i < sleep_secs && !stop; i++)
            sleep(1);
        if (stop)
            break;
    }
    db_close(db);
    return once ? rc : 0;
}
