/*
 * upload_request.c - bounded parser for file upload request bodies
 * (protocol and security assumptions in upload_request.h).
 *
 * The header of an upload is not well-formed XML (it ends at "<data>\n"
 * with no closing tags), so instead of an XML parser this file finds the
 * few elements it needs with memmem() inside the header only.  Each
 * element must appear at most once in the part of the header where it
 * belongs (file_info for name, xml_signature and max_nbytes; after
 * </file_info> for nbytes, md5_cksum and offset), its text may not hold
 * '<', and surrounding whitespace is ignored.  Anything else in the header
 * is ignored, as XML parsers ignore unknown elements.
 */
#include "upload_request.h"
#include "text_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DATA_TAG     "<data>\n"
#define DATA_TAG_LEN 7

/* Remove surrounding whitespace from the text v[0..*n). */
static const char *trim(const char *v, size_t *n)
{
    while (*n > 0 && text_is_space(v[0])) {
        v++;
        (*n)--;
    }
    while (*n > 0 && text_is_space(v[*n - 1]))
        (*n)--;
    return v;
}

int upload_name_valid(const char *name, size_t len)
{
    size_t i;

    if (!name || len == 0 || len > LIM_NAME_LEN || name[0] == '.')
        return 0;
    for (i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
        if (c == '.' && i + 1 < len && name[i + 1] == '.')
            return 0;
    }
    return 1;
}

/*
 * Find "<tag>text</tag>" in s[0..n).  On success sets *v and *vlen to the
 * text without surrounding whitespace and returns 0.  Returns
 * UPREQ_ERR_MISSING if "<tag>" is absent, UPREQ_ERR_SYNTAX if it is not
 * closed, its text holds '<', or "<tag>" appears again.
 */
static int find_elem(const char *s, size_t n, const char *tag, const char **v, size_t *vlen)
{
    char open[48], close[48];
    size_t olen, clen, rest;
    const char *o, *vs, *c, *after;

    olen = (size_t)snprintf(open, sizeof open, "<%s>", tag);
    clen = (size_t)snprintf(close, sizeof close, "</%s>", tag);
    if (olen >= sizeof open || clen >= sizeof close)
        return UPREQ_ERR_ARG;
    o = memmem(s, n, open, olen);
    if (!o)
        return UPREQ_ERR_MISSING;
    vs = o + olen;
    rest = n - (size_t)(vs - s);
    c = memmem(vs, rest, close, clen);
    if (!c || memchr(vs, '<', (size_t)(c - vs)))
        return UPREQ_ERR_SYNTAX;
    after = c + clen;
    if (memmem(after, n - (size_t)(after - s), open, olen))
        return UPREQ_ERR_SYNTAX;
    *vlen = (size_t)(c - vs);
    *v = trim(vs, vlen);
    return 0;
}

/*
 * Parse a plain decimal integer (digits only, at most max) from v[0..n).
 * Returns 0, or UPREQ_ERR_NUMBER.
 */
static int parse_count(const char *v, size_t n, long long max, long long *out)
{
    long long x = 0;
    size_t i;

    if (n == 0 || n > 20)
        return UPREQ_ERR_NUMBER;
    for (i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return UPREQ_ERR_NUMBER;
        x = x * 10 + (v[i] - '0');
        if (x > max)
            return UPREQ_ERR_NUMBER;
    }
    *out = x;
    return 0;
}

/*
 * A required or optional integer element of s[0..n).  An absent optional
 * element leaves *out unchanged.  Messages name the element.
 */
static int get_count(const char *s, size_t n, const char *tag, int required, long long max,
                     long long *out, char *err, size_t errlen)
{
    const char *v;
    size_t vlen;
    int rc = find_elem(s, n, tag, &v, &vlen);

    if (rc == UPREQ_ERR_MISSING && !required)
        return 0;
    if (rc == UPREQ_ERR_MISSING)
        return text_fail(err, errlen, rc, "<%s> missing", tag);
    if (rc < 0)
        return text_fail(err, errlen, rc, "<%s> malformed or repeated", tag);
    if (parse_count(v, vlen, max, out) < 0)
        return text_fail(err, errlen, UPREQ_ERR_NUMBER,
                    "<%s> is not an integer from 0 to %lld", tag, max);
    return 0;
}

