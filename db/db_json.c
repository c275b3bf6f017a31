/*
 * db_json.c - a small JSON writer for statement parameters: variable-length
 * batches (names, claims, file ids) travel as one JSON array expanded by
 * JSON_TABLE on the server, so each batch is one prepared statement.
 */
#include "db_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

void jb_put(struct jbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        char *q;
        while (cap < b->len + n + 1)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* A comma before every value or row but the first of its array. */
void jb_sep(struct jbuf *b)
{
    if (!b->first)
        jb_put(b, ",", 1);
    b->first = 0;
}

/* "[" opening the outer array or a row. */
void jb_open(struct jbuf *b)
{
    if (b->len)
        jb_sep(b);
    jb_put(b, "[", 1);
    b->first = 1;
}

void jb_close(struct jbuf *b)
{
    jb_put(b, "]", 1);
    b->first = 0;
}

/* Out-of-memory check after building: frees and records the error. */
int jb_failed(struct db_conn *c, struct jbuf *b, const char *what)
{
    if (!b->oom)
        return 0;
    free(b->p);
    b->p = NULL;
    db_fail(c, what, 0, "out of memory");
    return 1;
}

/* v in decimal, as "%lld" writes it, without printf (it cost 710
 * instructions a number).  Filled from the end of a 20-byte buffer: the
 * most digits and sign a long long has. */
static void jb_digits(struct jbuf *b, long long v)
{
    char t[20];
    size_t i = sizeof t;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        t[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        t[--i] = '-';
    jb_put(b, t + i, sizeof t - i);
}

/* JSON string: runs of plain characters in one piece, '"' and '\\'
 * escaped, control characters as \u00XX (no printf: stderr texts are
 * long and have many newlines). */
void jb_str(struct jbuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *run;
    jb_sep(b);
    jb_put(b, "\"", 1);
    for (run = s; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\' || ch < 0x20) {
            char e[6] = { '\\', (char)ch };
            int n = 2;
            jb_put(b, run, (size_t)(s - run));
            if (ch < 0x20) {
                memcpy(e + 1, "u00", 3);
                e[4] = hex[ch >> 4];
                e[5] = hex[ch & 15];
                n = 6;
            }
            jb_put(b, e, (size_t)n);
            run = s + 1;
        }
    }
    if (s)
        jb_put(b, run, (size_t)(s - run));
    jb_put(b, "\"", 1);
}

/* An integral value below 2^53 in magnitude as its digits (exact, and
 * what MariaDB reads back as the same double); any other through %.17g,
 * which round-trips.  Not finite: 0. */
void jb_num(struct jbuf *b, double d)
{
    char t[40];
    int n;
    jb_sep(b);
    if (!isfinite(d))
        d = 0;
    if (d > -9007199254740992.0 && d < 9007199254740992.0 && d == (double)(long long)d &&
        !(d == 0 && signbit(d))) {
        jb_digits(b, (long long)d);
        return;
    }
    n = snprintf(t, sizeof t, "%.17g", d);
    jb_put(b, t, (size_t)n);
}

void jb_int(struct jbuf *b, long long v)
{
    jb_sep(b);
    jb_digits(b, v);
}
