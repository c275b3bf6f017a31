/*
 * lost_results.c - the comparison of a host's jobs in progress with what
 * its client holds (see lost_results.h).  Pure: no I/O.
 */
#include "lost_results.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A sorted copy of names[0..n) (the pointers only), or NULL. */
static const char **sorted_copy(const char *const *names, int n)
{
    const char **s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
    if (!s)
        return NULL;
    if (n > 0) {
        memcpy(s, names, sizeof *s * (size_t)n);
        qsort(s, (size_t)n, sizeof *s, cmp_str);
    }
    return s;
}

static int in_sorted(const char **s, int n, const char *name)
{
    return n > 0 && bsearch(&name, s, (size_t)n, sizeof *s, cmp_str) != NULL;
}

int lr_classify(const char *const *server, const enum lr_wu_state *wu, int nserver,
                int server_complete, const char *const *listed, int nlisted,
                const char *const *reported, int nreported, enum lr_verdict *verdict,
                int *listed_foreign)
{
    const char **ls = sorted_copy(listed, nlisted);
    const char **rp = sorted_copy(reported, nreported);
    const char **sv = sorted_copy(server, nserver);
    int i, nlost = 0;

    if (!ls || !rp || !sv) {
        free(ls);
        free(rp);
        free(sv);
        return -1;
    }
    for (i = 0; i < nserver; i++) {
        if (in_sorted(ls, nlisted, server[i])) {
            if (wu[i] == LR_WU_QUORUM)
                verdict[i] = LR_ABORT_IF_NOT_STARTED;
            else if (wu[i] == LR_WU_ERROR)
                verdict[i] = LR_ABORT;
            else
                verdict[i] = LR_HELD;
        } else if (in_sorted(rp, nreported, server[i])) {
            verdict[i] = LR_REPORTED;
        } else {
            verdict[i] = LR_LOST;
            nlost++;
        }
    }
    if (listed_foreign)
        for (i = 0; i < nlisted; i++)
            listed_foreign[i] = server_complete && !in_sorted(sv, nserver, listed[i]);
    free(ls);
    free(rp);
    free(sv);
    return nlost;
}

const char *lr_verdict_str(enum lr_verdict v)
{
    switch (v) {
    case LR_HELD: return "held";
    case LR_REPORTED: return "reported";
    case LR_LOST: return "lost";
    case LR_ABORT_IF_NOT_STARTED: return "abort_if_not_started";
    case LR_ABORT: return "abort";
    }
    return "unknown";
}
