/*
 * fcgi_io.c - body reading and response writing for the FastCGI programs
 * (see fcgi_io.h).
 *
 * libfcgi's FCGX_GetStr() returns fewer bytes than asked only at the end
 * of the stream, and takes int counts, so reads go in chunks of at most
 * 1 MiB.  Responses are written with FCGX_PutStr(); the CGI "Status:"
 * header sets the HTTP status line (mod_fcgid turns it into one).
 */
#include "fcgi_io.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_MAX (1024 * 1024)

const char *fio_strerror(int code)
{
    switch (code) {
    case FIO_OK: return "no error";
    case FIO_ERR_ARG: return "bad argument";
    case FIO_ERR_LENGTH: return "CONTENT_LENGTH missing or malformed";
    case FIO_ERR_TOO_BIG: return "request body too large";
    case FIO_ERR_SHORT: return "request body shorter than CONTENT_LENGTH";
    case FIO_ERR_NOMEM: return "out of memory";
    case FIO_ERR_WRITE: return "cannot write the response";
    default: return "unknown error";
    }
}

/*
 * Parse CONTENT_LENGTH.  Returns 1 and sets *len if present, 0 if absent
 * or empty, FIO_ERR_LENGTH if malformed (not all digits, or absurd).
 */
static int content_length(FCGX_ParamArray envp, unsigned long long *len)
{
    const char *s = envp ? FCGX_GetParam("CONTENT_LENGTH", envp) : NULL;
    unsigned long long x = 0;
    size_t i;

    if (!s || !*s)
        return 0;
    for (i = 0; s[i]; i++) {
        if (s[i] < '0' || s[i] > '9' || i >= 18)
            return FIO_ERR_LENGTH;
        x = x * 10 + (unsigned)(s[i] - '0');
    }
    *len = x;
    return 1;
}

int fcgi_body_open(struct fcgi_body *b, FCGX_Stream *in, FCGX_ParamArray envp,
                   unsigned long long cap)
{
    unsigned long long len = 0;
    int rc;

    if (!b || !in)
        return FIO_ERR_ARG;
    memset(b, 0, sizeof *b);
    b->in = in;
    rc = content_length(envp, &len);
    if (rc <= 0)
        return FIO_ERR_LENGTH;
    if (len > cap)
        return FIO_ERR_TOO_BIG;
    b->length = len;
    return 0;
}

long long fcgi_body_read(struct fcgi_body *b, void *buf, size_t n)
{
    unsigned long long left;
    size_t got = 0;
    int want, r;

    if (!b || !b->in || (!buf && n))
        return FIO_ERR_ARG;
    left = b->length - b->done;
    if (n > left)
        n = (size_t)left;
    while (got < n) {
        want = (int)((n - got) < CHUNK_MAX ? (n - got) : CHUNK_MAX);
        r = FCGX_GetStr((char *)buf + got, want, b->in);
        if (r > 0)
            got += (size_t)r;
        if (r < want) {
            b->done += got;
            return FIO_ERR_SHORT;
        }
    }
    b->done += got;
    return (long long)got;
}

int fcgi_body_drain(struct fcgi_body *b, void *buf, size_t bufsize, unsigned long long max)
{
    unsigned long long left;
    long long r;

    if (!b || !b->in || !buf || bufsize == 0)
        return FIO_ERR_ARG;
    left = b->length - b->done;
    if (left > max)
        return FIO_ERR_TOO_BIG;
    while (b->done < b->length) {
        r = fcgi_body_read(b, buf, bufsize);
        if (r < 0)
            return (int)r;
    }
    return 0;
}

int fcgi_read_body(FCGX_Stream *in, FCGX_ParamArray envp, size_t cap, char **out, size_t *len)
{
    unsigned long long clen = 0;
    size_t have = 0, size, want;
    char *buf, *nbuf;
    int rc, r;

    if (!in || !out || !len || cap >= SIZE_MAX - 2)
        return FIO_ERR_ARG;
    *out = NULL;
    *len = 0;
    rc = content_length(envp, &clen);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        struct fcgi_body b;
        long long got;

        if (clen > cap)
            return FIO_ERR_TOO_BIG;
        buf = malloc((size_t)clen + 1);
        if (!buf)
            return FIO_ERR_NOMEM;
        memset(&b, 0, sizeof b);
        b.in = in;
        b.length = clen;
        got = fcgi_body_read(&b, buf, (size_t)clen);
        if (got < 0) {
            free(buf);
            return (int)got;
        }
        buf[clen] = '\0';
        *out = buf;
        *len = (size_t)clen;
        return 0;
    }

    /* No CONTENT_LENGTH: read to the end of the stream, at most cap + 1. */
    size = cap + 1 < 65536 ? cap + 2 : 65536;
    buf = malloc(size);
    if (!buf)
        return FIO_ERR_NOMEM;
    for (;;) {
        if (have + 1 >= size) {
            size_t nsize = size * 2;
            if (nsize > cap + 2)
                nsize = cap + 2;
            nbuf = realloc(buf, nsize);
            if (!nbuf) {
                free(buf);
                return FIO_ERR_NOMEM;
            }
            buf = nbuf;
            size = nsize;
        }
        want = size - 1 - have;
        if (want > CHUNK_MAX)
            want = CHUNK_MAX;
        r = FCGX_GetStr(buf + have, (int)want, in);
        if (r > 0)
            have += (size_t)r;
        if (have > cap) {
            free(buf);
            return FIO_ERR_TOO_BIG;
        }
        if (r < (int)want)
            break;
    }
    buf[have] = '\0';
    *out = buf;
    *len = have;
    return 0;
}

int fcgi_write_response(FCGX_Stream *out, int status, const char *reason,
                        const char *content_type, const char *body, size_t len)
{
    char head[512];
    int n;

    if (!out || (!body && len) || len > INT_MAX)
        return FIO_ERR_ARG;
    n = snprintf(head, sizeof head,
                 "Status: %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                 "Cache-Control: no-store\r\n\r\n",
                 status, reason ? reason : "", content_type ? content_type : "text/plain", len);
    if (n < 0 || (size_t)n >= sizeof head)
        return FIO_ERR_ARG;
    if (FCGX_PutStr(head, n, out) != n)
        return FIO_ERR_WRITE;
    if (len && FCGX_PutStr(body, (int)len, out) != (int)len)
        return FIO_ERR_WRITE;
    if (FCGX_FFlush(out) < 0)
        return FIO_ERR_WRITE;
    return 0;
}

int fcgi_write_xml(FCGX_Stream *out, const char *body, size_t len)
{
    return fcgi_write_response(out, 200, "OK", "text/xml", body, len);
}

void fcgi_serve_xml(fcgi_xml_handler handle, void *arg)
{
    FCGX_Request request;
    struct buf out;

    FCGX_Init();
    FCGX_InitRequest(&request, 0, 0);
    buf_init(&out);
    while (FCGX_Accept_r(&request) >= 0) {
        buf_reset(&out);
        handle(&request, &out, arg);
        fcgi_write_xml(request.out, out.p ? out.p : "", out.len);
        FCGX_Finish_r(&request);
    }
    buf_free(&out);
}
