/*
 * fcgi_io.h - request body and response helpers shared by the FastCGI
 * programs (scheduler, file_upload_handler), on libfcgi's FCGX API.
 *
 * Knows nothing of scheduling or uploads: it reads a body honouring
 * CONTENT_LENGTH under a cap, and writes a complete HTTP response through
 * the CGI "Status:" header.
 *
 * Security assumptions: CONTENT_LENGTH comes from the web server but is
 * parsed strictly anyway; a body over the cap is refused before any of it
 * is read or allocated.
 */
#ifndef LOCSCHED_FCGI_IO_H
#define LOCSCHED_FCGI_IO_H

#include <stddef.h>
#include <fcgiapp.h>

#include "buf.h"

enum fio_err {
    FIO_OK = 0,
    FIO_ERR_ARG = -1,      /* bad argument */
    FIO_ERR_LENGTH = -2,   /* CONTENT_LENGTH malformed (or missing where required) */
    FIO_ERR_TOO_BIG = -3,  /* body larger than the caller's cap */
    FIO_ERR_SHORT = -4,    /* the stream ended before CONTENT_LENGTH bytes */
    FIO_ERR_NOMEM = -5,
    FIO_ERR_WRITE = -6     /* writing the response failed (client gone) */
};

/* A request body being read in pieces. */
struct fcgi_body {
    FCGX_Stream *in;
    unsigned long long length;   /* CONTENT_LENGTH */
    unsigned long long done;     /* bytes read so far */
};

/* Text for an FIO_ERR_* code. */
const char *fio_strerror(int code);

/*
 * Start reading a body whose CONTENT_LENGTH is required.  Returns 0,
 * FIO_ERR_LENGTH if CONTENT_LENGTH is missing or malformed, or
 * FIO_ERR_TOO_BIG (reading nothing) if it is over cap.
 */
int fcgi_body_open(struct fcgi_body *b, FCGX_Stream *in, FCGX_ParamArray envp,
                   unsigned long long cap);

/*
 * Read up to n bytes of the body into buf, stopping only at the body's end.
 * Returns the count (0 at the end of the body) or FIO_ERR_SHORT if the
 * stream ends early.
 */
long long fcgi_body_read(struct fcgi_body *b, void *buf, size_t n);

/*
 * Read and discard the rest of the body, at most max bytes, using buf
 * (bufsize bytes) as scratch space.  The web server writes the whole body
 * to the socket before it reads the reply, so a reply sent with much of
 * the body unread can reach the client as an HTTP error instead.  Returns
 * 0 when the body is consumed, FIO_ERR_TOO_BIG if more than max remained,
 * FIO_ERR_SHORT if the stream ended early.
 */
int fcgi_body_drain(struct fcgi_body *b, void *buf, size_t bufsize, unsigned long long max);

/*
 * Read a whole body into a new buffer (*out, NUL-terminated, length in
 * *len; the caller frees it).  Without CONTENT_LENGTH the body is read to
 * the end of the stream.  Over cap: FIO_ERR_TOO_BIG, having read nothing
 * when CONTENT_LENGTH says so, else at most cap + 1 bytes.
 */
int fcgi_read_body(FCGX_Stream *in, FCGX_ParamArray envp, size_t cap, char **out, size_t *len);

/*
 * Write a complete response: "Status: CODE REASON", Content-Type,
 * Content-Length, a blank line and the body.  Returns 0 or FIO_ERR_WRITE.
 */
int fcgi_write_response(FCGX_Stream *out, int status, const char *reason,
                        const char *content_type, const char *body, size_t len);

/* fcgi_write_response(out, 200, "OK", "text/xml", body, len). */
int fcgi_write_xml(FCGX_Stream *out, const char *body, size_t len);

/*
 * The FastCGI loop of a program whose every reply is HTTP 200 with XML
 * (the scheduler, webrpc): for each request, empty out, call
 * handle(request, out, arg), which reads the request and writes the reply
 * into out, send out with fcgi_write_xml and finish the request.  Returns
 * when the web server stops accepting (the process is to exit).
 */
typedef void (*fcgi_xml_handler)(FCGX_Request *request, struct buf *out, void *arg);
void fcgi_serve_xml(fcgi_xml_handler handle, void *arg);

#endif /* LOCSCHED_FCGI_IO_H */
