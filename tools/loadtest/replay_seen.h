/*
 * replay_seen.h - the load replay's record of every result sent: name ->
 * the host it went to, so that a result sent twice (to two hosts, or
 * twice to one) is noticed at once.  An open-addressing hash table of
 * strings.  Pure: no I/O.
 */
#ifndef LOCSCHED_REPLAY_SEEN_H
#define LOCSCHED_REPLAY_SEEN_H

#include <stddef.h>

struct seen_entry {
    char *name;          /* heap; NULL = empty slot */
    int host;
};

struct seen_set {
    struct seen_entry *e;
    size_t cap, n;       /* cap is a power of two */
};

/*
 * Record that result name went to host.  Returns 0 when it is new, 1 when
 * it was seen before (*prev_host gets the host it went to first; the
 * first host is kept), -1 when out of memory.
 */
int seen_add(struct seen_set *s, const char *name, int host, int *prev_host);

/* The host a result went to, or -1. */
int seen_host(const struct seen_set *s, const char *name);

void seen_free(struct seen_set *s);

#endif
