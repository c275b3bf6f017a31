/*
 * decimal_text.h - a long long in decimal, as "%lld" writes it, without
 * printf: the reply's numbers and the statements' JSON parameters are
 * written many times a request, and printf was a tenth of the
 * scheduler's instructions.  Header-only, so that the data layer (db/)
 * can use it too.
 */
#ifndef LOCSCHED_DECIMAL_TEXT_H
#define LOCSCHED_DECIMAL_TEXT_H

#define DECIMAL_TEXT_MAX 21   /* "-9223372036854775808" and the NUL */

/* Write v into out (NUL-terminated); returns its length. */
static inline int decimal_text(long long v, char out[DECIMAL_TEXT_MAX])
{
    char d[DECIMAL_TEXT_MAX];
    int i = DECIMAL_TEXT_MAX - 1, n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        d[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        d[--i] = '-';
    while (i < DECIMAL_TEXT_MAX - 1)
        out[n++] = d[i++];
    out[n] = '\0';
    return n;
}

#endif
