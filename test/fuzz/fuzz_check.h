/*
 * fuzz_check.h - the one assertion of the fuzz targets: a broken
 * post-condition of a parser aborts, which libFuzzer reports as a crash
 * and saves the input (doc/fuzzing.md).
 */
#ifndef LOCSCHED_FUZZ_CHECK_H
#define LOCSCHED_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: post-condition failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* Nonzero if s holds a NUL within its first size bytes. */
#define FUZZ_TERMINATED(s) (memchr((s), '\0', sizeof(s)) != NULL)

#endif /* LOCSCHED_FUZZ_CHECK_H */
