/*
 * transition_logic.c - the transitioner's per-workunit decision (see
 * transition_logic.h for the rules).  Pure: no I/O, no clock.
 */
#include "transition_logic.h"

#include <string.h>

#include "db_sched.h"

static int is_error_outcome(int outcome)
{
    return outcome == RO_CLIENT_ERROR || outcome == RO_COULDNT_SEND ||
           outcome == RO_VALIDATE_ERROR;
}

/* True when a is an earlier success than b (received first, then id). */
static int earlier(const struct tl_result *a, const struct tl_result *b)
{
    if (a->received_time != b->received_time)
        return a->received_time < b->received_time;
    return a->id < b->id;
}

void tl_decide(const struct tl_wu *wu, const struct tl_result *res, int n, int now,
               enum tl_action *act, struct tl_decision *d)
{
    const struct tl_result *first_success = NULL;
    int i, was_finished, want, pending = 0;

    memset(d, 0, sizeof *d);
    d->canonical_resultid = wu->canonical_resultid;
    d->error_mask = wu->error_mask;
    was_finished = wu->canonical_resultid != 0 || wu->error_mask != 0;

    /* timeouts first: they change the counts below */
    for (i = 0; i < n; i++) {
        const struct tl_result *r = &res[i];
        int state = r->server_state, outcome = r->outcome;
        act[i] = TL_KEEP;
        if (state == RS_IN_PROGRESS && r->report_deadline < now) {
            act[i] = TL_TIMEOUT;
            d->ntimeout++;
            state = RS_OVER;
            outcome = RO_NO_REPLY;
        }
        d->ntotal++;
        if (state == RS_UNSENT || state == RS_INACTIVE) {
            d->nunsent++;
        } else if (state == RS_IN_PROGRESS) {
            d->ninprogress++;
            if (r->replica_flags & TL_HOST_LOST)
                d->nlost++;
        } else if (state == RS_OVER && outcome == RO_SUCCESS && wu->validating) {
            if (r->validate_state == TL_VALIDATE_INVALID) {
                d->ninvalid++;
                continue;
            }
            d->nsuccess++;
            if (r->validate_state == TL_VALIDATE_INIT)
                pending++;
        } else if (state == RS_OVER && outcome == RO_SUCCESS) {
            d->nsuccess++;
            if (!first_success || earlier(r, first_success))
                first_success = r;
            if (r->validate_state == TL_VALIDATE_INIT) {
                act[i] = TL_GRANT;
                d->ngrant++;
            }
        } else if (state == RS_OVER && is_error_outcome(outcome)) {
            d->nerror++;
        }
    }

    if (!was_finished) {
        int quorum = wu->min_quorum > 0 ? wu->min_quorum : 1;
        want = wu->target_nresults > quorum ? wu->target_nresults : quorum;
        if (wu->validating && pending && d->nsuccess >= quorum) {
            d->need_validate = 1;      /* the validator decides, then hands it back */
        } else if (!wu->validating && d->nsuccess >= quorum && first_success) {
            d->canonical_resultid = first_success->id;
        } else if (wu->validating && d->nsuccess + d->ninvalid > wu->max_success_results) {
            d->error_mask |= TL_ERR_TOO_MANY_SUCCESS;
        } else if (d->nerror > wu->max_error_results) {
            d->error_mask |= TL_ERR_TOO_MANY_ERRORS;
        } else {
            int live = d->nsuccess + d->nunsent + d->ninprogress - d->nlost;
            int need = want - live;
            if (need > 0) {
                if (d->ntotal + need <= wu->max_total_results)
                    d->nnew = need;
                else if (d->nlost > 0)   /* the originals may still come back */
                    d->nnew = wu->max_total_results > d->ntotal
                                  ? wu->max_total_results - d->ntotal : 0;
                else
                    d->error_mask |= TL_ERR_TOO_MANY_TOTAL;
            }
        }
    }

    if (was_finished && wu->validating && pending && wu->canonical_resultid)
        d->need_validate = 1;          /* a late success: compared with the canonical one */
    d->finished = d->canonical_resultid != 0 || d->error_mask != 0;
    d->newly_finished = d->finished && !was_finished;
    d->progressed = d->newly_finished || (wu->validating && d->finished && !d->need_validate);
    if (d->finished) {
        for (i = 0; i < n; i++) {
            if (res[i].server_state == RS_UNSENT || res[i].server_state == RS_INACTIVE) {
                act[i] = TL_DIDNT_NEED;
                d->ndidnt_need++;
            }
        }
    }
}
