/*
 * upload_request.h - parser for the body of a BOINC file upload request.
 *
 * The client POSTs one of two bodies to the file upload handler:
 *
 *   <data_server_request>
 *       <core_client_major_version>7</core_client_major_version> ...
 *       <get_file_size>NAME</get_file_size>
 *   </data_server_request>
 *
 * or a header that is NOT a whole XML document, followed by raw bytes:
 *
 *   <data_server_request> (versions)
 *   <file_upload>
 *   <file_info><name>NAME</name><xml_signature>SIG</xml_signature>
 *   <max_nbytes>M</max_nbytes></file_info>
 *   <nbytes>N</nbytes><md5_cksum>HEX</md5_cksum><offset>O</offset>
 *   <data>\n
 *   ...the file's bytes from offset O to the end of the body...
 *
 * The parser is pure: it looks at bytes in memory and touches no files.
 * The header (everything before "<data>\n") is scanned with bounded
 * string searches, never more than UPREQ_HEADER_MAX bytes.  The data part
 * may be larger than what the caller has in memory: the caller passes the
 * first buf_len bytes of a body of body_len bytes and streams the rest.
 *
 * Security assumptions: everything in the body is hostile.  Names are
 * restricted to [A-Za-z0-9_.-], no leading '.', no "..", at most
 * LIM_NAME_LEN bytes, so a name is always a plain file name inside one
 * folder.  Numbers are plain decimal integers up to 2^53.  The parser does
 * not check xml_signature; the caller must (upload_auth.h).
 */
#ifndef LOCSCHED_UPLOAD_REQUEST_H
#define LOCSCHED_UPLOAD_REQUEST_H

#include <stddef.h>

#include "sched_limits.h"

/* Largest header (bytes before "<data>\n", or a whole get_file_size body).
 * A real header is about 450 bytes; 16 KB leaves room for long
 * signatures and future elements while bounding the scan. */
#define UPREQ_HEADER_MAX   (16 * 1024)
/* How many bytes of the body a caller must have in memory to parse. */
#define UPREQ_PREFIX_MAX   (UPREQ_HEADER_MAX + 7)
/* Longest xml_signature text kept (ours is 64 hex digits). */
#define UPREQ_SIG_MAX      1024
/* Largest number accepted for sizes and offsets: 2^53, the largest
 * integer the client's doubles hold exactly (8 PiB). */
#define UPREQ_NUMBER_MAX   9007199254740992LL

enum upreq_kind { UPREQ_NONE = 0, UPREQ_GET_FILE_SIZE = 1, UPREQ_FILE_UPLOAD = 2 };

enum upreq_err {
    UPREQ_OK = 0,
    UPREQ_ERR_ARG = -1,      /* caller error (NULL, buf_len > body_len) */
    UPREQ_ERR_TOO_BIG = -2,  /* header over UPREQ_HEADER_MAX */
    UPREQ_ERR_SYNTAX = -3,   /* malformed: missing <data>, unclosed or duplicate element */
    UPREQ_ERR_MISSING = -4,  /* a required element is absent */
    UPREQ_ERR_NAME = -5,     /* file name not acceptable */
    UPREQ_ERR_NUMBER = -6,   /* a number is not a plain non-negative integer */
    UPREQ_ERR_RANGE = -7     /* offset > nbytes, nbytes > max_nbytes, too much data */
};

struct upload_request {
    int kind;                          /* enum upreq_kind */
    int core_major, core_minor, core_release;  /* -1 when absent */
    char name[LIM_NAME_LEN + 1];
    /* file_upload only: */
    char xml_signature[UPREQ_SIG_MAX + 1];     /* surrounding whitespace removed */
    size_t xml_signature_len;
    long long max_nbytes;
    long long nbytes;
    long long offset;
    int has_md5;                       /* md5_cksum present and not empty */
    char md5[33];                      /* lowercase hex */
    size_t header_len;                 /* bytes before the data, "<data>\n" included */
    const char *data;                  /* data bytes that are in buf (points into it) */
    size_t data_len;                   /* how many of them */
    unsigned long long data_total;     /* data bytes in the whole body */
};

/*
 * Parse a request body.  buf holds the first buf_len bytes of a body of
 * body_len bytes (buf_len == body_len when the whole body is in memory;
 * otherwise buf_len must be at least min(body_len, UPREQ_PREFIX_MAX)).
 * On success fills *req (req->data points into buf) and returns 0.
 * On failure returns a negative UPREQ_ERR_* with a message in err; the
 * message never contains request bytes.
 */
int upload_request_parse(const char *buf, size_t buf_len, unsigned long long body_len,
                         struct upload_request *req, char *err, size_t errlen);

/* Nonzero if name[0..len) is an acceptable upload file name. */
int upload_name_valid(const char *name, size_t len);

#endif /* LOCSCHED_UPLOAD_REQUEST_H */
