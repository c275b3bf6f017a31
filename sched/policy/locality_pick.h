/*
 * locality_pick.h - the order in which a locality host is offered the jobs
 * of its cursor's window, so that each file reaches as few hosts as
 * possible (doc/locality.md, "Sticky preference").
 *
 * Greedy: the next job is the one whose input files cost the fewest bytes
 * to download, counting as free the files the host holds and those of the
 * jobs already picked; ties go to the lower job number, so that job order
 * holds whenever sticky files do not decide.  Pure; O(n^2 * files per job)
 * for a window of n jobs.
 */
#ifndef LOCSCHED_LOCALITY_PICK_H
#define LOCSCHED_LOCALITY_PICK_H

/* One job of the window: its file range in its batch. */
struct lp_job {
    int batch_id;
    int job_num;
    int first_file;
    int nfiles;
};

/* Does the host hold file (batch, file_num)?  Its size in bytes? */
struct lp_files {
    int (*held)(void *ctx, int batch_id, int file_num);
    double (*nbytes)(void *ctx, int batch_id, int file_num);
    void *ctx;
};

/*
 * Write into order[0..n) the indices of jobs[] in the order to offer them.
 * Returns 0, or -1 when out of memory (order is then the identity).
 */
int locality_pick(const struct lp_job *jobs, int n, const struct lp_files *f, int *order);

#endif
