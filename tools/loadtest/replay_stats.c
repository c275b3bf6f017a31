/*
 * replay_stats.c - latency percentiles, error counters and the reasons
 * for no work of the load replay (see replay_stats.h).
 */
#include "replay_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lat_add(struct lat_samples *s, double ms)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        double *q = realloc(s->ms, cap * sizeof *q);
        if (!q) {
            s->oom = 1;
            return -1;
        }
        s->ms = q;
        s->cap = cap;
    }
    s->ms[s->n++] = ms;
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double lat_percentile(const double *sorted, size_t n, double p)
{
    size_t rank;
    if (n == 0)
        return 0;
    if (!(p > 0))
        return sorted[0];
    if (p >= 100)
        return sorted[n - 1];
    rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

void lat_summarize(struct lat_samples *s, struct lat_summary *sum)
{
    double total = 0;
    size_t i;

    memset(sum, 0, sizeof *sum);
    if (s->n == 0)
        return;
    qsort(s->ms, s->n, sizeof *s->ms, cmp_dbl);
    for (i = 0; i < s->n; i++)
        total += s->ms[i];
    sum->n = s->n;
    sum->p50 = lat_percentile(s->ms, s->n, 50);
    sum->p90 = lat_percentile(s->ms, s->n, 90);
    sum->p99 = lat_percentile(s->ms, s->n, 99);
    sum->max = s->ms[s->n - 1];
    sum->mean = total / (double)s->n;
}

void lat_free(struct lat_samples *s)
{
    free(s->ms);
    memset(s, 0, sizeof *s);
}

const char *replay_err_name(enum replay_err e)
{
    switch (e) {
    case RE_TRANSPORT: return "transport";
    case RE_HTTP: return "http";
    case RE_UNPARSEABLE: return "unparseable";
    case RE_MESSAGE: return "error_message";
    case RE_PROTOCOL: return "protocol";
    case RE_DOUBLE_SEND: return "double_send";
    case RE_NKINDS: break;
    }
    return "unknown";
}

unsigned long replay_errors_total(const struct replay_counts *c)
{
    unsigned long t = 0;
    int i;
    for (i = 0; i < RE_NKINDS; i++)
        t += c->errors[i];
    return t;
}

void reason_add(struct reason_counts *t, const char *reason)
{
    int i;

    if (!reason || !reason[0])
        reason = "none given";
    if (strlen(reason) >= sizeof t->name[0]) {
        t->other++;
        return;
    }
    for (i = 0; i < t->count; i++)
        if (strcmp(t->name[i], reason) == 0) {
            t->n[i]++;
            return;
        }
    if (t->count == REPLAY_MAX_REASONS) {
        t->other++;
        return;
    }
    strcpy(t->name[t->count], reason);
    t->n[t->count++] = 1;
}
