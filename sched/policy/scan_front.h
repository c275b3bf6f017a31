/*
 * scan_front.h - where a process's read of unsent plain results starts.
 *
 * A claim moves a result's entry out of the unsent range of its index;
 * the old entry stays there, delete-marked, until InnoDB's purge removes
 * it, and a locking read that steps over it also reads the result's row.
 * In the steady state a read from the start of the range steps over the
 * few hundred entries of the results claimed in the last moments, which
 * cost it 3-4 times what the read itself does (doc/load-testing.md,
 * "Where MariaDB's time goes").  So a process starts its next read at
 * its front: the lowest job of its previous read.  It reads from the
 * start when that read comes back short (a batch's end, another app's
 * jobs below the front), and at least every SCAN_FRONT_RESET_SECS, so
 * that a job below the front (sent again, a retry) waits at most that.
 */
#ifndef LOCSCHED_SCAN_FRONT_H
#define LOCSCHED_SCAN_FRONT_H

#include <time.h>

#define SCAN_FRONT_RESET_SECS 5

struct scan_front {
    int job;          /* the lowest job of the last read; 0: none */
    time_t full_at;   /* when the last read from the start was made */
};

/* The first job the next read should consider: 0 (from the start) or
 * the front, while it is younger than SCAN_FRONT_RESET_SECS. */
int scan_front_start(const struct scan_front *f, time_t now);

/* After a read that started at start (0: from the start) and returned
 * nread rows, the lowest job first_job: whether to read again from the
 * start (1: the bounded read came back short of limit), and the new
 * front (none after a read from the start that came back short: the
 * unsent jobs then fit in one window, and a front would only make every
 * request read twice). */
int scan_front_after(struct scan_front *f, time_t now, int start, int nread, int limit,
                     int first_job);

#endif /* LOCSCHED_SCAN_FRONT_H */
