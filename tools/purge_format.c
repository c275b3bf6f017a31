/*
 * purge_format.c - the text of db_purge's archives (purge_format.h).
 */
#include "purge_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void pf_reset(struct pf_buf *b)
{
    b->len = 0;
}

void pf_free(struct pf_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int room(struct pf_buf *b, size_t more)
{
    size_t cap;
    char *p;
    if (b->len + more <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more)
        cap *= 2;
    p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Append n bytes of s escaped (at most 2 bytes per byte). */
static int put_escaped(struct pf_buf *b, const char *s, size_t n)
{
    size_t i;
    if (room(b, 2 * n + 2) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        char c = s[i], e = 0;
        switch (c) {
        case '\\': e = '\\'; break;
        case '\t': e = 't'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\0': e = '0'; break;
        default: break;
        }
        if (e) {
            b->p[b->len++] = '\\';
            b->p[b->len++] = e;
        } else {
            b->p[b->len++] = c;
        }
    }
    return 0;
}

int pf_row(struct pf_buf *b, int ncols, const char *const *values, const unsigned long *lens)
{
    int i;
    for (i = 0; i < ncols; i++) {
        if (room(b, 3) < 0)
            return -1;
        if (i > 0)
            b->p[b->len++] = '\t';
        if (!values[i]) {
            b->p[b->len++] = '\\';
            b->p[b->len++] = 'N';
        } else if (put_escaped(b, values[i], lens[i]) < 0) {
            return -1;
        }
    }
    if (room(b, 1) < 0)
        return -1;
    b->p[b->len++] = '\n';
    return 0;
}

int pf_header(struct pf_buf *b, int ncols, const char *const *names)
{
    int i;
    if (room(b, 1) < 0)
        return -1;
    b->p[b->len++] = '#';
    for (i = 0; i < ncols; i++) {
        if (room(b, 1) < 0)
            return -1;
        if (i > 0)
            b->p[b->len++] = '\t';
        if (put_escaped(b, names[i], strlen(names[i])) < 0)
            return -1;
    }
    if (room(b, 1) < 0)
        return -1;
    b->p[b->len++] = '\n';
    return 0;
}

int pf_file_name(char *out, size_t outlen, const char *table, long day, int seq)
{
    time_t t = (time_t)day;
    struct tm tm;
    char date[32];
    int n;
    if (!gmtime_r(&t, &tm) || strftime(date, sizeof date, "%Y-%m-%d", &tm) == 0)
        return -1;
    if (seq <= 1)
        n = snprintf(out, outlen, "%s_%s.tsv.gz", table, date);
    else
        n = snprintf(out, outlen, "%s_%s.%d.tsv.gz", table, date, seq);
    return n > 0 && (size_t)n < outlen ? 0 : -1;
}
