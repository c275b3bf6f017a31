/*
 * db_stretch_pass.c - each member's unsent count and the first open job
 * from one pass over a cursor's unsent results (see db_stretch_pass.h).
 */
#include "db_stretch_pass.h"

#include <limits.h>
#include <stdlib.h>

static int by_job_result(const void *a, const void *b)
{
    const struct sp_row *x = a, *y = b;
    if (x->job_num != y->job_num)
        return x->job_num < y->job_num ? -1 : 1;
    if (x->result_id != y->result_id)
        return x->result_id < y->result_id ? -1 : 1;
    return 0;
}

static int in_stretch(const struct sp_member *m, int j)
{
    return m->first <= j && j <= m->last;
}

/* Is job j, of the result whose rows are r[0..k), open work? */
static int job_open(const struct sp_row *r, int k, const struct sp_member *m, int nm, int j)
{
    int i, t, unsent = 0, cover = 0;

    for (t = 0; t < k; t++) {
        if (r[t].other_user)
            return 0;              /* the user holds a replica */
        unsent += r[t].other_unsent != 0;
    }
    for (i = 0; i < nm; i++) {
        if (m[i].same_user && in_stretch(&m[i], j))
            return 0;              /* a host of the user covers it */
        if (m[i].first < 0 || !in_stretch(&m[i], j))
            continue;
        for (t = 0; t < k && r[t].other_host != m[i].host_id; t++)
            ;
        if (t == k)
            cover++;               /* covers it and holds no result of it */
    }
    return cover < unsent;
}

int stretch_pass(struct sp_row *rows, int n, const struct sp_cursor *c, struct sp_member *m,
                 int nm)
{
    int i, s, e, open = -1, open_near = -1, top = INT_MAX;

    for (i = 0; i < nm; i++)
        m[i].unsent = 0;
    if (n > 0)
        qsort(rows, (size_t)n, sizeof *rows, by_job_result);
    if (c->truncated && n > 0) {
        /* the last job read may lack rows: the window ends below it */
        top = rows[n - 1].job_num;
        while (n > 0 && rows[n - 1].job_num == top)
            n--;
    }
    for (s = 0; s < n; s = e) {
        int j = rows[s].job_num;
        for (e = s + 1; e < n && rows[e].result_id == rows[s].result_id && rows[e].job_num == j;
             e++)
            ;
        for (i = 0; i < nm; i++)
            if (m[i].first >= 0 && in_stretch(&m[i], j))
                m[i].unsent++;
        if (j >= c->frontier || (j >= c->near_job ? open_near >= 0 : open >= 0))
            continue;              /* not below the frontier, or a lower one is known */
        if (job_open(&rows[s], e - s, m, nm, j)) {
            if (j >= c->near_job)
                open_near = j;
            else
                open = j;
        }
    }
    if (top != INT_MAX) {
        /* beyond the window: R unsent results per job of a stretch */
        for (i = 0; i < nm; i++) {
            long long lo = m[i].first > top ? m[i].first : top;
            long long hi = m[i].last < c->frontier - 1 ? m[i].last : c->frontier - 1;
            long long add = (hi - lo + 1) * (c->replication > 0 ? c->replication : 1);
            if (m[i].first < 0 || hi < lo)
                continue;
            add += m[i].unsent;
            m[i].unsent = add > INT_MAX ? INT_MAX : (int)add;
        }
    }
    return open_near >= 0 ? open_near : open;
}
