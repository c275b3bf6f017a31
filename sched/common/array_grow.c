/*
 * array_grow.c - room in a growable heap array (see array_grow.h).
 */
#include "array_grow.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

int array_grow(void **arr, int *cap, int need, int first_cap, size_t elsize)
{
    int ncap;
    void *p;

    if (need <= *cap)
        return 0;
    ncap = *cap > 0 ? *cap : first_cap > 0 ? first_cap : 1;
    while (ncap < need)
        ncap = ncap > INT_MAX / 2 ? need : ncap * 2;
    if (elsize == 0 || (size_t)ncap > SIZE_MAX / elsize)
        return -1;
    p = realloc(*arr, (size_t)ncap * elsize);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}
