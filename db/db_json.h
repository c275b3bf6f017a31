/*
 * db_json.h - JSON arrays as statement parameters (db/ internal).
 *
 * Build with jb_open (the outer array, then one per row), values with
 * jb_str/jb_num/jb_int, jb_close after each; then jb_failed() once, which
 * frees the buffer and records the error if memory ran out.  The caller
 * frees b.p.
 */
#ifndef LOCSCHED_DB_JSON_H
#define LOCSCHED_DB_JSON_H

#include <stddef.h>

struct db_conn;

struct jbuf {
    char *p;
    size_t len, cap;
    int oom;
    int first;          /* no comma before the next value or row */
};

void jb_put(struct jbuf *b, const char *s, size_t n);
void jb_sep(struct jbuf *b);
void jb_open(struct jbuf *b);
void jb_close(struct jbuf *b);
int jb_failed(struct db_conn *c, struct jbuf *b, const char *what);
void jb_str(struct jbuf *b, const char *s);
void jb_num(struct jbuf *b, double d);
void jb_int(struct jbuf *b, long long v);

#endif
