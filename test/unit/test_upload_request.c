/*
 * test_upload_request.c - tests of the upload request parser
 * (upload_request.h): the real requests of BOINC client 7.20.5
 * (test/data/upload-*.{bin,xml}), streaming (only a prefix in memory),
 * the header limit at 16 KB and 16 KB + 1, hostile names, numbers and
 * structure, every truncation of a real request, and random mutations
 * checked against the parser's promises.
 *
 * Data files are looked up in $srcdir/data, $top_srcdir/test/data,
 * test/data and data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "upload_request.h"

#define BODY_MAX (64 * 1024)

static char err[256];

/* Read a test data file into buf; returns its length or exits. */
static size_t read_data(const char *name, char *buf, size_t cap)
{
    const char *dirs[4];
    char path[1024];
    const char *sd = getenv("srcdir"), *tsd = getenv("top_srcdir");
    size_t n = 0;
    int i;
    FILE *f = NULL;

    dirs[0] = sd;
    dirs[1] = tsd;
    dirs[2] = "test";
    dirs[3] = ".";
    for (i = 0; i < 4 && !f; i++) {
        if (!dirs[i])
            continue;
        snprintf(path, sizeof path, i == 1 ? "%s/test/data/%s" : "%s/data/%s", dirs[i], name);
        f = fopen(path, "rb");
    }
    if (!f) {
        printf("Bail out! cannot find test data %s\n", name);
        exit(1);
    }
    n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static int parse(const char *body, size_t len, struct upload_request *req)
{
    return upload_request_parse(body, len, len, req, err, sizeof err);
}

/*
 * Build an upload body.  NULL fields are left out; data follows
 * "<data>\n".  Returns the length.
 */
static size_t mk(char *out, size_t cap, const char *name, const char *sig, const char *max,
                 const char *nbytes, const char *md5, const char *offset, const char *data,
                 size_t dlen)
{
    size_t n = 0;
    int r;

#define PUT(...) do { r = snprintf(out + n, cap - n, __VA_ARGS__); \
        if (r < 0 || (size_t)r >= cap - n) { printf("Bail out! mk overflow\n"); exit(1); } \
        n += (size_t)r; } while (0)
    PUT("<data_server_request>\n"
        "    <core_client_major_version>7</core_client_major_version>\n"
        "    <core_client_minor_version>20</core_client_minor_version>\n"
        "    <core_client_release>5</core_client_release>\n"
        "<file_upload>\n<file_info>\n");
    if (name)
        PUT("<name>%s</name>\n", name);
    if (sig)
        PUT("<xml_signature>\n%s</xml_signature>\n", sig);
    if (max)
        PUT("<max_nbytes>%s</max_nbytes>\n", max);
    PUT("</file_info>\n");
    if (nbytes)
        PUT("<nbytes>%s</nbytes>\n", nbytes);
    if (md5)
        PUT("<md5_cksum>%s</md5_cksum>\n", md5);
    if (offset)
        PUT("<offset>%s</offset>\n", offset);
    PUT("<data>\n");
#undef PUT
    if (n + dlen > cap) {
        printf("Bail out! mk overflow\n");
        exit(1);
    }
    memcpy(out + n, data, dlen);
    return n + dlen;
}

/* A minimal valid upload with a given name / numbers. */
static int up(const char *name, const char *max, const char *nbytes, const char *offset,
              const char *data, struct upload_request *req)
{
    static char body[BODY_MAX];
    size_t n = mk(body, sizeof body, name, "abc", max, nbytes, NULL, offset, data, strlen(data));
    return parse(body, n, req);
}

static int gfs(const char *name, struct upload_request *req)
{
    char body[2048];
    int n = snprintf(body, sizeof body,
                     "<data_server_request>\n    <core_client_major_version>7"
                     "</core_client_major_version>\n    <get_file_size>%s</get_file_size>\n"
                     "</data_server_request>\n", name);
    return parse(body, (size_t)n, req);
}

