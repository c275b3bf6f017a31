/*
 * test_transition_logic.c - the transitioner's per-workunit decision
 * (daemons/transition_logic.c) on a table of cases: deadlines, quorum,
 * canonical choice, credit, errors, result limits, finished workunits.
 *
 * A case lists the results as short codes (ids 1, 2, ... in order):
 *   U unsent   I inactive   P in progress (deadline given)
 *   S success  E client error   V validate error   C couldn't send
 *   N no reply  X client detached   D didn't need
 *   L in progress on a host presumed gone   B a backup in progress
 * and expects one action letter per result (K keep, T timeout, G grant,
 * D didn't need), the canonical result, the error mask, the number of new
 * results and whether the workunit finished in this decision.
 */
#include <stdio.h>
#include <string.h>

#include "db_sched.h"
#include "tap.h"
#include "transition_logic.h"

#define NOW 1000
#define MAXR 6

struct rspec {
    char code;
    int received;       /* received_time (successes) */
    int deadline;       /* report_deadline (in progress) */
    int granted;        /* validate_state VALID already */
};

struct tcase {
    const char *name;
    int quorum, target, max_errors, max_total, canonical, error_mask;
    struct rspec r[MAXR];
    const char *acts;
    int want_canonical, want_error, want_new, want_newly_finished;
};

