/*
 * db_stretch_pass.h - what the stretch read (db_stretch_read) computes
 * from one pass over a cursor's unsent results: each member's unsent
 * count in its stretch, and the first "open" job (doc/locality.md,
 * "Positions in the cursor").  Pure: no SQL, no connection; the data
 * layer fills the rows, this file counts, test/unit/test_stretch_pass
 * checks it against the rules written out one by one.
 *
 * The rows are the join of each unsent result r of the cursor below its
 * frontier (in job order, at most a cap of rows) with every result o of
 * r's workunit, r itself included.  So each r brings all it takes to
 * decide whether its job is open:
 *   - the user holds a replica of it (an o of the deciding host's user);
 *   - its workunit's unsent results (the o that are unsent);
 *   - which members hold a result of it (the o's hosts).
 */
#ifndef LOCSCHED_DB_STRETCH_PASS_H
#define LOCSCHED_DB_STRETCH_PASS_H

/* One row of the pass: unsent result r with one result o of its
 * workunit (r itself among them). */
struct sp_row {
    int job_num;                 /* r's job */
    int result_id;               /* r */
    int other_unsent;            /* o is unsent */
    int other_host;              /* o's hostid (0: none) */
    int other_user;              /* o is the deciding host's user's */
};

/* A member of the team other than the deciding host, with or without a
 * stretch (first < 0: none). */
struct sp_member {
    int host_id;
    int same_user;               /* a host of the deciding host's user */
    int first, last;             /* its stretch */
    int unsent;                  /* out: unsent results in [first, last]; 0 without a stretch */
};

/* The cursor and the request. */
struct sp_cursor {
    int frontier;                /* next_stretch_job_num: the rows are below it */
    int replication;             /* R, the batch's results per job */
    int near_job;                /* prefer the first open job at or after this one */
    int truncated;               /* the pass stopped at its cap of rows */
};

/*
 * Count each member's unsent results in its stretch (0 without one) and
 * find the first open job, as the correlated statement before this pass
 * did: an unsent job below the frontier
 *   - of which the user holds no replica,
 *   - that no member of the user covers (its range stretch_first ..
 *     stretch_last, whether or not it has a stretch),
 *   - with more unsent results than the members with a stretch that
 *     cover it and hold no result of it;
 * the lowest at or after near_job, else the lowest; -1 none.
 *
 * When the pass was cut at its cap, the rows of its last job number may
 * be incomplete, so the window read is the jobs below that one: open
 * work is looked for there only, and a member's jobs from there up to
 * the frontier count as R unsent results each, as if none of their
 * replicas had been sent (exact for jobs never sent, which is what the
 * far part of a large cursor mostly is).  A stretch reaching past the
 * frontier (the scheduler cuts none) is counted below it.
 *
 * Sorts rows in place (by job, then result).  Returns the first open job.
 */
int stretch_pass(struct sp_row *rows, int n, const struct sp_cursor *c, struct sp_member *m,
                 int nm);

#endif
