/*
 * array_grow.h - room in a heap array of fixed-size elements that grows
 * by doubling.
 */
#ifndef LOCSCHED_ARRAY_GROW_H
#define LOCSCHED_ARRAY_GROW_H

#include <stddef.h>

/* Make *arr (elements of elsize bytes, room for *cap of them) hold at
 * least need elements: as it is when it does, else reallocated to
 * first_cap elements (when *cap is 0) or *cap, doubled until need fits.
 * Returns 0, or -1 when the size overflows or memory runs out (then *arr
 * and *cap are unchanged). */
int array_grow(void **arr, int *cap, int need, int first_cap, size_t elsize);

#endif
