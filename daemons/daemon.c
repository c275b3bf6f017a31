/*
 * daemon.c - the daemons' skeleton: command line, configuration, log,
 * database, signals, stop file and the pass loop (see daemon.h).
 */
#include "daemon.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_daemon.h"
#include "db_status.h"
#include "log.h"

static volatile sig_atomic_t stop_signal;

static time_t system_now(void)
{
    return time(NULL);
}

time_t (*daemon_now)(void) = system_now;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void usage(FILE *out, const char *name, const char *what)
{
    fprintf(out,
            "usage: %s [--config FILE] [--one-pass] [--mod N I] [--sleep S] [--log] [--help]\n"
            "\n"
            "%s\n"
            "\n"
            "  --config FILE  configuration (default: $LOCSCHED_CONFIG, else ./locsched.conf)\n"
            "  --one-pass     do one pass and exit (status 1 if it failed)\n"
            "  --mod N I      handle only the items whose id %% N == I (0 <= I < N), so that\n"
            "                 N instances share the work\n"
            "  --sleep S      seconds to wait after a pass that found nothing to do (default 5)\n"
            "  --log          append the log to LOG_DIR/%s.log (log_dir of the configuration)\n"
            "                 instead of standard error\n"
            "\n"
            "Stops at SIGTERM, SIGINT or SIGHUP, or when the file %s exists in the\n"
            "configuration's folder (after finishing the unit of work in hand).\n",
            name, what, name, DAEMON_STOP_FILE);
}

