/*
 * db_test_util.h - shared set-up for the DB tests: open the scheduler
 * context of the test sandbox ($LOCSCHED_CONFIG), create users, an app
 * version and a batch, and build request bodies from a recorded one.
 */
#ifndef LOCSCHED_DB_TEST_UTIL_H
#define LOCSCHED_DB_TEST_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "handler.h"

/* Read a whole file (NUL-terminated); exits the test on failure. */
char *tu_read_file(const char *path, size_t *len);

/* Path of a file under test/ in the source tree ($srcdir aware). */
const char *tu_src_path(const char *rel);

/* Open a scheduler context on $LOCSCHED_CONFIG; exits on failure. */
void tu_ctx_open(struct sched_ctx *ctx);

/* Create a user; writes its authenticator (33 bytes) and returns its id. */
int tu_user(struct sched_ctx *ctx, const char *tag, char auth[65]);

/* Make sure app "tapp" (version 100, CPU, platform x86_64-pc-linux-gnu) exists;
 * with coproc_type non-NULL also a version 100 plan class "gpu" for it. */
void tu_app(struct sched_ctx *ctx, const char *coproc_type);

/* Create a plain batch of njobs jobs x repl replicas, fpops each, with
 * nfiles files (job j uses file j % nfiles); returns the batch id. */
int tu_batch(struct sched_ctx *ctx, const char *name, int njobs, int repl, double fpops,
             int nfiles, int delay_bound);

/* Replace the text of the first <tag>...</tag> in b with value. */
void tu_set_elem(struct buf *b, const char *tag, const char *value);

/* Fill b (initialised by the caller) with the recorded request
 * test/recorded/FILE, its authenticator, hostid and rpc_seqno replaced. */
void tu_recorded_request(struct buf *b, const char *file, const char *auth, int hostid,
                         int seqno);

/* Count occurrences of needle in hay. */
int tu_count(const char *hay, const char *needle);

/* Integer value of the first <tag> in text, or -1. */
long long tu_elem_ll(const char *text, const char *tag);

/* Run one SQL query returning one integer (test-only helper through the
 * data layer: the statement text is a constant of the test). */
long long tu_scalar(struct sched_ctx *ctx, int slot, const char *sql, int param);

/* Create a locality batch in state IN_PROGRESS (daemon tests): njobs jobs
 * over njobs + 1 files (job j uses files j and j + 1 and fpops * (1 + j % 3)
 * flops), ncursors cursors of about equal job ranges (their ids in
 * cursors[]), repl results per workunit, min_quorum 1, max_error_results
 * max_errors, delay bound one hour.  No workunits: the work generator makes
 * them.  Returns the batch id. */
int tu_locality_batch(struct sched_ctx *ctx, const char *name, int njobs, int ncursors, int repl,
                      double fpops, int max_errors, int *cursors);

/* Start the program at path with argv (NULL-terminated, argv[0] the
 * program) in a child process; returns its pid (exits the test when fork
 * fails; the child exits 127 when exec fails). */
pid_t tu_spawn(const char *path, const char *const *argv);

/* Retire every batch with id >= first_id still INIT or IN_PROGRESS, so
 * that a test leaves no active batch for the tests after it (uses
 * statement slot 159). */
void tu_retire_batches_from(struct sched_ctx *ctx, int first_id);

#endif
