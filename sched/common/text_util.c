/*
 * text_util.c - small text helpers (text_util.h).
 */
#include "text_util.h"

#include <stdarg.h>
#include <stdio.h>

int text_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

int text_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int text_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
