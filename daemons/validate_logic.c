/*
 * validate_logic.c - the validator's per-workunit decision (see
 * validate_logic.h for the rules).  Pure: no I/O.
 */
#include "validate_logic.h"

#include <string.h>

#include "transition_logic.h"

struct memo {
    va_cmp_fn cmp;
    void *ctx;
    signed char m[VA_MAX_RESULTS][VA_MAX_RESULTS];   /* -1 unknown */
    int ncompared;
};

static int match(struct memo *x, int i, int j)
{
    if (i == j)
        return 1;
    if (x->m[i][j] < 0) {
        int v = x->cmp(x->ctx, i, j) ? 1 : 0;
        x->m[i][j] = x->m[j][i] = (signed char)v;
        x->ncompared++;
    }
    return x->m[i][j];
}

static int is_candidate(const struct va_result *r)
{
    return !r->bad && (r->validate_state == TL_VALIDATE_INIT ||
                       r->validate_state == TL_VALIDATE_INCONCLUSIVE);
}

/* Candidate indexes in report order into ord; returns how many. */
static int report_order(const struct va_result *res, int n, int *ord)
{
    int k = 0, i, j;
    for (i = 0; i < n; i++) {
        if (!is_candidate(&res[i]))
            continue;
        for (j = k; j > 0; j--) {
            const struct va_result *y = &res[ord[j - 1]];
            if (y->received_time < res[i].received_time ||
                (y->received_time == res[i].received_time && y->id < res[i].id))
                break;
            ord[j] = ord[j - 1];
        }
        ord[j] = i;
        k++;
    }
    return k;
}

static void count(const int *state, const struct va_result *res, int n, struct va_decision *d)
{
    int i;
    for (i = 0; i < n; i++) {
        if (state[i] == res[i].validate_state && !res[i].bad)
            continue;
        if (res[i].bad)
            d->nbad++;
        if (state[i] == TL_VALIDATE_VALID)
            d->nvalid++;
        else if (state[i] == TL_VALIDATE_INVALID)
            d->ninvalid++;
        else if (state[i] == TL_VALIDATE_INCONCLUSIVE)
            d->ninconclusive++;
    }
}

void va_decide(int min_quorum, int canonical_resultid, const struct va_result *res, int n,
               va_cmp_fn cmp, void *ctx, int *state, struct va_decision *d)
{
    static struct memo x;      /* large; the validator is single-threaded */
    int ord[VA_MAX_RESULTS];
    int i, k, nc, quorum = min_quorum > 0 ? min_quorum : 1;

    memset(d, 0, sizeof *d);
    d->canonical = -1;
    if (n > VA_MAX_RESULTS)
        n = VA_MAX_RESULTS;
    x.cmp = cmp;
    x.ctx = ctx;
    x.ncompared = 0;
    memset(x.m, -1, sizeof x.m);
    for (i = 0; i < n; i++) {
        state[i] = res[i].validate_state;
        if (res[i].bad)
            state[i] = TL_VALIDATE_INVALID;
        if (canonical_resultid && res[i].id == canonical_resultid)
            d->canonical = i;
    }

    if (canonical_resultid) {
        for (i = 0; i < n; i++) {
            if (!is_candidate(&res[i]) || i == d->canonical)
                continue;
            if (d->canonical < 0)
                state[i] = TL_VALIDATE_NO_CHECK;
            else
                state[i] = match(&x, d->canonical, i) ? TL_VALIDATE_VALID : TL_VALIDATE_INVALID;
        }
        d->ncompared = x.ncompared;
        count(state, res, n, d);
        return;
    }

    nc = report_order(res, n, ord);
    for (k = 0; k < nc; k++) {
        int c = ord[k], agree = 0, j;
        for (j = 0; j < nc; j++)
            agree += match(&x, c, ord[j]);
        if (agree < quorum)
            continue;
        d->canonical = c;
        for (j = 0; j < nc; j++)
            state[ord[j]] = match(&x, c, ord[j]) ? TL_VALIDATE_VALID : TL_VALIDATE_INVALID;
        break;
    }
    if (d->canonical < 0) {
        for (k = 0; k < nc; k++)
            state[ord[k]] = TL_VALIDATE_INCONCLUSIVE;
        d->target_nresults = nc + 1;
    }
    d->ncompared = x.ncompared;
    count(state, res, n, d);
}
