/*
 * cursor_choice.h - which team (cursor) of a locality batch a host works
 * in: the pure decision of doc/locality.md, "Choose a cursor".
 *
 * A new host joins the eligible cursor with the least est_time_left.  A
 * member of cursor C moves to D, the cursor with the greatest
 * est_time_left, when est(C) < move_ratio * est(D), the move does not
 * make C the slower of the two, and it has stayed move_min_interval
 * seconds (a finished cursor is left at once, for the neediest team,
 * full or not).  A cursor known to have nothing unsent is no target: a
 * host gains no work by moving there.  A host that found nothing to do
 * in its own cursor (starved: its work there is in other members'
 * queues, as at a batch's end) moves at once, like a host whose cursor
 * is finished, but only to a cursor with unsent work; if none has any,
 * it stays.
 *
 * Team rules, in the order they are given up when no cursor obeys all:
 *   size   at most team_size_max members              (kept longest)
 *   user   no two hosts of one user
 *   speed  the fastest member no faster than the sum of the others
 *          (teams of three or more: of two different hosts, one is
 *          always faster than the other)
 */
#ifndef LOCSCHED_CURSOR_CHOICE_H
#define LOCSCHED_CURSOR_CHOICE_H

/* One cursor, as the scheduler read it. */
struct cc_cursor {
    int id;
    double remaining_credit;     /* 0: every job finished */
    double expavg_credit;        /* sum of the members' credit rates */
    double max_host_credit;      /* the fastest member's rate */
    int nhosts;
    int user_in_team;            /* another host of this user is a member */
    int nothing_unsent;          /* known to have no unsent result (0: it may) */
};

struct cc_params {
    int team_size_max;
    double move_ratio;           /* 0.5 */
    int move_min_interval;       /* seconds */
};

/* The host: which cursor it is in (index, -1: none), its credit rate now,
 * the rate it added to its cursor, when it joined, and whether its
 * cursor had nothing for it in this request. */
struct cc_host {
    int current;
    double rate;
    double rate_counted;
    long long assign_time;
    long long now;
    int starved;
};

enum cc_action {
    CC_NONE,    /* every cursor is finished: nothing to work on */
    CC_STAY,
    CC_JOIN,
    CC_MOVE
};

/* Rule violations of a team with the host added (bits). */
enum { CC_VIOL_SPEED = 1, CC_VIOL_USER = 2, CC_VIOL_SIZE = 4 };

struct cc_choice {
    enum cc_action action;
    int cursor;                  /* index of the chosen cursor, or -1 */
    int from;                    /* CC_MOVE: index of the old cursor */
    int violations;              /* CC_JOIN/CC_MOVE: rules given up */
};

/* The violations of adding a host of this rate to cursor c. */
int cc_violations(const struct cc_cursor *c, double rate, const struct cc_params *p);

/* Decide for a host among n cursors of one batch.  Pure. */
void cursor_choose(const struct cc_cursor *cs, int n, const struct cc_host *h,
                   const struct cc_params *p, struct cc_choice *out);

#endif
