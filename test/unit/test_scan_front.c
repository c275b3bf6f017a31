/*
 * test_scan_front.c - where a process's read of unsent plain results
 * starts (sched/policy/scan_front.c).
 */
#include "scan_front.h"
#include "tap.h"

int main(void)
{
    struct scan_front f = { 0, 0 };
    time_t t = 1000;

    TAP_EQ_INT(scan_front_start(&f, t), 0, "no front yet: from the start");
    TAP_EQ_INT(scan_front_after(&f, t, 0, 8, 8, 120), 0, "a full read from the start: done");
    TAP_EQ_INT(f.job, 120, "the front is the read's lowest job");
    TAP_EQ_INT(scan_front_start(&f, t + 1), 120, "the next read starts at the front");
    TAP_EQ_INT(scan_front_after(&f, t + 1, 120, 8, 8, 124), 0, "a full bounded read: done");
    TAP_EQ_INT(scan_front_start(&f, t + 2), 124, "the front follows the reads");
    TAP_EQ_INT(scan_front_after(&f, t + 2, 124, 3, 8, 130), 1,
               "a bounded read that came back short: read again from the start");
    TAP_EQ_INT(f.job, 124, "... the front is kept until that read");
    TAP_EQ_INT(scan_front_after(&f, t + 2, 0, 8, 8, 7), 0, "the read from the start");
    TAP_EQ_INT(f.job, 7, "... sets the front below (a job sent again, another app's)");
    TAP_EQ_INT(scan_front_start(&f, t + 2 + SCAN_FRONT_RESET_SECS - 1), 7,
               "the front holds for less than SCAN_FRONT_RESET_SECS");
    TAP_EQ_INT(scan_front_start(&f, t + 2 + SCAN_FRONT_RESET_SECS), 0,
               "then a read from the start, so that no job below waits longer");
    TAP_EQ_INT(scan_front_start(&f, t - 10), 0, "a clock that went back: from the start");
    TAP_EQ_INT(scan_front_after(&f, t + 20, 0, 0, 8, 0), 0, "nothing unsent: done");
    TAP_EQ_INT(f.job, 0, "... and no front");
    TAP_EQ_INT(scan_front_start(&f, t + 21), 0, "no front: from the start");
    TAP_EQ_INT(scan_front_after(&f, t + 22, 0, 2, 8, 0), 0, "job 0 read first");
    TAP_EQ_INT(scan_front_start(&f, t + 23), 0, "a front at job 0 is the start");
    TAP_EQ_INT(scan_front_after(&f, t + 30, 0, 5, 8, 40), 0, "a short read from the start");
    TAP_EQ_INT(scan_front_start(&f, t + 31), 0,
               "... leaves no front: the next read is one read from the start, not two");
    return tap_done();
}
