/*
 * emu_sets.c - name map and key set (emu_sets.h).
 */
#include "emu_sets.h"

#include <stdlib.h>
#include <string.h>

#include "emu_rng.h"

#define EMPTY_KEY UINT64_MAX

void emu_names_init(struct emu_names *m)
{
    memset(m, 0, sizeof *m);
}

void emu_names_free(struct emu_names *m)
{
    int i;
    for (i = 0; i < m->n; i++)
        free(m->names[i]);
    free(m->names);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static size_t name_slot(const struct emu_names *m, const char *name)
{
    size_t i = (size_t)emu_hash(name, 0) & (m->nslots - 1);
    while (m->slots[i] >= 0 && strcmp(m->names[m->slots[i]], name) != 0)
        i = (i + 1) & (m->nslots - 1);
    return i;
}

int emu_names_find(const struct emu_names *m, const char *name)
{
    if (m->nslots == 0)
        return -1;
    return m->slots[name_slot(m, name)];
}

static int names_grow(struct emu_names *m)
{
    size_t nslots = m->nslots ? m->nslots * 2 : 1024, i;
    int *old = m->slots, k;
    int *slots = malloc(sizeof *slots * nslots);
    if (!slots)
        return -1;
    for (i = 0; i < nslots; i++)
        slots[i] = -1;
    m->slots = slots;
    m->nslots = nslots;
    for (k = 0; k < m->n; k++)
        m->slots[name_slot(m, m->names[k])] = k;
    free(old);
    return 0;
}

int emu_names_add(struct emu_names *m, const char *name, int *added)
{
    size_t i;
    char *copy;
    *added = 0;
    if ((size_t)(m->n + 1) * 2 > m->nslots && names_grow(m) < 0)
        return -1;
    i = name_slot(m, name);
    if (m->slots[i] >= 0)
        return m->slots[i];
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 1024;
        char **v = realloc(m->names, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        m->names = v;
        m->cap = cap;
    }
    copy = strdup(name);
    if (!copy)
        return -1;
    m->names[m->n] = copy;
    m->slots[i] = m->n;
    *added = 1;
    return m->n++;
}

void emu_keyset_init(struct emu_keyset *s)
{
    memset(s, 0, sizeof *s);
}

void emu_keyset_free(struct emu_keyset *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static size_t key_slot(const struct emu_keyset *s, uint64_t key)
{
    size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 17) & (s->nslots - 1);
    while (s->v[i] != EMPTY_KEY && s->v[i] != key)
        i = (i + 1) & (s->nslots - 1);
    return i;
}

static int keyset_grow(struct emu_keyset *s)
{
    size_t nslots = s->nslots ? s->nslots * 2 : 4096, i;
    uint64_t *old = s->v, *v = malloc(sizeof *v * nslots);
    size_t oldn = s->nslots;
    if (!v)
        return -1;
    for (i = 0; i < nslots; i++)
        v[i] = EMPTY_KEY;
    s->v = v;
    s->nslots = nslots;
    for (i = 0; i < oldn; i++)
        if (old[i] != EMPTY_KEY)
            s->v[key_slot(s, old[i])] = old[i];
    free(old);
    return 0;
}

int emu_keyset_add(struct emu_keyset *s, uint64_t key)
{
    size_t i;
    if ((s->n + 1) * 2 > s->nslots && keyset_grow(s) < 0)
        return -1;
    i = key_slot(s, key);
    if (s->v[i] == key)
        return 0;
    s->v[i] = key;
    s->n++;
    return 1;
}

int emu_keyset_has(const struct emu_keyset *s, uint64_t key)
{
    return s->nslots && s->v[key_slot(s, key)] == key;
}
