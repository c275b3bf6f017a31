/*
 * cursor_plan.h - how a locality batch is cut into cursors when it is
 * created (doc/locality.md, "Creating a batch").  Pure.
 */
#ifndef LOCSCHED_CURSOR_PLAN_H
#define LOCSCHED_CURSOR_PLAN_H

/*
 * How many cursors: one team per (team_size_min + team_size_max) / 2
 * active hosts (at least one), so that teams start mid-size and have room
 * to take the hosts that move; but no more than leave each team
 * 2 * team_size_max jobs, so that every member has work in its range.
 */
int cursor_count(int active_hosts, int team_size_min, int team_size_max, int njobs);

/*
 * Cut jobs [0, njobs) into at most ncursors contiguous ranges of about
 * equal total fpops (so ranges are shorter where jobs are heavier), each
 * cut moved to a nearby job boundary where the two sides share no file
 * when there is one within an eighth of a range.  first_job[0..k] gets
 * the range starts and first_job[k] = njobs; returns k >= 1 (or -1 when
 * njobs < 1).
 */
int cursor_plan(const double *fpops, const int *first_file, const int *nfiles, int njobs,
                int ncursors, int *first_job);

/* The highest file used by jobs [first, last]; -1 if they use none. */
int cursor_last_file(const int *first_file, const int *nfiles, int first, int last);

#endif
