/*
 * replay_seen.c - hash table of results sent (see replay_seen.h).
 */
#include "replay_seen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits. */
static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static struct seen_entry *slot_of(struct seen_entry *e, size_t cap, const char *name)
{
    size_t i = (size_t)hash(name) & (cap - 1);
    while (e[i].name && strcmp(e[i].name, name) != 0)
        i = (i + 1) & (cap - 1);
    return &e[i];
}

static int grow(struct seen_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 4096, i;
    struct seen_entry *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (i = 0; i < s->cap; i++)
        if (s->e[i].name)
            *slot_of(e, cap, s->e[i].name) = s->e[i];
    free(s->e);
    s->e = e;
    s->cap = cap;
    return 0;
}

int seen_add(struct seen_set *s, const char *name, int host, int *prev_host)
{
    struct seen_entry *x;
    if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
        return -1;
    x = slot_of(s->e, s->cap, name);
    if (x->name) {
        if (prev_host)
            *prev_host = x->host;
        return 1;
    }
    x->name = strdup(name);
    if (!x->name)
        return -1;
    x->host = host;
    s->n++;
    return 0;
}

int seen_host(const struct seen_set *s, const char *name)
{
    const struct seen_entry *x;
    if (!s->cap)
        return -1;
    x = slot_of(s->e, s->cap, name);
    return x->name ? x->host : -1;
}

void seen_free(struct seen_set *s)
{
    size_t i;
    for (i = 0; i < s->cap; i++)
        free(s->e[i].name);
    free(s->e);
    memset(s, 0, sizeof *s);
}
