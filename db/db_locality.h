/*
 * db_locality.h - the locality scheduler's statements: the cursors of the
 * active locality batches with this host's team membership, joining or
 * moving a team, and which sticky files a host holds.
 *
 * A locality work request adds to the budget of db_sched.h:
 *   the host's teams (one statement)                         1
 *   candidates of the host's cursor (per batch)             1
 *   host_file insert / delete, when files are sent / dropped  0..2
 *   join or move a team (rare): fresh cursors, upsert, totals 0..3
 *   the process's cursor cache, every few seconds            0..1
 */
#ifndef LOCSCHED_DB_LOCALITY_H
#define LOCSCHED_DB_LOCALITY_H

#include "db.h"

/* One active batch (state IN_PROGRESS) with its finish line (schema 013). */
struct db_active_batch {
    int id;
    int locality;
    int finish_eta;              /* projected end, Unix seconds; 0 unknown */
    double finish_fast_flops;    /* a fast host's speed per instance */
    int create_time;             /* Unix seconds */
};

/* The active batches, in id order: row(ctx, b) per batch (0 to go on). */
int db_active_batches(struct db_conn *c, int (*row)(void *ctx, const struct db_active_batch *b),
                      void *ctx);

/* One cursor of an active locality batch, as this host sees it. */
struct db_cursor_row {
    int id;
    int batch_id;
    int appid;
    int first_job_num, last_job_num;
    int first_unfinished_job_num;
    int first_unfinished_file;     /* first file of that job; -1 past the end */
    int last_file_num;
    double remaining_credit, expavg_credit, max_host_credit;
    int nhosts;
    int next_stretch;              /* the frontier (next_stretch_job_num) */
    int replication;               /* the batch's target_nresults */
    int mine;                      /* the host is in this team */
    double my_credit_rate;         /* what the host added to expavg_credit */
    int my_assign_time;
    int user_in_team;              /* another host of the user is in the team */
    int my_stretch_first;          /* the host's stretch; -1: none */
    int my_stretch_last;
    int has_unsent;                /* it has an unsent result: 1, 0; -1 not read (the
                                    * host's teams are read without it) */
};

/* The cursors of batch_id (if it is an active locality batch), in
 * first-job order, as this host sees them (mine, user_in_team), with
 * has_unsent: one statement.  Read fresh before joining or moving a
 * team. */
int db_locality_cursors(struct db_conn *c, int batch_id, int hostid, int userid,
                        int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx);

/* The same without the host-specific columns (mine = 0, user_in_team =
 * 0), and with has_unsent: what each scheduler process caches for a few
 * seconds. */
int db_locality_all_cursors(struct db_conn *c,
                            int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx);

/* The cursors of the host's teams in active batches (mine = 1, with its
 * rate and join time; user_in_team = 0): the per-request read. */
int db_locality_my_cursors(struct db_conn *c, int hostid,
                           int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx);

/* Make hostid a member of cursor_id's team for batch_id (insert or
 * move), with its first stretch [stretch_first, stretch_last] (-1: none). */
int db_batch_host_assign(struct db_conn *c, int hostid, int batch_id, int cursor_id, int userid,
                         double credit_rate, int now, int stretch_first, int stretch_last);

/*
 * The team totals after a join (old_cursor 0) or a move: new_cursor gains
 * rate and a member, old_cursor loses old_rate and a member.  Relative
 * changes in one statement, so that concurrent schedulers compose.
 *
 * The join is conditional, so that schedulers deciding at the same time
 * cannot overfill a team or hand out one frontier twice: new_cursor must
 * still have fewer than max_nhosts members (INT_MAX: no limit) and, when
 * expect_frontier >= 0, its frontier must still be expect_frontier (the
 * joiner's first stretch starts there).  The statement reads the row's
 * latest committed state under its lock.  When new_cursor fails the
 * condition nothing is changed (a move's decrement of old_cursor is
 * undone) and *lost is set: the caller reads the cursors again and
 * decides again.
 */
int db_cursor_adjust(struct db_conn *c, int new_cursor, double rate, int old_cursor,
                     double old_rate, int new_frontier, int max_nhosts, int expect_frontier,
                     int *lost);

/* ---- positions in the cursor (stretches) ---- */

/* Another member of a team, with its stretch, the unsent results in it
 * and its host's rhythm (is it gone?). */
struct db_stretch_row {
    int host_id;
    int same_user;                 /* a host of the deciding host's user */
    double credit_rate;
    int first, last;
    int unsent;
    int rpc_time, lost_time;       /* its host's last request; presumed gone since */
    double rpc_gap_avg, rpc_gap_dev;   /* its host's rhythm (host_rhythm.h) */
    int rpc_gap_n;
};

/*
 * The stretch decision's read (one statement): the other members of
 * cursor_id with a stretch (row callback, after the read) with the
 * unsent results in each stretch, and, through *first_open, the
 * first "open" job: an unsent job below the frontier that userid may
 * take and no other host of userid covers, with more unsent results than
 * other members cover it and have no result of it yet (a lane nobody
 * staffs, or the stretch of a member that left; not the jobs a member
 * moved past while another still works their other replica); the
 * lowest at or after near_job (next to the
 * host's last stretch, whose files it holds), else the lowest (-1: none);
 * and the frontier (-1: none, when the cursor's row is locked by another
 * member's decision, which this one does not wait for: the caller
 * decides nothing this time).  The cursor's row stays locked until the
 * commit, so that the members of a team decide in turn.  The statement
 * returns the team and one pass over the cursor's unsent results below
 * the frontier, each with its
 * workunit's results; db_stretch_pass.c counts.  The pass stops at
 * 2,000 rows (about 500 jobs never sent at R = 2): then open work is
 * looked for in the jobs read, and a stretch's jobs above them count as
 * R unsent results each (db_stretch_pass.h).
 */
int db_stretch_read(struct db_conn *c, int cursor_id, int hostid, int userid, int near_job,
                    int (*row)(void *ctx, const struct db_stretch_row *r),
                    void *ctx, int *first_open, int *frontier);

/* Set the stretch of hostid in batch_id and, when frontier > 0, advance
 * its cursor's frontier to at least that (one statement). */
int db_stretch_set(struct db_conn *c, int hostid, int batch_id, int first, int last,
                   int frontier);

/* A take-over: the victim's stretch [first, last] ends at new_last now,
 * unless it changed meanwhile (one statement). */
int db_stretch_shrink(struct db_conn *c, int victim_host, int batch_id, int first, int last,
                      int new_last);

/* host_file rows for files sent to a host (by file id) and dropped by it
 * (by name: a file of an ended batch is no longer in the scheduler's
 * cache); one statement each. */
int db_host_file_add(struct db_conn *c, int hostid, const int *file_ids, int n, int now);
int db_host_file_delete(struct db_conn *c, int hostid, const char *const *names, int n);

#endif
