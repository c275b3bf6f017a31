/*
 * scan_front.c - where a process's read of unsent plain results starts
 * (scan_front.h).
 */
#include "scan_front.h"

int scan_front_start(const struct scan_front *f, time_t now)
{
    if (f->job <= 0 || now < f->full_at || now - f->full_at >= SCAN_FRONT_RESET_SECS)
        return 0;
    return f->job;
}

int scan_front_after(struct scan_front *f, time_t now, int start, int nread, int limit,
                     int first_job)
{
    if (start > 0 && nread < limit)
        return 1;    /* the front is left unchanged: the read from the start sets it */
    if (start <= 0) {
        f->full_at = now;
        /* fewer unsent jobs than a window in all: no front, or every
         * request at a batch's end would read twice */
        if (nread < limit)
            first_job = 0;
    }
    f->job = nread > 0 && first_job > 0 ? first_job : 0;
    return 0;
}
