/*
 * stretch_choice.c - positions in a cursor: stretch size and the choice
 * of a member's next stretch (see stretch_choice.h for the policy).
 */
#include "stretch_choice.h"

#include <math.h>

/* No stretch is longer: bounds the work of stretch_choose(). */
#define SC_MAX_STRETCH 100000

static int jobs_left(const struct sc_cursor *c)
{
    int n = c->last_job_num - c->first_unfinished_job_num + 1;
    return n > 0 ? n : 0;
}

int stretch_size(const struct sc_cursor *c, const struct sc_host *h)
{
    int left = jobs_left(c), r = c->replication > 0 ? c->replication : 1;
    int min = h->min_jobs > 0 ? h->min_jobs : 1;
    double share, size;

    if (left == 0)
        return min;
    /* the team's rate includes the host's once it is a member; a host
     * alone (or of unknown rate) takes everything */
    share = c->team_rate > 0 && h->rate > 0 ? h->rate / c->team_rate : 1;
    if (share > 1)
        share = 1;
    size = ceil((double)left * r * share);
    if (size > left)
        size = left;
    if (size < min)
        size = min;
    if (size > SC_MAX_STRETCH)
        size = SC_MAX_STRETCH;
    return (int)size;
}

static void at_frontier(const struct sc_cursor *c, const struct sc_host *h, struct sc_choice *out)
{
    int size = stretch_size(c, h);
    long long last = (long long)c->next_stretch + size - 1;

    out->action = SC_FRONTIER;
    out->first = c->next_stretch;
    out->last = last > c->last_job_num ? c->last_job_num : (int)last;
}

static void none(struct sc_choice *out)
{
    out->action = SC_NONE;
    out->first = out->last = -1;
    out->victim = -1;
    out->victim_last = -1;
}

void stretch_on_join(const struct sc_cursor *c, const struct sc_host *h, struct sc_choice *out)
{
    none(out);
    if (c->next_stretch >= 0 && c->next_stretch <= c->last_job_num)
        at_frontier(c, h, out);
}

/* Members whose stretch covers job j. */
static int coverage(const struct sc_member *m, int n, int j)
{
    int i, k = 0;
    for (i = 0; i < n; i++)
        if (m[i].first >= 0 && m[i].first <= j && j <= m[i].last)
            k++;
    return k;
}

/* Is job j covered by a host of the deciding host's user? */
static int own_user_covers(const struct sc_member *m, int n, int j)
{
    int i;
    for (i = 0; i < n; i++)
        if (m[i].same_user && m[i].first >= 0 && m[i].first <= j && j <= m[i].last)
            return 1;
    return 0;
}

void stretch_choose(const struct sc_cursor *c, const struct sc_member *m, int n,
                    const struct sc_host *h, struct sc_choice *out)
{
    int r = c->replication > 0 ? c->replication : 1, size = stretch_size(c, h);
    int i, best = -1, best_k = 0, near = -1, near_k = 0;
    double best_time = -1, near_time = -1;

    none(out);

    /* 1. open work: from the lowest under-covered unsent job, while jobs
     * stay under-covered, below the frontier */
    if (c->first_open >= 0 && c->first_open <= c->last_job_num) {
        int j = c->first_open, end = c->next_stretch - 1;
        if (end > c->last_job_num)
            end = c->last_job_num;
        if (end < j)
            end = j;               /* the job itself, whatever the frontier */
        while (j < end && j + 1 - c->first_open < size && coverage(m, n, j + 1) < r &&
               !own_user_covers(m, n, j + 1))
            j++;
        out->action = SC_OPEN_WORK;
        out->first = c->first_open;
        out->last = j;
        return;
    }

    /* 2. a new stretch at the frontier */
    if (c->next_stretch >= 0 && c->next_stretch <= c->last_job_num) {
        at_frontier(c, h, out);
        return;
    }

    /* 3. take over the top of the stretch with the most time left */
    for (i = 0; i < n; i++) {
        int lanes, remaining, k;
        double rate = m[i].rate > 0 ? m[i].rate : 1e-9, t;
        if (m[i].first < 0 || m[i].last < m[i].first || m[i].unsent <= 0)
            continue;
        if (!m[i].same_user && own_user_covers(m, n, m[i].last))
            continue;
        lanes = coverage(m, n, m[i].last);
        if (lanes > r)
            lanes = r;
        if (lanes < 1)
            lanes = 1;
        remaining = (m[i].unsent + lanes - 1) / lanes;
        if (remaining > m[i].last - m[i].first + 1)
            remaining = m[i].last - m[i].first + 1;
        k = m[i].gone ? remaining : (int)floor((double)remaining * h->rate / (h->rate + rate));
        if (k < 1)
            continue;
        t = m[i].gone ? HUGE_VAL : remaining / rate;
        if (best < 0 || t > best_time) {
            best = i;
            best_time = t;
            best_k = k;
        }
        if (h->prev_first >= 0 && m[i].last + 1 == h->prev_first && t > near_time) {
            near = i;
            near_time = t;
            near_k = k;
        }
    }
    if (near >= 0 && near_time >= SC_NEIGHBOUR_SHARE * best_time) {
        best = near;
        best_k = near_k;
    }
    if (best >= 0) {
        /* in proportion to the rates, wherever the files change: moving
         * this cut to a change of files saved hosts per file but made
         * batches slower in the emulator (doc/emulator.md, "The
         * take-over's cut, taken back") */
        out->action = SC_TAKE_OVER;
        out->first = m[best].last - best_k + 1;
        out->last = m[best].last;
        out->victim = best;
        out->victim_last = out->first - 1;
    }
}
