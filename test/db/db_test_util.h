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

/* Print "Bail out! what: why" (TAP) and exit 1. */
void tu_bail(const char *what, const char *why);

/* Read a whole file (NUL-terminated); exits the test on failure. */
char *tu_read_file(const char *path, size_t *len);

/* Path of a file under test/ in the source tree ($srcdir aware). */
const char *tu_src_path(const char *rel);

/* Open a scheduler context on $LOCSCHED_CONFIG; exits on failure. */
void tu_ctx_open(struct sched_ctx *ctx);

/* Create a user; writes its authenticator (33 bytes) and returns its id. */
int tu_user(struct sched_ctx *ctx, const char *tag, char auth[65]);

/* The app and platform of tu_app, tu_batch and tu_locality_batch: "tapp"
 * and "x86_64-pc-linux-gnu" (the recorded requests'); a test that wants
 * jobs of its own alone sets others before it calls them. */
extern const char *tu_app_name, *tu_platform_name;

/* Make sure app tu_app_name (version 100, CPU, platform tu_platform_name)
 * exists; with coproc_type non-NULL also a version 100 plan class "gpu"
 * for it. */
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

/* The same with two parameters. */
long long tu_scalar2(struct sched_ctx *ctx, int slot, const char *sql, int a, int b);

/* Run one statement of the test's own (slot, SQL text, n parameters p)
 * and commit; exits the test on failure, saying what failed. */
void tu_exec(struct sched_ctx *ctx, int slot, const char *sql, struct db_val *p, int n,
             const char *what);

/* Create a locality batch in state IN_PROGRESS (daemon tests): njobs jobs
 * over njobs + 1 files (job j uses files j and j + 1 and fpops * (1 + j % 3)
 * flops), ncursors cursors of about equal job ranges (their ids in
 * cursors[]), repl results per workunit, min_quorum 1, max_error_results
 * max_errors, delay bound one hour.  No workunits: the work generator makes
 * them.  Returns the batch id. */
int tu_locality_batch(struct sched_ctx *ctx, const char *name, int njobs, int ncursors, int repl,
                      double fpops, int max_errors, int *cursors);

/* A fresh folder SUB in the current folder, with SUB/log and SUB/upload,
 * for daemons run as programs: dir gets its path, up the upload folder's,
 * bindir the folder of the built daemons ($top_builddir/daemons).  Exits
 * the test on failure. */
void tu_daemon_dirs(const char *sub, char *dir, size_t dirlen, char *up, size_t uplen,
                    char *bindir, size_t bindirlen);

/* DIR/TAG.conf for daemons run as programs: the sandbox's config
 * ($LOCSCHED_CONFIG) with log_dir DIR/log, log_level 0, upload_dir UP and
 * the lines of settings ("key = value\n..."); the sandbox's lines of
 * those keys and of keys (an extended regex alternation, "a|b") are left
 * out.  Exits the test on failure. */
void tu_daemon_config(const char *dir, const char *up, const char *tag, const char *keys,
                      const char *settings);

/* Start the program at path with argv (NULL-terminated, argv[0] the
 * program) in a child process; returns its pid (exits the test when fork
 * fails; the child exits 127 when exec fails). */
pid_t tu_spawn(const char *path, const char *const *argv);

/* Run the built work generator once (--one-pass) on $LOCSCHED_CONFIG, so
 * that the active batches get their workunits; exits the test when it
 * is not built or fails. */
void tu_work_generator_pass(void);

/* The batch of a test that runs the work generator: every active batch
 * retired (so that the generator serves this one alone), a locality
 * batch of one cursor (tu_locality_batch: njobs jobs, repl results each,
 * fpops 1e12, max_errors 2) named prefix and a number of the clock (into
 * name), and one pass of the work generator.  Returns the batch id;
 * *cursor gets its cursor.  Exits the test on failure. */
int tu_generated_locality_batch(struct sched_ctx *ctx, const char *prefix, int njobs, int repl,
                                char *name, size_t namelen, int *cursor);

/* A new host of the user of auth: its first request, which asks for no
 * work (the recorded client 7.20 request); *reply gets the reply.
 * Returns the host id it was given (exits the test if the request
 * failed). */
int tu_first_contact(struct sched_ctx *ctx, const char *auth, struct buf *reply);

/* A host row of userid that never made a request (another user's host
 * to send jobs to); statements in slots insert_slot and select_slot.
 * Returns its id. */
int tu_bare_host(struct sched_ctx *ctx, int insert_slot, int select_slot, int userid);

/* Make host (of userid) a member of cursor of batch with the stretch
 * first..last, joined at now; statement in slot.  The cursor's team
 * counts are left as they are. */
void tu_member(struct sched_ctx *ctx, int slot, int host, int batch, int cursor, int userid,
               int first, int last, int now);

/* In request b, the host's results in progress listed as client 7.20
 * lists the jobs it holds (<other_results>), so that none is taken for
 * lost; read with statement slot.  Exits the test on failure. */
void tu_list_in_progress(struct sched_ctx *ctx, int slot, struct buf *b, int host);

/* Retire every batch with id >= first_id still INIT or IN_PROGRESS, so
 * that a test leaves no active batch for the tests after it (uses
 * statement slot 159). */
void tu_retire_batches_from(struct sched_ctx *ctx, int first_id);

#endif