/* Copy and check a file name element. */
static int get_name(const char *s, size_t n, const char *tag, char *name, char *err, size_t errlen)
{
    const char *v;
    size_t vlen;
    int rc = find_elem(s, n, tag, &v, &vlen);

    if (rc == UPREQ_ERR_MISSING)
        return text_fail(err, errlen, rc, "<%s> missing", tag);
    if (rc < 0)
        return text_fail(err, errlen, rc, "<%s> malformed or repeated", tag);
    if (!upload_name_valid(v, vlen))
        return text_fail(err, errlen, UPREQ_ERR_NAME,
                    "file name not acceptable (1-%d of [A-Za-z0-9_.-], no leading '.', no '..')",
                    LIM_NAME_LEN);
    memcpy(name, v, vlen);
    name[vlen] = '\0';
    return 0;
}

/* The <file_upload> part: file_info, sizes, md5. hdr[0..n) is the header. */
static int parse_upload(const char *hdr, size_t n, struct upload_request *req,
                        char *err, size_t errlen)
{
    const char *fi, *fie, *body2, *v;
    size_t fin, n2, vlen, i;
    int rc;

    fi = memmem(hdr, n, "<file_info>", 11);
    if (!fi)
        return text_fail(err, errlen, UPREQ_ERR_MISSING, "<file_info> missing");
    fi += 11;
    fie = memmem(fi, n - (size_t)(fi - hdr), "</file_info>", 12);
    if (!fie)
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<file_info> not closed");
    fin = (size_t)(fie - fi);
    if (memmem(fi, fin, "<file_info>", 11))
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "nested <file_info>");
    body2 = fie + 12;
    n2 = n - (size_t)(body2 - hdr);
    if (memmem(body2, n2, "<file_info>", 11))
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<file_info> repeated");

    if ((rc = get_name(fi, fin, "name", req->name, err, errlen)) < 0)
        return rc;
    rc = find_elem(fi, fin, "xml_signature", &v, &vlen);
    if (rc == 0) {
        if (vlen > UPREQ_SIG_MAX)
            return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<xml_signature> longer than %d bytes",
                        UPREQ_SIG_MAX);
        memcpy(req->xml_signature, v, vlen);
        req->xml_signature[vlen] = '\0';
        req->xml_signature_len = vlen;
    } else if (rc != UPREQ_ERR_MISSING) {
        return text_fail(err, errlen, rc, "<xml_signature> malformed or repeated");
    }
    if ((rc = get_count(fi, fin, "max_nbytes", 1, UPREQ_NUMBER_MAX, &req->max_nbytes,
                        err, errlen)) < 0)
        return rc;

    if ((rc = get_count(body2, n2, "nbytes", 1, UPREQ_NUMBER_MAX, &req->nbytes, err, errlen)) < 0)
        return rc;
    if ((rc = get_count(body2, n2, "offset", 1, UPREQ_NUMBER_MAX, &req->offset, err, errlen)) < 0)
        return rc;
    rc = find_elem(body2, n2, "md5_cksum", &v, &vlen);
    if (rc == 0 && vlen > 0) {
        if (vlen != 32)
            return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<md5_cksum> is not 32 hex digits");
        for (i = 0; i < 32; i++) {
            char c = v[i];
            if (c >= 'A' && c <= 'F')
                c = (char)(c - 'A' + 'a');
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<md5_cksum> is not 32 hex digits");
            req->md5[i] = c;
        }
        req->md5[32] = '\0';
        req->has_md5 = 1;
    } else if (rc < 0 && rc != UPREQ_ERR_MISSING) {
        return text_fail(err, errlen, rc, "<md5_cksum> malformed or repeated");
    }

    if (req->offset > req->nbytes)
        return text_fail(err, errlen, UPREQ_ERR_RANGE, "offset %lld is beyond nbytes %lld",
                    req->offset, req->nbytes);
    if (req->nbytes > req->max_nbytes)
        return text_fail(err, errlen, UPREQ_ERR_RANGE, "nbytes %lld exceeds max_nbytes %lld",
                    req->nbytes, req->max_nbytes);
    return 0;
}

