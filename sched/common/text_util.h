/*
 * text_util.h - small text helpers shared by the parsers and the crypto
 * code: writing an error message and returning its code, ASCII
 * whitespace, and hex digits.
 */
#ifndef LOCSCHED_TEXT_UTIL_H
#define LOCSCHED_TEXT_UTIL_H

#include <stddef.h>

/* Format a message into err (if err and errlen) and return code. */
__attribute__((format(printf, 4, 5)))
int text_fail(char *err, size_t errlen, int code, const char *fmt, ...);

/* Space, tab, CR or LF. */
int text_is_space(char c);

/* Value of a hex digit (either case), or -1. */
int text_hexval(char c);

#endif
