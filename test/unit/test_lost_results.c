/*
 * test_lost_results.c - the comparison of a host's jobs in progress with
 * what its client holds (sched/policy/lost_results.c).
 */
#include <string.h>

#include "lost_results.h"
#include "tap.h"

int main(void)
{
    const char *server[] = { "a_0", "b_0", "c_0", "d_0", "e_0" };
    enum lr_wu_state wu[] = { LR_WU_NEEDED, LR_WU_NEEDED, LR_WU_QUORUM, LR_WU_ERROR,
                              LR_WU_NEEDED };
    const char *listed[] = { "c_0", "x_0", "a_0", "d_0" };
    const char *reported[] = { "e_0" };
    enum lr_verdict v[5];
    int foreign[4], n;

    n = lr_classify(server, wu, 5, 1, listed, 4, reported, 1, v, foreign);
    TAP_EQ_INT(n, 1, "one lost job");
    TAP_EQ_INT(v[0], LR_HELD, "a listed job still needed is held");
    TAP_EQ_INT(v[1], LR_LOST, "a job neither listed nor reported is lost");
    TAP_EQ_INT(v[2], LR_ABORT_IF_NOT_STARTED, "a listed job past its quorum: abort if not started");
    TAP_EQ_INT(v[3], LR_ABORT, "a listed job of an aborted workunit: abort");
    TAP_EQ_INT(v[4], LR_REPORTED, "a reported job is not lost");
    TAP_EQ_INT(foreign[0] + foreign[2] + foreign[3], 0, "listed jobs in progress are not foreign");
    TAP_EQ_INT(foreign[1], 1, "a listed job not in progress on the host is foreign");

    /* the server's list was cut: no listed job is foreign */
    n = lr_classify(server, wu, 2, 0, listed, 4, reported, 1, v, foreign);
    TAP_EQ_INT(n, 1, "cut list: the lost job read is still lost");
    TAP_EQ_INT(foreign[0] + foreign[1] + foreign[2] + foreign[3], 0,
               "cut list: nothing listed is taken as foreign");

    /* nothing in progress, nothing listed */
    n = lr_classify(NULL, NULL, 0, 1, NULL, 0, NULL, 0, v, NULL);
    TAP_EQ_INT(n, 0, "empty: nothing lost");

    /* the client lists nothing: everything in progress is lost */
    n = lr_classify(server, wu, 5, 1, NULL, 0, NULL, 0, v, NULL);
    TAP_EQ_INT(n, 5, "empty list: every job in progress is lost");
    TAP_EQ_STR(lr_verdict_str(LR_ABORT_IF_NOT_STARTED), "abort_if_not_started", "verdict names");
    return tap_done();
}