int upload_request_parse(const char *buf, size_t buf_len, unsigned long long body_len,
                         struct upload_request *req, char *err, size_t errlen)
{
    const char *data_tag, *p;
    size_t scan, hdr_len, i;
    long long ver;
    int rc, has_gfs, has_fu;
    static const char *const vtags[3] = { "core_client_major_version",
                                          "core_client_minor_version", "core_client_release" };

    if (err && errlen)
        err[0] = '\0';
    if (!buf || !req || buf_len > body_len)
        return text_fail(err, errlen, UPREQ_ERR_ARG, "bad arguments");
    memset(req, 0, sizeof *req);
    req->core_major = req->core_minor = req->core_release = -1;

    /* 1. Delimit the header. */
    scan = buf_len < UPREQ_PREFIX_MAX ? buf_len : UPREQ_PREFIX_MAX;
    data_tag = memmem(buf, scan, DATA_TAG, DATA_TAG_LEN);
    if (data_tag) {
        hdr_len = (size_t)(data_tag - buf);
    } else if (body_len > UPREQ_HEADER_MAX) {
        return text_fail(err, errlen, UPREQ_ERR_TOO_BIG,
                    "no <data> within the first %d bytes", UPREQ_HEADER_MAX);
    } else if (buf_len < body_len) {
        return text_fail(err, errlen, UPREQ_ERR_ARG, "caller passed too little of the body");
    } else {
        hdr_len = buf_len;
    }
    if (hdr_len > UPREQ_HEADER_MAX)
        return text_fail(err, errlen, UPREQ_ERR_TOO_BIG, "header over %d bytes", UPREQ_HEADER_MAX);
    if (memchr(buf, '\0', hdr_len))
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "NUL byte in the header");

    /* 2. Common part. */
    for (p = buf; p < buf + hdr_len && text_is_space(*p); p++)
        ;
    if ((size_t)(buf + hdr_len - p) < 21 || memcmp(p, "<data_server_request>", 21) != 0)
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "body does not start with <data_server_request>");
    for (i = 0; i < 3; i++) {
        ver = -1;
        if ((rc = get_count(buf, hdr_len, vtags[i], 0, 1000000, &ver, err, errlen)) < 0)
            return rc;
        if (i == 0)
            req->core_major = (int)ver;
        else if (i == 1)
            req->core_minor = (int)ver;
        else
            req->core_release = (int)ver;
    }
    has_gfs = memmem(buf, hdr_len, "<get_file_size>", 15) != NULL;
    has_fu = memmem(buf, hdr_len, "<file_upload>", 13) != NULL;
    if (has_gfs && has_fu)
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "both <get_file_size> and <file_upload>");
    if (!has_gfs && !has_fu)
        return text_fail(err, errlen, UPREQ_ERR_MISSING, "neither <get_file_size> nor <file_upload>");

    /* 3. get_file_size: a whole small XML document. */
    if (has_gfs) {
        if (data_tag)
            return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<get_file_size> with <data>");
        if (!memmem(buf, hdr_len, "</data_server_request>", 22))
            return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "</data_server_request> missing");
        if ((rc = get_name(buf, hdr_len, "get_file_size", req->name, err, errlen)) < 0)
            return rc;
        req->kind = UPREQ_GET_FILE_SIZE;
        req->header_len = hdr_len;
        return 0;
    }

    /* 4. file_upload: header, then data to the end of the body. */
    if (!data_tag)
        return text_fail(err, errlen, UPREQ_ERR_SYNTAX, "<file_upload> without <data>");
    p = memmem(buf, hdr_len, "<file_upload>", 13);
    if ((rc = parse_upload(p, hdr_len - (size_t)(p - buf), req, err, errlen)) < 0)
        return rc;
    req->header_len = hdr_len + DATA_TAG_LEN;
    req->data = buf + req->header_len;
    req->data_len = buf_len - req->header_len;
    req->data_total = body_len - req->header_len;
    if (req->data_total > (unsigned long long)(req->nbytes - req->offset))
        return text_fail(err, errlen, UPREQ_ERR_RANGE,
                    "%llu data bytes at offset %lld would pass nbytes %lld", req->data_total,
                    req->offset, req->nbytes);
    req->kind = UPREQ_FILE_UPLOAD;
    return 0;
}
