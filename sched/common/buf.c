/*
 * buf.c - growable byte buffer (see buf.h).
 */
#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
    memset(b, 0, sizeof *b);
}

void buf_free(struct buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->p)
        b->p[0] = '\0';
}

static int grow(struct buf *b, size_t need)
{
    size_t cap;
    char *q;
    if (b->oom)
        return -1;
    if (b->len + need + 1 <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < b->len + need + 1) {
        if (cap > ((size_t)1 << 40)) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    q = realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return -1;
    }
    b->p = q;
    b->cap = cap;
    return 0;
}

void buf_put(struct buf *b, const char *s, size_t n)
{
    if (grow(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    char small[256];

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        buf_put(b, small, (size_t)n);
        return;
    }
    if (grow(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_put_xml(struct buf *b, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        const char *rep = NULL;
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t')
                rep = "";
        }
        if (rep) {
            buf_put(b, run, (size_t)(s - run));
            buf_puts(b, rep);
            run = s + 1;
        }
    }
    buf_put(b, run, (size_t)(s - run));
}

/* (no printf: a reply writes about 170 elements, and two vsnprintf
 * calls each were a tenth of the scheduler's instructions) */
void buf_elem(struct buf *b, const char *indent, const char *tag, const char *text)
{
    size_t tlen = strlen(tag);
    buf_puts(b, indent);
    buf_put(b, "<", 1);
    buf_put(b, tag, tlen);
    buf_put(b, ">", 1);
    buf_put_xml(b, text);
    buf_put(b, "</", 2);
    buf_put(b, tag, tlen);
    buf_put(b, ">\n", 2);
}

char *buf_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct buf b;
    char chunk[65536];
    size_t n;
    int failed;

    if (!f)
        return NULL;
    buf_init(&b);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_put(&b, chunk, n);
    failed = ferror(f);
    fclose(f);
    if (failed || b.oom) {
        buf_free(&b);
        errno = failed ? EIO : ENOMEM;
        return NULL;
    }
    if (!b.p && !(b.p = calloc(1, 1))) {
        errno = ENOMEM;
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.p;
}