static const struct tcase cases[] = {
    { "unsent: nothing to do", 1, 1, 3, 6, 0, 0, { { 'U', 0, 0, 0 } }, "K", 0, 0, 0, 0 },
    { "in progress before its deadline", 1, 1, 3, 6, 0, 0, { { 'P', 0, 2000, 0 } }, "K", 0, 0,
      0, 0 },
    { "deadline equal to now is not past", 1, 1, 3, 6, 0, 0, { { 'P', 0, NOW, 0 } }, "K", 0, 0,
      0, 0 },
    { "past its deadline: NO_REPLY and a replacement", 1, 1, 3, 6, 0, 0,
      { { 'P', 0, NOW - 1, 0 } }, "T", 0, 0, 1, 0 },
    { "one success, quorum 1: canonical and credit", 1, 1, 3, 6, 0, 0, { { 'S', 900, 0, 0 } },
      "G", 1, 0, 0, 1 },
    { "success cancels the unsent replica", 1, 2, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'U', 0, 0, 0 } }, "GD", 1, 0, 0, 1 },
    { "in-progress replica is left alone when finished", 1, 2, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'P', 0, 2000, 0 } }, "GK", 1, 0, 0, 1 },
    { "quorum 2: one success is credited and waits", 2, 2, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'P', 0, 2000, 0 } }, "GK", 0, 0, 0, 0 },
    { "quorum 2: the earliest success is canonical", 2, 2, 3, 6, 0, 0,
      { { 'S', 950, 0, 0 }, { 'S', 900, 0, 0 } }, "GG", 2, 0, 0, 1 },
    { "quorum 2: same time, the lowest id", 2, 2, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'S', 900, 0, 0 } }, "GG", 1, 0, 0, 1 },
    { "quorum above target: results up to the quorum", 2, 1, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 } }, "G", 0, 0, 1, 0 },
    { "error at the limit: a replacement", 1, 1, 1, 6, 0, 0, { { 'E', 0, 0, 0 } }, "K", 0, 0,
      1, 0 },
    { "errors over the limit: TOO_MANY_ERRORS", 1, 1, 1, 6, 0, 0,
      { { 'E', 0, 0, 0 }, { 'E', 0, 0, 0 } }, "KK", 0, 2, 0, 1 },
    { "errors over the limit cancel unsent results", 1, 2, 1, 6, 0, 0,
      { { 'E', 0, 0, 0 }, { 'C', 0, 0, 0 }, { 'U', 0, 0, 0 } }, "KKD", 0, 2, 0, 1 },
    { "validate error is an error", 1, 1, 0, 6, 0, 0, { { 'V', 0, 0, 0 } }, "K", 0, 2, 0, 1 },
    { "no reply is not an error", 1, 1, 0, 6, 0, 0, { { 'N', 0, 0, 0 } }, "K", 0, 0, 1, 0 },
    { "client detached is not an error", 1, 1, 0, 6, 0, 0, { { 'X', 0, 0, 0 } }, "K", 0, 0, 1,
      0 },
    { "a replacement would pass max_total: TOO_MANY_TOTAL", 1, 1, 3, 2, 0, 0,
      { { 'E', 0, 0, 0 }, { 'N', 0, 0, 0 } }, "KK", 0, 8, 0, 1 },
    { "a replacement within max_total", 1, 1, 3, 3, 0, 0,
      { { 'E', 0, 0, 0 }, { 'N', 0, 0, 0 } }, "KK", 0, 0, 1, 0 },
    { "a timeout that reaches max_total", 1, 1, 3, 1, 0, 0, { { 'P', 0, 10, 0 } }, "T", 0, 8, 0,
      1 },
    { "timeout and success in one decision", 1, 2, 3, 6, 0, 0,
      { { 'P', 0, 10, 0 }, { 'S', 900, 0, 0 } }, "TG", 2, 0, 0, 1 },
    { "finished: a late success is still credited", 1, 1, 3, 6, 1, 0,
      { { 'S', 900, 0, 1 }, { 'S', 990, 0, 0 } }, "KG", 1, 0, 0, 0 },
    { "finished and credited: nothing to do", 1, 1, 3, 6, 1, 0, { { 'S', 900, 0, 1 } }, "K", 1,
      0, 0, 0 },
    { "cancelled: unsent results are not needed", 1, 2, 3, 6, 0, 16,
      { { 'U', 0, 0, 0 }, { 'P', 0, 2000, 0 } }, "DK", 0, 16, 0, 0 },
    { "cancelled: a timeout gets no replacement", 1, 1, 3, 6, 0, 16, { { 'P', 0, 10, 0 } },
      "T", 0, 16, 0, 0 },
    { "no results at all: target_nresults of them", 1, 2, 3, 6, 0, 0, { { 0, 0, 0, 0 } }, "", 0,
      0, 2, 0 },
    { "inactive counts as unsent", 1, 1, 3, 6, 0, 0, { { 'I', 0, 0, 0 } }, "K", 0, 0, 0, 0 },
    { "didn't-need results are not replicas", 1, 1, 3, 6, 0, 0, { { 'D', 0, 0, 0 } }, "K", 0, 0,
      1, 0 },
    { "zero quorum acts as one", 0, 1, 3, 6, 0, 0, { { 'S', 900, 0, 0 } }, "G", 1, 0, 0, 1 },
    { "host presumed gone: a new replica before the deadline", 1, 1, 3, 6, 0, 0,
      { { 'L', 0, 2000, 0 } }, "K", 0, 0, 1, 0 },
    { "lost original and its replacement: nothing more", 1, 1, 3, 6, 0, 0,
      { { 'L', 0, 2000, 0 }, { 'P', 0, 2000, 0 } }, "KK", 0, 0, 0, 0 },
    { "lost original and an unsent replacement: nothing more", 1, 1, 3, 6, 0, 0,
      { { 'L', 0, 2000, 0 }, { 'U', 0, 0, 0 } }, "KK", 0, 0, 0, 0 },
    { "the lost original comes back first: it is canonical", 1, 1, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'P', 0, 2000, 0 } }, "GK", 1, 0, 0, 1 },
    { "quorum 2, one replica lost: one new result", 2, 2, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'L', 0, 2000, 0 } }, "GK", 0, 0, 1, 0 },
    { "quorum 2, the replacement and the lost original both count", 2, 2, 3, 6, 0, 0,
      { { 'S', 900, 0, 0 }, { 'S', 950, 0, 0 }, { 'S', 940, 0, 0 } }, "GGG", 1, 0, 0, 1 },
    { "at max_total with a lost original: no error, no new result", 1, 1, 3, 2, 0, 0,
      { { 'N', 0, 0, 0 }, { 'L', 0, 2000, 0 } }, "KK", 0, 0, 0, 0 },
    { "two lost, room for one more under max_total", 1, 2, 3, 3, 0, 0,
      { { 'L', 0, 2000, 0 }, { 'L', 0, 2000, 0 } }, "KK", 0, 0, 1, 0 },
    { "a lost result past its deadline times out as usual", 1, 1, 3, 6, 0, 0,
      { { 'L', 0, 10, 0 }, { 'P', 0, 2000, 0 } }, "TK", 0, 0, 0, 0 },
    { "backup in progress: no new result", 1, 1, 3, 6, 0, 0,
      { { 'P', 0, 2000, 0 }, { 'B', 0, 1500, 0 } }, "KK", 0, 0, 0, 0 },
    { "the backup wins: canonical, the original runs on", 1, 1, 3, 6, 0, 0,
      { { 'P', 0, 2000, 0 }, { 'S', 900, 0, 0 } }, "KG", 2, 0, 0, 1 },
    { "the backup times out: the original is enough", 1, 1, 3, 6, 0, 0,
      { { 'P', 0, 2000, 0 }, { 'B', 0, 10, 0 } }, "KT", 0, 0, 0, 0 },
};