static void test_real(void)
{
    static char body[BODY_MAX];
    struct upload_request req;
    size_t n, hl;
    int rc;

    n = read_data("upload-file-request.bin", body, sizeof body);
    rc = parse(body, n, &req);
    TAP_EQ_INT(rc, 0, "real upload request parses %s", err);
    TAP_EQ_INT(req.kind, UPREQ_FILE_UPLOAD, "kind file_upload");
    TAP_EQ_STR(req.name, "min_1_0_0", "name");
    TAP_EQ_INT(req.xml_signature_len, 0, "empty xml_signature");
    TAP_EQ_INT(req.max_nbytes, 100000, "max_nbytes");
    TAP_EQ_INT(req.nbytes, 20, "nbytes");
    TAP_EQ_INT(req.offset, 0, "offset");
    TAP_CHECK(req.has_md5 && strcmp(req.md5, "dda4c898f1dd172c93eeeba1dd2318b7") == 0, "md5_cksum");
    TAP_CHECK(req.core_major == 7 && req.core_minor == 20 && req.core_release == 5,
              "client version 7.20.5");
    TAP_EQ_INT(req.data_len, 20, "20 data bytes");
    TAP_EQ_INT(req.data_total, 20, "20 data bytes in total");
    TAP_CHECK(req.data && memcmp(req.data, "MINIMAL REPLY INPUT\n", 20) == 0, "data bytes");
    TAP_EQ_INT(req.header_len + req.data_len, n, "header + data = body");
    hl = req.header_len;

    /* streaming: only the header and 5 data bytes in memory */
    rc = upload_request_parse(body, hl + 5, n, &req, err, sizeof err);
    TAP_EQ_INT(rc, 0, "prefix of the real request parses");
    TAP_CHECK(req.data_len == 5 && req.data_total == 20, "5 bytes in memory, 20 in the body");
    rc = upload_request_parse(body, hl, n, &req, err, sizeof err);
    TAP_CHECK(rc == 0 && req.data_len == 0 && req.data_total == 20,
              "header alone in memory parses");
    rc = upload_request_parse(body, n, n - 1, &req, err, sizeof err);
    TAP_EQ_INT(rc, UPREQ_ERR_ARG, "buf_len > body_len refused");

    /* every truncation inside the header fails cleanly */
    {
        size_t cut, bad = 0;
        for (cut = 0; cut < hl; cut++)
            if (parse(body, cut, &req) == 0)
                bad++;
        TAP_EQ_INT(bad, 0, "all %zu truncations of the header rejected", hl);
    }
    /* a body cut inside the data is a valid partial upload */
    rc = parse(body, hl + 7, &req);
    TAP_CHECK(rc == 0 && req.data_total == 7, "body cut in the data: 7 bytes of 20");

    n = read_data("upload-get-file-size-request.xml", body, sizeof body);
    rc = parse(body, n, &req);
    TAP_EQ_INT(rc, 0, "real get_file_size request parses %s", err);
    TAP_EQ_INT(req.kind, UPREQ_GET_FILE_SIZE, "kind get_file_size");
    TAP_EQ_STR(req.name, "hid_0017_0_0", "get_file_size name");
    TAP_CHECK(req.data == NULL && req.data_total == 0, "no data");
    TAP_CHECK(parse(body, n - 5, &req) < 0, "get_file_size without its closing tag rejected");
}

