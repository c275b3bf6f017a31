/*
 * test_array_grow.c - unit tests of array_grow() (sched/common): room
 * left as it is, the first capacity, doubling, a need beyond one
 * doubling, and the overflow refusal that leaves the array untouched.
 */
#include "array_grow.h"
#include "tap.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

int main(void)
{
    int *a = NULL, cap = 0, *before, i;

    TAP_EQ_INT(array_grow((void **)&a, &cap, 0, 16, sizeof *a), 0, "need 0: nothing to do");
    TAP_CHECK(a == NULL && cap == 0, "and nothing allocated");
    TAP_EQ_INT(array_grow((void **)&a, &cap, 1, 16, sizeof *a), 0, "the first element");
    TAP_CHECK(a != NULL && cap == 16, "first_cap elements (%d)", cap);
    for (i = 0; i < 16; i++)
        a[i] = i;
    before = a;
    TAP_EQ_INT(array_grow((void **)&a, &cap, 16, 16, sizeof *a), 0, "need within capacity");
    TAP_CHECK(a == before && cap == 16, "unchanged");
    TAP_EQ_INT(array_grow((void **)&a, &cap, 17, 16, sizeof *a), 0, "one more");
    TAP_EQ_INT(cap, 32, "doubled");
    TAP_EQ_INT(array_grow((void **)&a, &cap, 200, 16, sizeof *a), 0, "far more");
    TAP_EQ_INT(cap, 256, "doubled until it fits");
    for (i = 0; i < 16 && a[i] == i; i++)
        ;
    TAP_EQ_INT(i, 16, "the elements are kept");
    before = a;
    TAP_EQ_INT(array_grow((void **)&a, &cap, INT_MAX, 16, SIZE_MAX / 4), -1,
               "a size that overflows is refused");
    TAP_CHECK(a == before && cap == 256, "and leaves the array as it was");
    free(a);

    a = NULL;
    cap = 0;
    TAP_EQ_INT(array_grow((void **)&a, &cap, 3, 0, sizeof *a), 0, "first_cap 0");
    TAP_CHECK(cap >= 3, "still room for the need (%d)", cap);
    free(a);
    return tap_done();
}
