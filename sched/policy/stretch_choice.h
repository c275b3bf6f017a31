/*
 * stretch_choice.h - positions in a cursor: which stretch of jobs a
 * member of a cursor's team works (doc/locality.md, "Positions in the
 * cursor").  Pure.
 *
 * Each member works a contiguous stretch of its cursor's jobs, so that
 * neighbouring jobs, which share files, go to the same host.  With
 * replication R, R members cover each job (one replica each), so a file
 * reaches about R hosts.  A member whose stretch has nothing left for it
 * takes, in this order:
 *   1. open work: an unsent job it may take with more unsent results
 *      than other members cover it without a result of it, none of its
 *      own user (a lane of a stretch not yet staffed, or the stretch of a
 *      member that left), the first next to its last stretch if there is
 *      one (the data layer finds it: db_stretch_read); its stretch runs
 *      from there while fewer than R members cover the jobs;
 *   2. a new stretch at the cursor's frontier (the first job no stretch
 *      was cut from), which then advances past it;
 *   3. a take-over: the member with the most time left (its unsent jobs
 *      over its rate) gives up the top of its stretch, in proportion to
 *      the two rates (unless a host of the same user covers that top:
 *      the user may hold only one replica of a job); a member presumed
 *      gone comes first and gives up all of its unsent jobs.  The member
 *      whose stretch ends just below the one the host finished is
 *      preferred when its time left is at least SC_NEIGHBOUR_SHARE of the
 *      most: its top is next to the files the host took first, so the
 *      jobs a host works over its take-overs stay one contiguous range,
 *      growing downwards, instead of a new range (new files) each time;
 *   or nothing (the cursor's work is all sent or not its to take).
 * A stretch is the member's share of the cursor's remaining replicas:
 * jobs left x R x its rate / the team's rate, at least min_jobs (what one
 * of its work requests takes) and at most the jobs left.  While a team is
 * forming, the first members thus take large stretches, and those who
 * join later take them over in proportion to their rates (in emulator
 * runs this finished batches sooner than counting a forming team as
 * team_size_min hosts, for the same hosts per file).
 *
 * Stretches end where the rates put them, wherever the files change
 * (the hosts on the two sides of a cut both read the files used on both
 * sides).  Moving a take-over's first job to a change of files saved
 * hosts per file but made batches slower; moving the end of a frontier
 * stretch never ran in the runs measured, where a cursor's first host
 * takes it whole (doc/locality.md, "Where a stretch is cut").
 */
#ifndef LOCSCHED_STRETCH_CHOICE_H
#define LOCSCHED_STRETCH_CHOICE_H

/* A take-over prefers the neighbour below when its time left is at
 * least this share of the greatest. */
#define SC_NEIGHBOUR_SHARE 0.5

/* The cursor, as read for a stretch decision. */
struct sc_cursor {
    int last_job_num;
    int first_unfinished_job_num;
    int next_stretch;            /* the frontier */
    int first_open;              /* an unsent job the host may take, below the
                                  * frontier, that fewer than R others cover; -1 none */
    int replication;             /* R: results per job */
    double team_rate;            /* sum of the members' credit rates */
};

/* Another member of the team, with its stretch. */
struct sc_member {
    int host_id;
    int same_user;               /* a host of the deciding host's user */
    double rate;
    int first, last;             /* its stretch; first < 0: none */
    int unsent;                  /* unsent results in [first, last], any user */
    int gone;                    /* its host is presumed gone (host_rhythm.h) */
};

/* The host deciding. */
struct sc_host {
    double rate;
    int min_jobs;                /* jobs one of its requests takes (>= 1) */
    int prev_first;              /* the stretch it just finished; < 0: none */
};

enum sc_action {
    SC_NONE,                     /* nothing to take a stretch of */
    SC_OPEN_WORK,                /* rule 1 */
    SC_FRONTIER,                 /* rule 2: next_stretch becomes last + 1 */
    SC_TAKE_OVER                 /* rule 3: victim's stretch ends at victim_last */
};

struct sc_choice {
    enum sc_action action;
    int first, last;             /* the host's new stretch */
    int victim;                  /* SC_TAKE_OVER: index into the members */
    int victim_last;
};

/* The stretch size for a host of this rate (jobs). */
int stretch_size(const struct sc_cursor *c, const struct sc_host *h);

/* The first stretch of a host joining or moving to a cursor: at the
 * frontier when jobs remain there (SC_FRONTIER), else SC_NONE (the host
 * then decides with stretch_choose on its first request for work). */
void stretch_on_join(const struct sc_cursor *c, const struct sc_host *h, struct sc_choice *out);

/* Decide for a host whose stretch has nothing left for it, given the
 * other n members of its team.  Pure. */
void stretch_choose(const struct sc_cursor *c, const struct sc_member *m, int n,
                    const struct sc_host *h, struct sc_choice *out);

#endif
