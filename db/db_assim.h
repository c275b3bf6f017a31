/*
 * db_assim.h - the statements of the assimilator, the file deleter and
 * db_purge (schema 015; slots 192..207).  Codes are BOINC's:
 * workunit.assimilate_state 0 INIT, 1 READY, 2 DONE; file_delete_state
 * (workunit, result, batch) 0 INIT, 1 READY, 2 DONE, 3 ERROR.
 */
#ifndef LOCSCHED_DB_ASSIM_H
#define LOCSCHED_DB_ASSIM_H

#include "db.h"

enum { AS_INIT = 0, AS_READY = 1, AS_DONE = 2 };
enum { FD_INIT = 0, FD_READY = 1, FD_DONE = 2, FD_ERROR = 3 };

/* A workunit as the assimilator needs it, with its canonical result. */
struct db_as_wu {
    int id;
    char name[256];
    int batch_id;
    char batch_name[256];
    int canonical_resultid;
    int error_mask;
    double max_out_nbytes;
    int assimilate_state;
    char result_name[256];     /* the canonical result's ("" if none) */
};

/*
 * Up to limit ids of finished workunits (a canonical result or an error)
 * with id > after, id % mod_n == mod_i, in id order: those still INIT
 * (ready == 0: the sweep for workunits nobody marked READY) or READY
 * (ready == 1).  ids gets them, *n their number.
 */
int db_as_list(struct db_conn *c, int ready, int mod_n, int mod_i, int after, int limit,
               int *ids, int *n);

/* Mark a finished workunit still INIT as READY (0 rows if it is not). */
int db_as_promote(struct db_conn *c, int wuid, long long *changed);

/* Read one workunit; DB_NOTFOUND if it is gone. */
int db_as_wu_read(struct db_conn *c, int wuid, struct db_as_wu *wu);

/*
 * In the caller's transaction: mark a READY workunit assimilated at now
 * (DONE), its file_delete_state becoming fd_state (READY to have its
 * outputs deleted, or INIT to keep them), and with FD_READY its results
 * that are over READY for the file deleter.  *changed gets 0 if the
 * workunit was not READY (another instance did it).
 */
int db_as_wu_done(struct db_conn *c, int wuid, int now, int fd_state, long long *changed);

/* ---- file deleter ---- */

/* Up to limit ids of workunits READY for file deletion (id > after,
 * id % mod_n == mod_i), in id order. */
int db_fd_wus(struct db_conn *c, int mod_n, int mod_i, int after, int limit, int *ids, int *n);

/* One result of a workunit, as the file deleter needs it. */
struct db_fd_result {
    int id;
    char name[256];
    int server_state;
    int outcome;
    int file_delete_state;
};

/* The results of a workunit: row(ctx, r) per result (0 to go on). */
int db_fd_results(struct db_conn *c, int wuid,
                  int (*row)(void *ctx, const struct db_fd_result *r), void *ctx);

/* Mark a result's files DONE or ERROR (only once it is over). */
int db_fd_result_set(struct db_conn *c, int resultid, int state);

/* Mark a workunit's files DONE if every one of its results is DONE or
 * ERROR; *changed gets 1 if it was marked. */
int db_fd_wu_done(struct db_conn *c, int wuid, long long *changed);

/* A retired batch whose input files may go. */
struct db_fd_batch {
    int id;
    char name[256];
};

/*
 * Up to limit retired batches (id % mod_n == mod_i) whose input files are
 * not deleted yet and that no job needs any more: no unfinished workunit,
 * no result unsent or in progress.
 */
int db_fd_batches(struct db_conn *c, int mod_n, int mod_i, int limit, struct db_fd_batch *out,
                  int *n);

/* Up to limit files of a batch with id > after: row(ctx, id, name, url). */
int db_fd_files(struct db_conn *c, int batch_id, int after, int limit,
                int (*row)(void *ctx, int id, const char *name, const char *url), void *ctx);

/* Mark a retired batch's input files DONE. */
int db_fd_batch_done(struct db_conn *c, int batch_id);

/* ---- purge ---- */

/* Up to limit ids of workunits assimilated before "before", with their
 * files deleted, id > after, in id order. */
int db_pu_wus(struct db_conn *c, int before, int after, int limit, int *ids, int *n);

/*
 * Every column of one workunit (which == 0) or of its results (which ==
 * 1, in id order), as text: row(ctx, ncols, names, values, lens) per row,
 * values NULL for SQL NULL (see db_query_text).
 */
int db_pu_rows(struct db_conn *c, int which, int wuid, db_text_row_fn row, void *ctx);

/*
 * In the caller's transaction: delete one workunit's results and then the
 * workunit, if it is still assimilated with its files deleted and has
 * exactly nresults results (those archived); otherwise DB_ABORT with the
 * reason in db_error, and nothing is deleted once the caller rolls back.
 */
int db_pu_delete(struct db_conn *c, int wuid, long long nresults);

#endif
