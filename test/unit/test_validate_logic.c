/*
 * test_validate_logic.c - the validator's per-workunit decision
 * (daemons/validate_logic.c) on outputs given as letters (results with
 * the same letter match; '-' a bad output), and the transitioner's rules
 * when a validator runs (daemons/transition_logic.c, tl_wu.validating):
 * no credit, need_validate at the quorum, INVALID successes replaced,
 * too many successes.
 */
#include <string.h>

#include "db_sched.h"
#include "tap.h"
#include "transition_logic.h"
#include "validate_logic.h"

static const char *outputs;    /* one letter per result */
static int ncmp;

static int cmp(void *ctx, int i, int j)
{
    (void)ctx;
    ncmp++;
    return outputs[i] == outputs[j];
}

/* Decide for results 1..n with outputs out (received in id order, all
 * INIT unless states given); the new states as letters into got
 * (I init, V valid, X invalid, N no check, ? inconclusive). */
static void run(int quorum, int canonical, const char *out, const int *states, char *got,
                struct va_decision *d)
{
    struct va_result r[VA_MAX_RESULTS];
    int st[VA_MAX_RESULTS], n = (int)strlen(out), i;
    static const char letters[] = "IVXN?L";

    memset(r, 0, sizeof r);
    outputs = out;
    ncmp = 0;
    for (i = 0; i < n; i++) {
        r[i].id = i + 1;
        r[i].validate_state = states ? states[i] : TL_VALIDATE_INIT;
        r[i].received_time = 100 + i;
        r[i].bad = out[i] == '-';
    }
    va_decide(quorum, canonical, r, n, cmp, NULL, st, d);
    for (i = 0; i < n; i++)
        got[i] = letters[st[i]];
    got[n] = '\0';
}

static void test_validate(void)
{
    struct va_decision d;
    char got[VA_MAX_RESULTS + 1];
    int inconcl[3] = { TL_VALIDATE_INCONCLUSIVE, TL_VALIDATE_INCONCLUSIVE, TL_VALIDATE_INIT };
    int late[3] = { TL_VALIDATE_VALID, TL_VALIDATE_VALID, TL_VALIDATE_INIT };

    run(2, 0, "aa", NULL, got, &d);
    TAP_EQ_STR(got, "VV", "quorum 2, agreeing: both valid");
    TAP_EQ_INT(d.canonical, 0, "quorum 2, agreeing: the first reported is canonical");
    TAP_EQ_INT(ncmp, 1, "quorum 2: one comparison");

    run(2, 0, "ab", NULL, got, &d);
    TAP_EQ_STR(got, "??", "quorum 2, disagreeing: both inconclusive");
    TAP_EQ_INT(d.canonical, -1, "disagreeing: no canonical");
    TAP_EQ_INT(d.target_nresults, 3, "disagreeing: one more result wanted");

    run(2, 0, "ab", NULL, got, &d);
    run(2, 0, "aba", inconcl, got, &d);
    TAP_EQ_STR(got, "VXV", "the third result breaks the tie");
    TAP_EQ_INT(d.canonical, 0, "tie broken: the earliest of the majority");
    TAP_EQ_INT(d.nvalid, 2, "tie broken: two valid");
    TAP_EQ_INT(d.ninvalid, 1, "tie broken: one invalid");

    run(2, 0, "bab", NULL, got, &d);
    TAP_EQ_STR(got, "VXV", "quorum 2 of 3: the majority wins");

    run(3, 0, "aab", NULL, got, &d);
    TAP_EQ_STR(got, "???", "quorum 3, two agree: inconclusive");
    TAP_EQ_INT(d.target_nresults, 4, "quorum 3: a fourth result wanted");
    run(3, 0, "aaa", NULL, got, &d);
    TAP_EQ_STR(got, "VVV", "quorum 3, three agree: all valid");
    TAP_EQ_INT(ncmp, 2, "quorum 3: each pair compared at most once");

    run(2, 0, "a-", NULL, got, &d);
    TAP_EQ_STR(got, "?X", "a missing output is invalid, the other waits");
    TAP_EQ_INT(d.nbad, 1, "missing output counted as bad");
    TAP_EQ_INT(d.target_nresults, 2, "missing output: a replacement wanted");
    run(2, 0, "--", NULL, got, &d);
    TAP_EQ_STR(got, "XX", "both outputs missing: both invalid");
    TAP_EQ_INT(ncmp, 0, "bad outputs are never compared");

    run(1, 0, "a", NULL, got, &d);
    TAP_EQ_STR(got, "V", "quorum 1: valid alone");

    run(2, 1, "aab", late, got, &d);
    TAP_EQ_STR(got, "VVX", "late result unlike the canonical: invalid");
    run(2, 1, "aba", late, got, &d);
    TAP_EQ_STR(got, "VVV", "late result like the canonical: valid");
    TAP_EQ_INT(d.nvalid, 1, "late result: one newly valid");
    run(2, 9, "aba", late, got, &d);
    TAP_EQ_STR(got, "VVN", "canonical result gone: no check");
}

