/*
 * batch_desc.c - parsers of create_batch's file list and job list (formats
 * and contract in batch_desc.h).  Pure: text in, entries out, no I/O.
 */
#include "batch_desc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "crypto_sign.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

void batch_desc_reader_init(struct batch_desc_reader *r, const char *text, size_t len,
                            const char *name)
{
    r->text = text;
    r->len = text ? len : 0;
    r->pos = 0;
    r->name = name ? name : "-";
    r->lineno = 0;
    r->line[0] = '\0';
}

/* Copy the next line into r->line, NUL-terminated, as fgets() into a
 * buffer of BATCH_DESC_LINE_MAX bytes does (with its '\n' if it fits).
 * Returns 1, or 0 at the end of the text. */
static int next_line(struct batch_desc_reader *r)
{
    size_t left = r->len - r->pos, n;
    const char *nl;

    if (left == 0)
        return 0;
    n = left < sizeof r->line - 1 ? left : sizeof r->line - 1;
    nl = memchr(r->text + r->pos, '\n', n);
    if (nl)
        n = (size_t)(nl - (r->text + r->pos)) + 1;
    memcpy(r->line, r->text + r->pos, n);
    r->line[n] = '\0';
    r->pos += n;
    r->lineno++;
    return 1;
}

/* The next line that is not a comment or blank; 0 at the end. */
static int next_entry_line(struct batch_desc_reader *r)
{
    while (next_line(r))
        if (r->line[0] != '#' && r->line[strspn(r->line, " \t\r\n")] != '\0')
            return 1;
    return 0;
}

/* "NAME:LINE: msg" (or "NAME: msg" for line 0) into err; returns -1. */
__attribute__((format(printf, 5, 6)))
static int fail_at(char *err, size_t errlen, const char *name, int lineno, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen) {
        if (lineno > 0)
            snprintf(err, errlen, "%s:%d: %s", name, lineno, msg);
        else
            snprintf(err, errlen, "%s: %s", name, msg);
    }
    return -1;
}

int batch_desc_next_file(struct batch_desc_reader *r, struct batch_file *b, char *err,
                         size_t errlen)
{
    char name[256], where[1024], md5[64] = "";
    double nbytes = 0;
    int k;

    if (!next_entry_line(r))
        return 0;
    k = sscanf(r->line, "%255s %1023s %lf %63s", name, where, &nbytes, md5);
    if (k < 2)
        return fail_at(err, errlen, r->name, r->lineno,
                       "expected 'NAME PATH' or 'NAME URL NBYTES [MD5]'");
    if (strspn(name, NAME_CHARS) != strlen(name) || name[0] == '.')
        return fail_at(err, errlen, r->name, r->lineno,
                       "file names may use letters, digits, '_', '.', '-'");
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    if (strncmp(where, "http://", 7) == 0 || strncmp(where, "https://", 8) == 0) {
        if (k < 3 || !(nbytes >= 0) || !isfinite(nbytes))
            return fail_at(err, errlen, r->name, r->lineno,
                           "a URL needs its size: 'NAME URL NBYTES [MD5]'");
        if (md5[0] && !cs_md5_hex_valid(md5, strlen(md5)))
            return fail_at(err, errlen, r->name, r->lineno, "md5 must be 32 hex digits");
        snprintf(b->url, sizeof b->url, "%s", where);
        snprintf(b->md5, sizeof b->md5, "%s", md5);
        b->nbytes = nbytes;
    } else {
        snprintf(b->path, sizeof b->path, "%s", where);
    }
    return 1;
}

int batch_desc_next_job(struct batch_desc_reader *r, double default_fpops, struct batch_job *j,
                        char *err, size_t errlen)
{
    int first, nf, used = 0;
    double fp = default_fpops;
    char *rest;

    if (!next_entry_line(r))
        return 0;
    if (sscanf(r->line, "%d %d%n", &first, &nf, &used) < 2)
        return fail_at(err, errlen, r->name, r->lineno,
                       "expected 'FIRST_FILE NFILES [FPOPS [COMMAND LINE]]'");
    rest = r->line + used;
    if (sscanf(rest, "%lf%n", &fp, &used) == 1)
        rest += used;
    else
        fp = default_fpops;
    memset(j, 0, sizeof *j);
    j->first = first;
    j->nfiles = nf;
    j->fpops = fp;
    rest += strspn(rest, " \t");
    rest[strcspn(rest, "\r\n")] = '\0';
    snprintf(j->cmdline, sizeof j->cmdline, "%s", rest);
    if (!(fp > 0) || !isfinite(fp))
        return fail_at(err, errlen, r->name, r->lineno, "FPOPS must be a positive number");
    return 1;
}

int batch_desc_parse_files(const char *text, size_t len, const char *name,
                           struct batch_file **out, int *n, char *err, size_t errlen)
{
    struct batch_desc_reader r;
    struct batch_file *arr = NULL, f;
    int count = 0, cap = 0, k;

    *out = NULL;
    *n = 0;
    batch_desc_reader_init(&r, text, len, name);
    while ((k = batch_desc_next_file(&r, &f, err, errlen)) > 0) {
        if (array_grow((void **)&arr, &cap, count + 1, 16, sizeof *arr) < 0) {
            k = fail_at(err, errlen, r.name, r.lineno, "out of memory");
            break;
        }
        arr[count++] = f;
    }
    if (k == 0 && count == 0)
        k = fail_at(err, errlen, r.name, 0, "no files listed");
    if (k < 0) {
        free(arr);
        return -1;
    }
    *out = arr;
    *n = count;
    return 0;
}

int batch_desc_parse_jobs(const char *text, size_t len, const char *name, double default_fpops,
                          struct batch_job **out, int *n, char *err, size_t errlen)
{
    struct batch_desc_reader r;
    struct batch_job *arr = NULL, j;
    int count = 0, cap = 0, k;

    *out = NULL;
    *n = 0;
    batch_desc_reader_init(&r, text, len, name);
    while ((k = batch_desc_next_job(&r, default_fpops, &j, err, errlen)) > 0) {
        if (array_grow((void **)&arr, &cap, count + 1, 64, sizeof *arr) < 0) {
            k = fail_at(err, errlen, r.name, r.lineno, "out of memory");
            break;
        }
        arr[count++] = j;
    }
    if (k < 0) {
        free(arr);
        return -1;
    }
    *out = arr;
    *n = count;
    return 0;
}
