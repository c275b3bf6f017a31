/*
 * fuzz_upload_request.c - libFuzzer target of the file upload handler's
 * request parser (sched/wire/upload_request.h).
 *
 * Each input is parsed twice: as a whole body in memory, and as the first
 * UPREQ_PREFIX_MAX bytes of a longer body (the input, padded), as the
 * handler parses a large upload before streaming the rest.  The length of
 * that longer body comes from the input's last byte, up to the largest
 * unsigned 64-bit length.  Post-conditions of the header are checked on
 * success; on failure the code must be a known one and the message set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "upload_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_lower_hex(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static void parse_and_check(const char *buf, size_t buf_len, unsigned long long body_len)
{
    struct upload_request req;
    char err[256];
    int rc;

    memset(err, 'x', sizeof err);
    rc = upload_request_parse(buf, buf_len, body_len, &req, err, sizeof err);
    if (rc < 0) {
        FUZZ_CHECK(rc >= UPREQ_ERR_RANGE);
        FUZZ_CHECK(FUZZ_TERMINATED(err) && err[0] != '\0');
        return;
    }
    FUZZ_CHECK(rc == UPREQ_OK);
    FUZZ_CHECK(FUZZ_TERMINATED(req.name) && upload_name_valid(req.name, strlen(req.name)));
    FUZZ_CHECK(req.core_major >= -1 && req.core_minor >= -1 && req.core_release >= -1);
    FUZZ_CHECK(req.header_len <= buf_len);
    if (req.kind == UPREQ_GET_FILE_SIZE) {
        FUZZ_CHECK(req.header_len <= UPREQ_HEADER_MAX && buf_len == body_len);
        return;
    }
    FUZZ_CHECK(req.kind == UPREQ_FILE_UPLOAD);
    FUZZ_CHECK(req.header_len <= UPREQ_PREFIX_MAX);
    FUZZ_CHECK(req.data == buf + req.header_len);
    FUZZ_CHECK(req.header_len + req.data_len == buf_len);
    FUZZ_CHECK(req.header_len + req.data_total == body_len);
    FUZZ_CHECK(req.offset >= 0 && req.offset <= req.nbytes && req.nbytes <= req.max_nbytes &&
               req.max_nbytes <= UPREQ_NUMBER_MAX);
    FUZZ_CHECK(req.data_total <= (unsigned long long)(req.nbytes - req.offset));
    FUZZ_CHECK(req.xml_signature_len <= UPREQ_SIG_MAX &&
               strlen(req.xml_signature) == req.xml_signature_len);
    FUZZ_CHECK(!req.has_md5 || (strlen(req.md5) == 32 && is_lower_hex(req.md5, 32)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char prefix[UPREQ_PREFIX_MAX];
    char *whole = malloc(size ? size : 1);
    unsigned long long body_len;
    size_t n = size < sizeof prefix ? size : sizeof prefix;

    if (!whole)
        return 0;
    memcpy(whole, data, size);          /* exact size: ASan sees any over-read */
    parse_and_check(whole, size, size);
    free(whole);

    /* the same bytes as the start of a longer body, padded with data bytes */
    memcpy(prefix, data, n);
    memset(prefix + n, 'd', sizeof prefix - n);
    if (size == 0)
        body_len = sizeof prefix;
    else if (data[size - 1] == 0xff)
        body_len = ~0ULL;
    else
        body_len = sizeof prefix + (unsigned long long)data[size - 1] * 4099;
    if (size > sizeof prefix && body_len < size)
        body_len = size;
    parse_and_check(prefix, sizeof prefix, body_len);
    return 0;
}