/* Parse a whole decimal number in [min, max].  Returns 0 or -1. */
static int parse_int(const char *s, long min, long max, int *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

int daemon_should_stop(struct daemon *d)
{
    static time_t last_check;
    static int stop_file_seen;
    time_t t;

    if (stop_signal || stop_file_seen)
        return 1;
    t = time(NULL);
    if (t != last_check) {
        char path[CONFIG_STR_MAX + 32];
        last_check = t;
        snprintf(path, sizeof path, "%s/%s", d->cfg.config_dir, DAEMON_STOP_FILE);
        if (access(path, F_OK) == 0) {
            stop_file_seen = 1;
            log_info("stop file %s found: stopping", path);
        }
    }
    return stop_file_seen;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* restart interrupted database I/O; nanosleep() returns early anyway */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Sleep up to secs seconds, waking early when asked to stop. */
static void nap(struct daemon *d, int secs)
{
    int i;
    for (i = 0; i < secs && !daemon_should_stop(d); i++) {
        struct timespec ts = { 1, 0 };
        nanosleep(&ts, NULL);
    }
}

static struct db_conn *open_db(const struct config *cfg)
{
    struct db_params p;
    struct db_conn *db;
    char err[1024];

    memset(&p, 0, sizeof p);
    p.host = cfg->db_host;
    p.user = cfg->db_user;
    p.password = cfg->db_password;
    p.name = cfg->db_name;
    p.socket = cfg->db_socket;
    p.port = cfg->db_port;
    p.timeout = cfg->db_timeout;
    p.lock_wait_timeout = cfg->db_lock_wait_timeout;
    p.retries = cfg->db_retries;
    /* locking reads lock only the rows they return, as in the scheduler */
    p.read_committed = 1;
    db = db_open(&p, err, sizeof err);
    if (!db)
        log_error("cannot open the database: %s", err);
    return db;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* On a Galera cluster each node hands out ids in steps of the number of
 * nodes, so the rows created through one node share id % step: with
 * --mod N where N and the step have a common factor, some instances
 * would get all of them and others none.  Warn when connecting. */
static void check_mod_against_id_step(const struct daemon *d)
{
    int step = 1;
    if (d->mod_n <= 1)
        return;
    if (db_id_step(d->db, &step) != DB_OK) {
        log_debug("could not read the id step: %s", db_error(d->db));
        db_rollback(d->db);
        return;
    }
    db_rollback(d->db);
    if (step > 1 && gcd(d->mod_n, step) > 1)
        log_error("--mod %d: new ids step by %d here (auto_increment_increment, e.g. a "
                  "Galera cluster of %d nodes), so rows made through one node share id %% %d "
                  "and the instances will not share the work evenly; use an N with no "
                  "common factor with %d", d->mod_n, step, step, step, step);
}

/* Seconds between two writes of the daemon's status row while it works. */
#define STATUS_EVERY 10

/*
 * Write the daemon's row of daemon_status (db_status.h) in its own
 * transaction, for the status page.  A failure (a database not upgraded
 * yet, say) is logged once and otherwise ignored: the status row must
 * never stop the work.
 */
static void write_status(struct daemon *d, struct db_daemon_status *s)
{
    static int warned;
    if (!d->db)
        return;
    s->npasses = (long long)d->passes;
    if (db_status_daemon_write(d->db, s) != DB_OK || db_commit(d->db) != DB_OK) {
        if (!warned)
            log_warn("cannot write the status row (for the status page): %s",
                     db_error(d->db));
        warned = 1;
        db_rollback(d->db);
    }
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

long daemon_run_pass(struct daemon *d, daemon_pass_fn pass)
{
    d->now = daemon_now();
    d->passes++;
    return pass(d);
}

int daemon_main(int argc, char **argv, const char *name, const char *what,
                daemon_pass_fn pass, void *state)
{
    const char *config_path = NULL;
    struct daemon d;
    struct db_daemon_status status;
    time_t status_written = 0;
    FILE *log_stream = NULL;
    int to_log_dir = 0, rc = 0, i;
    char err[1024];

    memset(&d, 0, sizeof d);
    d.name = name;
    d.mod_n = 1;
    d.mod_i = 0;
    d.sleep_secs = 5;
    d.state = state;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, name, what);
            return 0;
        } else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else if (strcmp(a, "--one-pass") == 0) {
            d.one_pass = 1;
        } else if (strcmp(a, "--log") == 0) {
            to_log_dir = 1;
        } else if (strcmp(a, "--sleep") == 0 && i + 1 < argc) {
            if (parse_int(argv[++i], 0, 86400, &d.sleep_secs) < 0) {
                fprintf(stderr, "%s: --sleep wants whole seconds from 0 to 86400\n", name);
                return 2;
            }
        } else if (strcmp(a, "--mod") == 0 && i + 2 < argc) {
            if (parse_int(argv[i + 1], 1, INT_MAX, &d.mod_n) < 0 ||
                parse_int(argv[i + 2], 0, d.mod_n - 1, &d.mod_i) < 0) {
                fprintf(stderr, "%s: --mod wants N >= 1 and 0 <= I < N\n", name);
                return 2;
            }
            i += 2;
        } else {
            fprintf(stderr, "%s: unknown or incomplete argument '%s'\n", name, a);
            usage(stderr, name, what);
            return 2;
        }
    }

    if (config_load(&d.cfg, config_locate(config_path), err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 1;
    }
    if (to_log_dir) {
        char path[CONFIG_STR_MAX + 64];
        snprintf(path, sizeof path, "%s/%s.log", d.cfg.log_dir, name);
        log_stream = fopen(path, "a");
        if (!log_stream) {
            fprintf(stderr, "%s: cannot open log file %s: %s\n", name, path, strerror(errno));
            return 1;
        }
    }
    log_init(name, d.cfg.log_level, log_stream);
    install_signals();
    if (daemon_should_stop(&d)) {
        log_info("not starting: the stop file exists");
        goto done;
    }
    memset(&status, 0, sizeof status);
    snprintf(status.name, sizeof status.name, "%s", name);
    if (gethostname(status.hostname, sizeof status.hostname - 1) != 0)
        snprintf(status.hostname, sizeof status.hostname, "unknown");
    status.mod_n = d.mod_n;
    status.mod_i = d.mod_i;
    status.pid = (int)getpid();
    status.start_time = (int)time(NULL);
    status.sleep_secs = d.sleep_secs;
    log_info("starting (config %s, mod %d/%d, sleep %d s%s)", config_locate(config_path),
             d.mod_i, d.mod_n, d.sleep_secs, d.one_pass ? ", one pass" : "");

    while (!daemon_should_stop(&d)) {
        struct timespec t0;
        long n;
        double secs;

        if (!d.db && (d.db = open_db(&d.cfg)) != NULL)
            check_mod_against_id_step(&d);     /* at each (re)connection */
        if (!d.db) {
            if (d.one_pass) {
                rc = 1;
                break;
            }
            nap(&d, d.sleep_secs > 0 ? d.sleep_secs : 1);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t0);
        n = daemon_run_pass(&d, pass);
        secs = seconds_since(&t0);
        status.last_pass_time = (int)time(NULL);
        status.last_items = n < 0 ? -1 : n;
        if (n < 0)
            status.last_error_time = status.last_pass_time;
        if (n < 0 || d.one_pass || status_written == 0 ||
            time(NULL) - status_written >= STATUS_EVERY) {
            write_status(&d, &status);
            status_written = time(NULL);
        }
        if (n < 0) {
            log_error("pass %lu failed after %.3f s%s", d.passes, secs,
                      d.one_pass ? "" : "; trying again after a pause");
            if (d.one_pass) {
                rc = 1;
                break;
            }
            nap(&d, d.sleep_secs > 0 ? d.sleep_secs : 1);
            continue;
        }
        if (n > 0)
            log_info("pass %lu: %ld items in %.3f s (%.0f items/s)", d.passes, n, secs,
                     secs > 0 ? (double)n / secs : 0.0);
        else
            log_debug("pass %lu: nothing to do (%.3f s)", d.passes, secs);
        if (d.one_pass)
            break;
        if (n == 0)
            nap(&d, d.sleep_secs);
    }
    if (stop_signal)
        log_info("signal %d received: stopping", (int)stop_signal);
    status.stopped = 1;
    write_status(&d, &status);
done:
    log_info("stopped after %lu passes", d.passes);
    db_close(d.db);
    if (log_stream)
        fclose(log_stream);
    return rc;
}