static void test_names(void)
{
    struct upload_request req;
    char name[LIM_NAME_LEN + 2];
    static char body[BODY_MAX];
    size_t n;

    TAP_EQ_INT(up("../x", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "name ../x rejected");
    TAP_EQ_INT(up("/etc/passwd", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME,
               "name /etc/passwd rejected");
    TAP_EQ_INT(up("a/b", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "name with / rejected");
    TAP_EQ_INT(up(".hidden", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME,
               "leading dot rejected");
    TAP_EQ_INT(up(".", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "name . rejected");
    TAP_EQ_INT(up("..", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "name .. rejected");
    TAP_EQ_INT(up("a..b", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "name with .. rejected");
    TAP_EQ_INT(up("a b", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "name with a space rejected");
    TAP_EQ_INT(up("a\\b", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME,
               "name with a backslash rejected");
    TAP_EQ_INT(up("a&amp;b", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME,
               "name with an entity rejected");
    TAP_EQ_INT(up("na\xc3\xafve", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME,
               "non-ASCII name rejected");
    TAP_EQ_INT(up("", "100", "5", "0", "hello", &req), UPREQ_ERR_NAME, "empty name rejected");
    TAP_EQ_INT(up("ok-name_1.out", "100", "5", "0", "hello", &req), 0, "ordinary name accepted");
    TAP_EQ_INT(up("  spaced_name \n", "100", "5", "0", "hello", &req), 0,
               "surrounding whitespace ignored");
    TAP_EQ_STR(req.name, "spaced_name", "trimmed name");

    /* NUL inside the name */
    n = mk(body, sizeof body, "abXcd", "s", "100", "5", NULL, "0", "hello", 5);
    *(char *)memchr(body, 'X', n) = '\0';
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "NUL in the name rejected");

    /* length limit */
    memset(name, 'n', sizeof name);
    name[LIM_NAME_LEN] = '\0';
    TAP_EQ_INT(up(name, "100", "5", "0", "hello", &req), 0, "name of %d bytes accepted",
               LIM_NAME_LEN);
    TAP_EQ_INT(strlen(req.name), LIM_NAME_LEN, "whole long name kept");
    name[LIM_NAME_LEN] = 'n';
    name[LIM_NAME_LEN + 1] = '\0';
    TAP_EQ_INT(up(name, "100", "5", "0", "hello", &req), UPREQ_ERR_NAME,
               "name of %d bytes rejected", LIM_NAME_LEN + 1);

    TAP_EQ_INT(gfs("../../etc/passwd", &req), UPREQ_ERR_NAME, "get_file_size traversal rejected");
    TAP_EQ_INT(gfs(".x", &req), UPREQ_ERR_NAME, "get_file_size leading dot rejected");
    TAP_EQ_INT(gfs("", &req), UPREQ_ERR_NAME, "get_file_size empty name rejected");
    TAP_EQ_INT(gfs("good_0", &req), 0, "get_file_size good name accepted");
}

static void test_numbers(void)
{
    struct upload_request req;

    TAP_EQ_INT(up("f", "100", "-1", "0", "", &req), UPREQ_ERR_NUMBER, "negative nbytes rejected");
    TAP_EQ_INT(up("f", "-100", "5", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "negative max_nbytes rejected");
    TAP_EQ_INT(up("f", "100", "5", "-1", "hello", &req), UPREQ_ERR_NUMBER,
               "negative offset rejected");
    TAP_EQ_INT(up("f", "100", "nan", "0", "hello", &req), UPREQ_ERR_NUMBER, "NaN nbytes rejected");
    TAP_EQ_INT(up("f", "inf", "5", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "infinite max_nbytes rejected");
    TAP_EQ_INT(up("f", "100", "1e1", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "exponent notation rejected");
    TAP_EQ_INT(up("f", "100", "5.0", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "fractional nbytes rejected");
    TAP_EQ_INT(up("f", "100", "5", "0x0", "hello", &req), UPREQ_ERR_NUMBER, "hex offset rejected");
    TAP_EQ_INT(up("f", "100", "", "0", "hello", &req), UPREQ_ERR_NUMBER, "empty nbytes rejected");
    TAP_EQ_INT(up("f", "100", "+5", "0", "hello", &req), UPREQ_ERR_NUMBER, "plus sign rejected");
    TAP_EQ_INT(up("f", "100", "5 5", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "two numbers rejected");
    TAP_EQ_INT(up("f", "99999999999999999999999", "5", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "huge max_nbytes rejected");
    TAP_EQ_INT(up("f", "9007199254740993", "5", "0", "hello", &req), UPREQ_ERR_NUMBER,
               "max_nbytes 2^53+1 rejected");
    TAP_EQ_INT(up("f", "9007199254740992", "9007199254740992", "9007199254740992", "", &req), 0,
               "2^53 accepted");
    TAP_EQ_INT(up("f", "100", " 5\n", "\t0 ", "hello", &req), 0,
               "numbers with surrounding whitespace accepted");
    TAP_EQ_INT(up("f", "100", "5", "6", "", &req), UPREQ_ERR_RANGE, "offset > nbytes rejected");
    TAP_EQ_INT(up("f", "100", "5", "5", "", &req), 0, "offset == nbytes with no data accepted");
    TAP_EQ_INT(up("f", "4", "5", "0", "hello", &req), UPREQ_ERR_RANGE,
               "nbytes > max_nbytes rejected");
    TAP_EQ_INT(up("f", "5", "5", "0", "hello", &req), 0, "nbytes == max_nbytes accepted");
    TAP_EQ_INT(up("f", "100", "5", "0", "hello!", &req), UPREQ_ERR_RANGE,
               "more data than nbytes rejected");
    TAP_EQ_INT(up("f", "100", "5", "3", "abc", &req), UPREQ_ERR_RANGE,
               "more data than nbytes - offset rejected");
    TAP_EQ_INT(up("f", "100", "5", "3", "ab", &req), 0, "data up to nbytes from offset accepted");
    TAP_EQ_INT(up("f", "0", "0", "0", "", &req), 0, "empty file accepted");
}

static void test_structure(void)
{
    static char body[BODY_MAX];
    struct upload_request req;
    size_t n;
    char *p;

    n = mk(body, sizeof body, NULL, "s", "100", "5", NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_MISSING, "missing name rejected");
    n = mk(body, sizeof body, "f", "s", NULL, "5", NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_MISSING, "missing max_nbytes rejected");
    n = mk(body, sizeof body, "f", "s", "100", NULL, NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_MISSING, "missing nbytes rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, NULL, "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_MISSING, "missing offset rejected");
    n = mk(body, sizeof body, "f", NULL, "100", "5", NULL, "0", "hello", 5);
    TAP_CHECK(parse(body, n, &req) == 0 && req.xml_signature_len == 0,
              "missing xml_signature parses as empty (the signature check refuses it)");

    /* md5 */
    n = mk(body, sizeof body, "f", "s", "100", "5", "DDA4C898F1DD172C93EEEBA1DD2318B7", "0",
           "hello", 5);
    TAP_CHECK(parse(body, n, &req) == 0 && strcmp(req.md5, "dda4c898f1dd172c93eeeba1dd2318b7") == 0,
              "uppercase md5 accepted and lowered");
    n = mk(body, sizeof body, "f", "s", "100", "5", "dda4c898f1dd172c93eeeba1dd2318b", "0",
           "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "31-digit md5 rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", "zda4c898f1dd172c93eeeba1dd2318b7", "0",
           "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "non-hex md5 rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", "", "0", "hello", 5);
    TAP_CHECK(parse(body, n, &req) == 0 && !req.has_md5, "empty md5 means none");

    /* signature */
    {
        static char sig[UPREQ_SIG_MAX + 2];
        memset(sig, 'a', UPREQ_SIG_MAX);
        sig[UPREQ_SIG_MAX] = '\0';
        n = mk(body, sizeof body, "f", sig, "100", "5", NULL, "0", "hello", 5);
        TAP_CHECK(parse(body, n, &req) == 0 && req.xml_signature_len == UPREQ_SIG_MAX,
                  "xml_signature of %d bytes kept", UPREQ_SIG_MAX);
        sig[UPREQ_SIG_MAX] = 'a';
        sig[UPREQ_SIG_MAX + 1] = '\0';
        n = mk(body, sizeof body, "f", sig, "100", "5", NULL, "0", "hello", 5);
        TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "xml_signature of %d bytes rejected",
                   UPREQ_SIG_MAX + 1);
    }
    n = mk(body, sizeof body, "f", "\n0123abcd\n", "100", "5", NULL, "0", "hello", 5);
    TAP_CHECK(parse(body, n, &req) == 0 && strcmp(req.xml_signature, "0123abcd") == 0,
              "xml_signature trimmed");

    /* duplicates and markup inside values */
    n = mk(body, sizeof body, "f</name>\n<name>g", "s", "100", "5", NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "repeated <name> rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5</nbytes><nbytes>9", NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "repeated <nbytes> rejected");
    n = mk(body, sizeof body, "a<b/>c", "s", "100", "5", NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "markup inside <name> rejected");
    n = mk(body, sizeof body, "f", "s", "100</max_nbytes></file_info><file_info><max_nbytes>1",
           "5", NULL, "0", "hello", 5);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "second <file_info> rejected");

    /* no <data> */
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, "0", "", 0);
    n -= 7;
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "upload without <data> rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, "0", "hello", 5);
    p = strstr(body, "<data>\n");
    p[6] = '\r';
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "<data> not followed by a newline rejected");

    /* document structure */
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, "0", "hello", 5);
    memcpy(body, "<data_client_request>", 21);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "wrong root element rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, "0", "hello", 5);
    p = strstr(body, "<file_info>");
    memcpy(p, "<file_infx>", 11);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_MISSING, "missing <file_info> rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, "0", "hello", 5);
    p = strstr(body, "</file_info>");
    memcpy(p, "</file_infx>", 12);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_SYNTAX, "unclosed <file_info> rejected");
    n = mk(body, sizeof body, "f", "s", "100", "5", NULL, "0", "hello", 5);
    p = strstr(body, "<file_upload>");
    memcpy(p, "<file_uplaod>", 13);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_MISSING, "neither get_file_size nor file_upload");
    {
        char both[1024];
        int m = snprintf(both, sizeof both,
                         "<data_server_request><get_file_size>x</get_file_size>"
                         "<file_upload></file_upload></data_server_request>");
        TAP_EQ_INT(parse(both, (size_t)m, &req), UPREQ_ERR_SYNTAX,
                   "get_file_size and file_upload together rejected");
        m = snprintf(both, sizeof both,
                     "<data_server_request><get_file_size>x</get_file_size>\n<data>\nabc");
        TAP_EQ_INT(parse(both, (size_t)m, &req), UPREQ_ERR_SYNTAX,
                   "get_file_size with data rejected");
        m = snprintf(both, sizeof both,
                     "<data_server_request><core_client_major_version>seven"
                     "</core_client_major_version><get_file_size>x</get_file_size>"
                     "</data_server_request>");
        TAP_EQ_INT(parse(both, (size_t)m, &req), UPREQ_ERR_NUMBER, "non-numeric version rejected");
    }
    TAP_CHECK(parse("", 0, &req) < 0, "empty body rejected");
    TAP_EQ_INT(upload_request_parse(NULL, 0, 0, &req, err, sizeof err), UPREQ_ERR_ARG,
               "NULL body refused");
    {
        char junk[3000];
        memset(junk, 'x', sizeof junk);
        TAP_CHECK(parse(junk, sizeof junk, &req) < 0, "junk rejected");
    }
}

/* A header of exactly hlen bytes (padding spaces after the root tag). */
static size_t mk_header_len(char *body, size_t cap, size_t hlen)
{
    size_t n = mk(body, cap, "f", "s", "100", "5", NULL, "0", "hello", 5);
    size_t base = n - 5 - 7, pad;

    if (hlen < base)
        return 0;
    pad = hlen - base;
    memmove(body + 21 + pad, body + 21, n - 21);
    memset(body + 21, ' ', pad);
    return n + pad;
}

static void test_limits(void)
{
    static char body[BODY_MAX];
    struct upload_request req;
    size_t n;
    int rc;

    n = mk_header_len(body, sizeof body, UPREQ_HEADER_MAX);
    rc = parse(body, n, &req);
    TAP_CHECK(rc == 0 && req.header_len == UPREQ_HEADER_MAX + 7, "header of %d bytes accepted %s",
              UPREQ_HEADER_MAX, err);
    rc = upload_request_parse(body, UPREQ_PREFIX_MAX, n, &req, err, sizeof err);
    TAP_EQ_INT(rc, 0, "header of %d bytes accepted from a UPREQ_PREFIX_MAX prefix",
               UPREQ_HEADER_MAX);
    n = mk_header_len(body, sizeof body, UPREQ_HEADER_MAX + 1);
    TAP_EQ_INT(parse(body, n, &req), UPREQ_ERR_TOO_BIG, "header of %d bytes rejected",
               UPREQ_HEADER_MAX + 1);
    rc = upload_request_parse(body, UPREQ_PREFIX_MAX, n, &req, err, sizeof err);
    TAP_EQ_INT(rc, UPREQ_ERR_TOO_BIG, "header of %d bytes rejected from a prefix",
               UPREQ_HEADER_MAX + 1);
    /* a huge body that never says <data> */
    memset(body, ' ', sizeof body);
    memcpy(body, "<data_server_request><file_upload>", 34);
    TAP_EQ_INT(parse(body, sizeof body, &req), UPREQ_ERR_TOO_BIG, "64 KB without <data> rejected");
    TAP_EQ_INT(upload_request_parse(body, UPREQ_PREFIX_MAX, 1ULL << 40, &req, err, sizeof err),
               UPREQ_ERR_TOO_BIG, "1 TB body without <data> rejected after 16 KB");
}

/* Random mutations of the real request: never crash, and every accepted
 * request keeps the parser's promises. */
static void test_mutations(void)
{
    static char orig[BODY_MAX], body[BODY_MAX];
    struct upload_request req;
    size_t n, len, i;
    unsigned seed = 12345;
    int ok = 1, accepted = 0, iter;
    static const char alphabet[] = "<>/.0123456789-\n \0ax";

    n = read_data("upload-file-request.bin", orig, sizeof orig);
    for (iter = 0; iter < 20000; iter++) {
        memcpy(body, orig, n);
        len = n;
        for (i = 0; i < 1 + (unsigned)iter % 4 && len > 0; i++) {
            size_t at;
            seed = seed * 1103515245u + 12345u;
            at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            switch ((seed >> 8) % 3) {
            case 0: body[at] = alphabet[(seed >> 12) % (sizeof alphabet - 1)]; break;
            case 1: memmove(body + at, body + at + 1, len - at - 1); len--; break;
            default: len = at + 1; break;
            }
        }
        if (parse(body, len, &req) == 0) {
            accepted++;
            if (req.kind == UPREQ_FILE_UPLOAD)
                ok = ok && upload_name_valid(req.name, strlen(req.name)) && req.offset >= 0 &&
                     req.offset <= req.nbytes && req.nbytes <= req.max_nbytes &&
                     req.data_total <= (unsigned long long)(req.nbytes - req.offset) &&
                     req.data == body + req.header_len && req.header_len + req.data_len == len;
            else
                ok = ok && req.kind == UPREQ_GET_FILE_SIZE &&
                     upload_name_valid(req.name, strlen(req.name));
        }
    }
    TAP_CHECK(ok, "20000 mutations: every accepted request is consistent (%d accepted)", accepted);
}

int main(void)
{
    test_real();
    test_names();
    test_numbers();
    test_structure();
    test_limits();
    test_mutations();
    return tap_done();
}
