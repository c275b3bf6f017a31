/*
 * buf.h - a growable byte buffer for building replies.
 *
 * Appends never fail visibly: on allocation failure the buffer is marked
 * (oom) and later appends do nothing; the caller checks buf.oom once at
 * the end.  xml-escaped appends make untrusted text safe inside elements.
 */
#ifndef LOCSCHED_BUF_H
#define LOCSCHED_BUF_H

#include <stddef.h>

struct buf {
    char *p;      /* NUL-terminated when len > 0 */
    size_t len;
    size_t cap;
    int oom;
};

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);             /* len = 0, memory kept */
void buf_put(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
__attribute__((format(printf, 2, 3)))
void buf_printf(struct buf *b, const char *fmt, ...);
/* Append text with &, <, >, " and ' escaped; control bytes dropped. */
void buf_put_xml(struct buf *b, const char *s);
/* Append "<tag>escaped text</tag>\n" with the given indent. */
void buf_elem(struct buf *b, const char *indent, const char *tag, const char *text);

/* Read the whole file at path into a malloc'd buffer, NUL-terminated (the
 * NUL not counted in *len, which may be NULL).  Returns NULL, errno set,
 * when the file cannot be opened or read, or memory runs out. */
char *buf_read_file(const char *path, size_t *len);

#endif
