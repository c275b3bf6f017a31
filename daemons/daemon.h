/*
 * daemon.h - the skeleton shared by locsched's daemons (work_generator,
 * transitioner, locality_daemon).
 *
 * The skeleton owns everything but the work: command line (--config,
 * --one-pass, --mod N I, --sleep S, --log, --help), configuration,
 * logging, the database connection, signals and the stop file, and the
 * loop.  A daemon supplies one function, "do one pass", which returns how
 * many items it handled; the skeleton sleeps only after a pass that did
 * nothing, so a backlog is worked off at full speed.
 *
 * Stopping: SIGTERM, SIGINT and SIGHUP only set a flag; so does the stop
 * file CONFIG_DIR/stop_daemons (checked at most once a second).  A pass
 * checks daemon_should_stop() between units of work and returns early;
 * each unit is its own transaction, so stopping never leaves half a unit.
 *
 * Errors: a pass logs what failed, with entity ids, and returns a
 * negative status; the skeleton then sleeps and tries again (the data
 * layer reconnects by itself).  Only a bad command line or configuration,
 * or a failure in --one-pass mode, ends the program with a non-zero
 * status.
 */
#ifndef LOCSCHED_DAEMON_H
#define LOCSCHED_DAEMON_H

#include <time.h>

#include "config.h"
#include "db.h"

/* Name of the stop file in the configuration's folder. */
#define DAEMON_STOP_FILE "stop_daemons"

struct daemon {
    const char *name;         /* program name: log prefix and log file name */
    struct config cfg;
    struct db_conn *db;       /* never NULL during a pass */
    int mod_n, mod_i;         /* handle only ids with id % mod_n == mod_i */
    int one_pass;
    int sleep_secs;
    time_t now;               /* the time the current pass started */
    unsigned long passes;     /* passes started so far */
    void *state;              /* the daemon's own data, if any */
};

/*
 * One pass over the daemon's work.  Returns the number of items handled
 * (0: nothing to do), or a negative db_status after logging the problem.
 */
typedef long (*daemon_pass_fn)(struct daemon *d);

/*
 * Run a daemon: parse argv, read the configuration, open the log and the
 * database, and call pass() until asked to stop.  "what" is the one-line
 * description --help prints.  Returns the process exit status (0 when
 * stopped normally, 1 on a failure in --one-pass mode or at start-up,
 * 2 on a bad command line).
 */
int daemon_main(int argc, char **argv, const char *name, const char *what,
                daemon_pass_fn pass, void *state);

/* True once a signal or the stop file asked the daemon to stop. */
int daemon_should_stop(struct daemon *d);

/*
 * The clock the daemons take "now" from (struct daemon.now, set at the
 * start of every pass).  It is the system clock unless a program that
 * simulates time (the emulator, test/emu) points it at its own clock.
 * The stop file's once-a-second check stays on the system clock.
 */
extern time_t (*daemon_now)(void);

/*
 * One pass in-process, for a program that drives the daemons itself (the
 * emulator): sets d->now from daemon_now(), counts the pass and calls
 * pass(d).  The caller fills d: name, cfg, an open db, mod_n and mod_i,
 * and the state the pass needs (daemon_passes.h).  Returns what pass()
 * returns; nothing is logged here.
 */
long daemon_run_pass(struct daemon *d, daemon_pass_fn pass);

#endif /* LOCSCHED_DAEMON_H */
