/*
 * locality_pick.c - greedy ordering of a cursor's window by the bytes a
 * host must download (see locality_pick.h).
 */
#include "locality_pick.h"

#include <stdlib.h>

/* A file picked earlier in this ordering: free for the jobs after it. */
struct picked_file {
    int batch_id, file_num;
};

static int picked_has(const struct picked_file *p, int np, int batch_id, int file_num)
{
    int i;
    for (i = 0; i < np; i++)
        if (p[i].batch_id == batch_id && p[i].file_num == file_num)
            return 1;
    return 0;
}

static double missing_bytes(const struct lp_job *j, const struct lp_files *f,
                            const struct picked_file *p, int np)
{
    double sum = 0;
    int k;
    for (k = 0; k < j->nfiles; k++) {
        int fn = j->first_file + k;
        if (f->held(f->ctx, j->batch_id, fn) || picked_has(p, np, j->batch_id, fn))
            continue;
        sum += f->nbytes(f->ctx, j->batch_id, fn);
    }
    return sum;
}

int locality_pick(const struct lp_job *jobs, int n, const struct lp_files *f, int *order)
{
    struct picked_file *p;
    char *used;
    int i, k, np = 0, total_files = 0;

    for (i = 0; i < n; i++) {
        order[i] = i;
        total_files += jobs[i].nfiles > 0 ? jobs[i].nfiles : 0;
    }
    if (n <= 1)
        return 0;
    p = malloc(sizeof *p * (size_t)(total_files ? total_files : 1));
    used = calloc((size_t)n, 1);
    if (!p || !used) {
        free(p);
        free(used);
        return -1;
    }
    for (k = 0; k < n; k++) {
        int best = -1;
        double best_cost = 0;
        for (i = 0; i < n; i++) {
            double cost;
            if (used[i])
                continue;
            cost = missing_bytes(&jobs[i], f, p, np);
            if (best < 0 || cost < best_cost ||
                (cost == best_cost && (jobs[i].batch_id < jobs[best].batch_id ||
                                       (jobs[i].batch_id == jobs[best].batch_id &&
                                        jobs[i].job_num < jobs[best].job_num)))) {
                best = i;
                best_cost = cost;
            }
        }
        used[best] = 1;
        order[k] = best;
        for (i = 0; i < jobs[best].nfiles; i++) {
            int fn = jobs[best].first_file + i;
            if (!picked_has(p, np, jobs[best].batch_id, fn)) {
                p[np].batch_id = jobs[best].batch_id;
                p[np].file_num = fn;
                np++;
            }
        }
    }
    free(p);
    free(used);
    return 0;
}