/* The transitioner with a validator: results as in test_transition_logic. */
static void tl(int quorum, int target, int max_success, int canonical,
               const struct tl_result *res, int n, enum tl_action *act, struct tl_decision *d)
{
    struct tl_wu wu;
    memset(&wu, 0, sizeof wu);
    wu.min_quorum = quorum;
    wu.target_nresults = target;
    wu.max_error_results = 3;
    wu.max_total_results = 6;
    wu.max_success_results = max_success;
    wu.canonical_resultid = canonical;
    wu.validating = 1;
    tl_decide(&wu, res, n, 1000, act, d);
}

static void test_transitioner(void)
{
    enum tl_action act[4];
    struct tl_decision d;
    struct tl_result two[2] = {
        { 1, RS_OVER, RO_SUCCESS, TL_VALIDATE_INIT, 900, 0, 0 },
        { 2, RS_OVER, RO_SUCCESS, TL_VALIDATE_INIT, 910, 0, 0 },
    };
    struct tl_result one[2] = {
        { 1, RS_OVER, RO_SUCCESS, TL_VALIDATE_INIT, 900, 0, 0 },
        { 2, RS_IN_PROGRESS, RO_INIT, 0, 0, 2000, 0 },
    };
    struct tl_result inv[2] = {
        { 1, RS_OVER, RO_SUCCESS, TL_VALIDATE_INCONCLUSIVE, 900, 0, 0 },
        { 2, RS_OVER, RO_SUCCESS, TL_VALIDATE_INVALID, 910, 0, 0 },
    };
    struct tl_result incon[3] = {
        { 1, RS_OVER, RO_SUCCESS, TL_VALIDATE_INCONCLUSIVE, 900, 0, 0 },
        { 2, RS_OVER, RO_SUCCESS, TL_VALIDATE_INCONCLUSIVE, 910, 0, 0 },
        { 3, RS_OVER, RO_SUCCESS, TL_VALIDATE_INCONCLUSIVE, 920, 0, 0 },
    };
    struct tl_result late[2] = {
        { 1, RS_OVER, RO_SUCCESS, TL_VALIDATE_VALID, 900, 0, 0 },
        { 2, RS_OVER, RO_SUCCESS, TL_VALIDATE_INIT, 950, 0, 0 },
    };

    tl(2, 2, 6, 0, two, 2, act, &d);
    TAP_EQ_INT(d.need_validate, 1, "validating: quorum reached, need_validate");
    TAP_EQ_INT(d.ngrant, 0, "validating: no credit from the transitioner");
    TAP_EQ_INT(d.canonical_resultid, 0, "validating: no canonical from the transitioner");
    tl(2, 2, 6, 0, one, 2, act, &d);
    TAP_EQ_INT(d.need_validate, 0, "validating: below the quorum, no need_validate");
    TAP_EQ_INT(d.nnew, 0, "validating: a replica in progress, nothing new");
    tl(2, 2, 6, 0, inv, 2, act, &d);
    TAP_EQ_INT(d.nsuccess, 1, "an INVALID success does not count");
    TAP_EQ_INT(d.nnew, 1, "an INVALID success is replaced");
    tl(2, 4, 6, 0, incon, 3, act, &d);
    TAP_EQ_INT(d.nnew, 1, "inconclusive: target raised by the validator, one replica more");
    tl(2, 4, 2, 0, incon, 3, act, &d);
    TAP_EQ_INT(d.error_mask, TL_ERR_TOO_MANY_SUCCESS, "more than max_success_results: error 4");
    TAP_EQ_INT(d.newly_finished, 1, "too many successes: finished");
    tl(2, 2, 6, 1, late, 2, act, &d);
    TAP_EQ_INT(d.need_validate, 1, "late success after the canonical: need_validate");
    TAP_EQ_INT(d.ngrant, 0, "late success: no credit before validation");
    TAP_EQ_INT(d.progressed, 0, "late success: cursor not recomputed before validation");
    late[1].validate_state = TL_VALIDATE_VALID;
    tl(1, 1, 6, 1, late, 2, act, &d);
    TAP_EQ_INT(d.newly_finished, 0, "handed back by the validator: not newly finished here");
    TAP_EQ_INT(d.progressed, 1, "handed back by the validator: cursor or batch recomputed");
    TAP_EQ_INT(d.need_validate, 0, "handed back by the validator: nothing to validate");
    tl(2, 2, 6, 0, two, 2, act, &d);
    TAP_EQ_INT(d.progressed, 0, "waiting for the validator: no progress");
}

int main(void)
{
    test_validate();
    test_transitioner();
    return tap_done();
}