static int make_results(const struct tcase *c, struct tl_result *res)
{
    int n = 0, i;
    for (i = 0; i < MAXR && c->r[i].code; i++) {
        struct tl_result *r = &res[n++];
        memset(r, 0, sizeof *r);
        r->id = i + 1;
        r->server_state = RS_OVER;
        r->received_time = c->r[i].received;
        r->report_deadline = c->r[i].deadline;
        r->validate_state = c->r[i].granted ? TL_VALIDATE_VALID : TL_VALIDATE_INIT;
        switch (c->r[i].code) {
        case 'U': r->server_state = RS_UNSENT; break;
        case 'I': r->server_state = RS_INACTIVE; break;
        case 'P': r->server_state = RS_IN_PROGRESS; break;
        case 'L': r->server_state = RS_IN_PROGRESS; r->replica_flags = TL_HOST_LOST; break;
        case 'B': r->server_state = RS_IN_PROGRESS; r->replica_flags = TL_BACKUP; break;
        case 'S': r->outcome = RO_SUCCESS; break;
        case 'E': r->outcome = RO_CLIENT_ERROR; break;
        case 'V': r->outcome = RO_VALIDATE_ERROR; break;
        case 'C': r->outcome = RO_COULDNT_SEND; break;
        case 'N': r->outcome = RO_NO_REPLY; break;
        case 'X': r->outcome = RO_CLIENT_DETACHED; break;
        case 'D': r->outcome = RO_DIDNT_NEED; break;
        }
    }
    return n;
}

static char act_letter(enum tl_action a)
{
    switch (a) {
    case TL_KEEP: return 'K';
    case TL_TIMEOUT: return 'T';
    case TL_GRANT: return 'G';
    case TL_DIDNT_NEED: return 'D';
    }
    return '?';
}

int main(void)
{
    size_t k;

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct tcase *c = &cases[k];
        struct tl_wu wu;
        struct tl_result res[MAXR];
        enum tl_action act[MAXR];
        struct tl_decision d;
        char got[MAXR + 1];
        int n, i;

        memset(&wu, 0, sizeof wu);
        wu.min_quorum = c->quorum;
        wu.target_nresults = c->target;
        wu.max_error_results = c->max_errors;
        wu.max_total_results = c->max_total;
        wu.canonical_resultid = c->canonical;
        wu.error_mask = c->error_mask;
        n = make_results(c, res);
        tl_decide(&wu, res, n, NOW, act, &d);
        for (i = 0; i < n; i++)
            got[i] = act_letter(act[i]);
        got[n] = '\0';
        TAP_EQ_STR(got, c->acts, "%s: actions", c->name);
        TAP_EQ_INT(d.canonical_resultid, c->want_canonical, "%s: canonical result", c->name);
        TAP_EQ_INT(d.error_mask, c->want_error, "%s: error mask", c->name);
        TAP_EQ_INT(d.nnew, c->want_new, "%s: new results", c->name);
        TAP_EQ_INT(d.newly_finished, c->want_newly_finished, "%s: finished now", c->name);
        TAP_EQ_INT(d.progressed, c->want_newly_finished, "%s: progress only when finished now",
                   c->name);
        TAP_EQ_INT(d.finished, c->want_canonical != 0 || c->want_error != 0,
                   "%s: finished after", c->name);
    }

    /* the counts for log lines: after the timeouts */
    {
        struct tl_wu wu = { 1, 3, 3, 9, 0, 0, 0, 0 };
        struct tl_result res[4] = {
            { 1, RS_IN_PROGRESS, RO_INIT, 0, 0, NOW - 5, 0 },
            { 2, RS_OVER, RO_CLIENT_ERROR, 0, 0, 0, 0 },
            { 3, RS_UNSENT, RO_INIT, 0, 0, 0, 0 },
            { 4, RS_IN_PROGRESS, RO_INIT, 0, 0, NOW + 5, 0 },
        };
        enum tl_action act[4];
        struct tl_decision d;
        tl_decide(&wu, res, 4, NOW, act, &d);
        TAP_EQ_INT(d.ntimeout, 1, "counts: one timeout");
        TAP_EQ_INT(d.nerror, 1, "counts: a timeout is not an error");
        TAP_EQ_INT(d.ninprogress, 1, "counts: in progress after the timeout");
        TAP_EQ_INT(d.nunsent, 1, "counts: unsent");
        TAP_EQ_INT(d.ntotal, 4, "counts: total");
        TAP_EQ_INT(d.nnew, 1, "counts: one new result for target 3");
    }
    return tap_done();
}
