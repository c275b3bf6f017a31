/*
 * cursor_choice.c - host to cursor assignment for locality scheduling
 * (see cursor_choice.h for the policy).
 */
#include "cursor_choice.h"

#include <math.h>

#include "credit.h"

static int finished(const struct cc_cursor *c)
{
    return !(c->remaining_credit > 0);
}

int cc_violations(const struct cc_cursor *c, double rate, const struct cc_params *p)
{
    int v = 0, size = c->nhosts + 1;
    double max = c->max_host_credit > rate ? c->max_host_credit : rate;
    double sum = c->expavg_credit + rate;

    if (size > p->team_size_max)
        v |= CC_VIOL_SIZE;
    if (c->user_in_team)
        v |= CC_VIOL_USER;
    /* fastest <= sum of the others, i.e. 2 * max <= sum (with a little
     * slack for rounding in the stored sums) */
    if (size >= 3 && 2 * max > sum * (1 + 1e-9))
        v |= CC_VIOL_SPEED;
    return v;
}

/* The cursor a new host joins: fewest (weightiest) violations, then the
 * least est_time_left, then the lowest index. */
static int choose_join(const struct cc_cursor *cs, int n, double rate, int exclude,
                       const struct cc_params *p, int *viol)
{
    int i, best = -1, best_v = 0;
    double best_est = 0;

    for (i = 0; i < n; i++) {
        int v;
        double est;
        if (i == exclude || finished(&cs[i]))
            continue;
        v = cc_violations(&cs[i], rate, p);
        est = est_time_left(cs[i].remaining_credit, cs[i].expavg_credit);
        if (best < 0 || v < best_v || (v == best_v && est < best_est)) {
            best = i;
            best_v = v;
            best_est = est;
        }
    }
    *viol = best_v;
    return best;
}

/* The cursor a member would move to: the greatest est_time_left among the
 * unfinished cursors other than its own that have room (or, with
 * ignore_size, all of them), and that may have unsent work (or, with
 * any_work, whatever their work); -1 if none. */
static int choose_target(const struct cc_cursor *cs, int n, const struct cc_host *h,
                         const struct cc_params *p, int ignore_size, int any_work, int *viol,
                         double *est_out)
{
    int i, d = -1, dv = 0;
    double est_d = -1;

    for (i = 0; i < n; i++) {
        int v;
        double est;
        if (i == h->current || finished(&cs[i]) || (cs[i].nothing_unsent && !any_work))
            continue;
        v = cc_violations(&cs[i], h->rate, p);
        if ((v & CC_VIOL_SIZE) && !ignore_size)
            continue;
        est = est_time_left(cs[i].remaining_credit, cs[i].expavg_credit);
        if (d < 0 || est > est_d || (est == est_d && v < dv)) {
            d = i;
            dv = v;
            est_d = est;
        }
    }
    *viol = dv;
    *est_out = est_d;
    return d;
}

void cursor_choose(const struct cc_cursor *cs, int n, const struct cc_host *h,
                   const struct cc_params *p, struct cc_choice *out)
{
    const struct cc_cursor *cur;
    int d, dv = 0, cur_done;
    double est_c, est_d = -1, est_c_after, est_d_after;

    out->action = CC_NONE;
    out->cursor = -1;
    out->from = -1;
    out->violations = 0;

    if (h->current < 0 || h->current >= n) {
        int v;
        int c = choose_join(cs, n, h->rate, -1, p, &v);
        if (c >= 0) {
            out->action = CC_JOIN;
            out->cursor = c;
            out->violations = v;
        }
        return;
    }

    cur = &cs[h->current];
    cur_done = finished(cur);
    out->action = CC_STAY;
    out->cursor = h->current;

    /* D: the cursor with the greatest est_time_left that has room and
     * work to send; among equals, the one that gives up fewer rules.  A
     * host whose cursor is finished must go somewhere: if every other
     * team is full, it joins the one that needs it most anyway, and if
     * none has unsent work, the one that needs it most of all.  A
     * starved host goes to a full team too, but only for work. */
    d = choose_target(cs, n, h, p, 0, 0, &dv, &est_d);
    if (d < 0 && (cur_done || h->starved))
        d = choose_target(cs, n, h, p, 1, 0, &dv, &est_d);
    if (d < 0 && cur_done)
        d = choose_target(cs, n, h, p, 1, 1, &dv, &est_d);
    if (d < 0) {
        if (cur_done) {
            out->action = CC_NONE;
            out->cursor = -1;
        }
        return;
    }
    if (!cur_done && !h->starved) {
        if (h->now - h->assign_time < p->move_min_interval)
            return;
        est_c = est_time_left(cur->remaining_credit, cur->expavg_credit);
        if (!(est_c < p->move_ratio * est_d))
            return;
        /* hysteresis: after the move, C must not be the slower one, or
         * the next host would be pulled back */
        est_c_after = est_time_left(cur->remaining_credit, cur->expavg_credit - h->rate_counted);
        est_d_after = est_time_left(cs[d].remaining_credit, cs[d].expavg_credit + h->rate);
        if (est_c_after > est_d_after)
            return;
        /* do not give up the user rule that C keeps */
        if ((dv & CC_VIOL_USER) && !cur->user_in_team)
            return;
    }
    out->action = CC_MOVE;
    out->cursor = d;
    out->from = h->current;
    out->violations = dv;
}
