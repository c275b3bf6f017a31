/*
 * locality_stretch.h - the candidates of one locality cursor for one
 * request: the host's stretch, the jobs of the files it holds, a new
 * stretch when its own has nothing left (doc/locality.md, "Positions in
 * the cursor"), and the cursor's front as the last resort.
 */
#ifndef LOCSCHED_LOCALITY_STRETCH_H
#define LOCSCHED_LOCALITY_STRETCH_H

#include "db_locality.h"
#include "db_sched.h"

struct sched_ctx;
struct request_state;

/* The host's team in one batch, as this request sees it. */
struct loc_team {
    struct db_cursor_row row;      /* its cursor, with my_stretch_* */
    double rate;                   /* the host's credit rate now */
    int busy;                      /* set when another member was deciding its
                                    * stretch: nothing found then does not mean
                                    * that the cursor has nothing for the host */
};

/* Files the host holds in one batch (file numbers, ascending). */
struct loc_held {
    const int *file_nums;
    int n;
};

/*
 * Lock up to limit candidates of the host's cursor into out (*n gets the
 * count): with locality_positions, its stretch first; when the stretch has
 * nothing left for it, the jobs of the files it holds and then a new
 * stretch (which is written); without, the jobs of the files it holds and
 * then the cursor's window in job order.  When all this finds nothing,
 * the cursor's front in job order.
 */
int locality_stretch_candidates(struct sched_ctx *ctx, struct request_state *rs,
                                struct loc_team *team, const struct loc_held *held, int limit,
                                struct db_candidate *out, int *n);

/*
 * The stretch of a host that joins or moves to cursor row: sets
 * *first..*last (-1: none yet) and *frontier (the cursor's new frontier,
 * 0 when unchanged).  No statement: the caller writes the stretch with
 * the membership.
 */
void locality_stretch_on_join(const struct sched_ctx *ctx, const struct db_cursor_row *row,
                              double rate, int min_jobs, int *first, int *last, int *frontier);

/* Jobs one request of this host takes, from the handler's candidate
 * limit (see candidate_limit() in handler.c). */
int locality_request_jobs(const struct sched_ctx *ctx, int limit);

#endif
