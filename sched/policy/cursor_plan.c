/*
 * cursor_plan.c - cutting a locality batch into cursors (see
 * cursor_plan.h).
 */
#include "cursor_plan.h"

int cursor_count(int active_hosts, int team_size_min, int team_size_max, int njobs)
{
    int n, cap, target;
    if (team_size_max < 1)
        team_size_max = 1;
    if (team_size_min < 1 || team_size_min > team_size_max)
        team_size_min = team_size_max;
    target = (team_size_min + team_size_max + 1) / 2;
    if (active_hosts < 1)
        active_hosts = 1;
    n = (active_hosts + target - 1) / target;
    cap = njobs / (2 * team_size_max);
    if (n > cap)
        n = cap;
    return n < 1 ? 1 : n;
}

/* Do jobs j-1 and j share no file (a clean place to cut before j)? */
static int clean_cut(const int *first_file, const int *nfiles, int j)
{
    return first_file[j - 1] + nfiles[j - 1] <= first_file[j];
}

int cursor_plan(const double *fpops, const int *first_file, const int *nfiles, int njobs,
                int ncursors, int *first_job)
{
    double total = 0, acc = 0;
    int j, k = 1, slack;

    if (njobs < 1)
        return -1;
    if (ncursors < 1)
        ncursors = 1;
    if (ncursors > njobs)
        ncursors = njobs;
    for (j = 0; j < njobs; j++)
        total += fpops[j] > 0 ? fpops[j] : 0;
    first_job[0] = 0;
    slack = njobs / ncursors / 8;
    for (j = 0; j < njobs && k < ncursors; j++) {
        acc += fpops[j] > 0 ? fpops[j] : 0;
        if (acc >= total * k / ncursors && j + 1 < njobs) {
            int cut = j + 1, d;
            /* the nearest clean cut within the slack, keeping ranges non-empty */
            for (d = 0; d <= slack; d++) {
                if (cut - d > first_job[k - 1] && clean_cut(first_file, nfiles, cut - d)) {
                    cut -= d;
                    break;
                }
                if (cut + d < njobs && clean_cut(first_file, nfiles, cut + d)) {
                    cut += d;
                    break;
                }
            }
            if (cut <= first_job[k - 1])
                continue;
            first_job[k++] = cut;
            while (j + 1 < cut) {    /* skip the jobs the cut moved past */
                j++;
                acc += fpops[j] > 0 ? fpops[j] : 0;
            }
            if (j >= cut) {          /* the cut moved back: recount */
                acc = 0;
                for (d = 0; d < cut; d++)
                    acc += fpops[d] > 0 ? fpops[d] : 0;
                j = cut - 1;
            }
        }
    }
    first_job[k] = njobs;
    return k;
}

int cursor_last_file(const int *first_file, const int *nfiles, int first, int last)
{
    int j, m = -1;
    for (j = first; j <= last; j++)
        if (nfiles[j] > 0 && first_file[j] + nfiles[j] - 1 > m)
            m = first_file[j] + nfiles[j] - 1;
    return m;
}
