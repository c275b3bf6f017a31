/*
 * emu_sets.h - the emulator's bookkeeping tables: a map from names to
 * small numbers (interning file and result names) and a set of 64-bit
 * keys (which host received which file).  Open addressing, growing by
 * doubling.  Pure; out of memory is reported, never ignored.
 */
#ifndef LOCSCHED_EMU_SETS_H
#define LOCSCHED_EMU_SETS_H

#include <stddef.h>
#include <stdint.h>

/* Names to ids 0, 1, 2, ... in the order they were first seen. */
struct emu_names {
    char **names;          /* id -> name (owned) */
    int n, cap;
    int *slots;            /* hash table of ids, -1 empty */
    size_t nslots;
};

void emu_names_init(struct emu_names *m);
void emu_names_free(struct emu_names *m);

/* The id of name, or -1 when it is not there. */
int emu_names_find(const struct emu_names *m, const char *name);

/* The id of name, added if new (*added says which); -1 when out of memory. */
int emu_names_add(struct emu_names *m, const char *name, int *added);

/* A set of 64-bit keys (any value but UINT64_MAX). */
struct emu_keyset {
    uint64_t *v;
    size_t nslots, n;
};

void emu_keyset_init(struct emu_keyset *s);
void emu_keyset_free(struct emu_keyset *s);

/* Add key: 1 if new, 0 if already there, -1 when out of memory. */
int emu_keyset_add(struct emu_keyset *s, uint64_t key);
int emu_keyset_has(const struct emu_keyset *s, uint64_t key);

#endif
