/*
 * upload_auth.c - HMAC-SHA256 upload permissions (see upload_auth.h).
 *
 * Security assumptions: the key is secret and 32 random bytes; the key
 * file's text and the signature text in requests are untrusted input and
 * are parsed into fixed buffers.  Key bytes and the key file's text are
 * cleansed from our stack after use.  Verification decodes the client's
 * hex and compares with CRYPTO_memcmp so that timing does not reveal how
 * many leading bytes of a forged signature were right.
 */
#include "upload_auth.h"
#include "text_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include "sched_limits.h"
#include "upload_request.h"

/* Longest key file we read: 64 hex digits plus generous whitespace. */
#define KEY_FILE_MAX 256

/* Decode exactly 2*n hex digits into out.  Returns 0, or -1 with *bad set
 * to the offset of the first non-hex character. */
static int unhex(const char *s, unsigned char *out, size_t n, size_t *bad)
{
    size_t i;
    int hi, lo;

    for (i = 0; i < n; i++) {
        hi = text_hexval(s[2 * i]);
        lo = text_hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            if (bad)
                *bad = 2 * i + (hi < 0 ? 0 : 1);
            return -1;
        }
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* Free the HMAC context of key if it is this struct's own. */
static void mac_free(struct upload_key *key)
{
    if (key->mac_of == key)
        EVP_MAC_CTX_free(key->mac);
    key->mac = NULL;
    key->mac_of = NULL;
}

/* An HMAC-SHA256 context keyed with key->bytes, or NULL (then ua_mac
 * signs the slow way). */
static void mac_make(struct upload_key *key)
{
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_end()
    };
    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = hmac ? EVP_MAC_CTX_new(hmac) : NULL;

    EVP_MAC_free(hmac);     /* the context holds its own reference */
    if (ctx && !EVP_MAC_init(ctx, key->bytes, UA_KEY_LEN, params)) {
        EVP_MAC_CTX_free(ctx);
        ctx = NULL;
    }
    key->mac = ctx;
    key->mac_of = ctx ? key : NULL;
}

int ua_key_parse(struct upload_key *key, const char *text, size_t len, char *err, size_t errlen)
{
    size_t start = 0, end = len, bad = 0;

    if (!key || !text)
        return text_fail(err, errlen, UA_ERR_ARG, "no key");
    mac_free(key);
    key->loaded = 0;
    while (start < end && text_is_space(text[start]))
        start++;
    while (end > start && text_is_space(text[end - 1]))
        end--;
    if (end - start != 2 * UA_KEY_LEN)
        return text_fail(err, errlen, UA_ERR_FORMAT, "expected %d hex digits, found %zu characters",
                    2 * UA_KEY_LEN, end - start);
    if (unhex(text + start, key->bytes, UA_KEY_LEN, &bad) < 0) {
        OPENSSL_cleanse(key->bytes, sizeof key->bytes);
        return text_fail(err, errlen, UA_ERR_FORMAT, "character %zu is not a hex digit", start + bad + 1);
    }
    key->loaded = 1;
    mac_make(key);
    return 0;
}

int ua_key_load(struct upload_key *key, const char *path, char *warn, size_t warnlen,
                char *err, size_t errlen)
{
    char text[KEY_FILE_MAX + 1], sub[160];
    struct stat st;
    size_t n = 0;
    ssize_t r;
    int fd, rc;

    if (warn && warnlen)
        warn[0] = '\0';
    if (!key || !path)
        return text_fail(err, errlen, UA_ERR_ARG, "no key path");
    key->loaded = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return text_fail(err, errlen, UA_ERR_IO, "cannot open upload key %s: %s%s", path,
                    strerror(errno),
                    errno == ENOENT ? " (make one with: openssl rand -hex 32)" : "");
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return text_fail(err, errlen, UA_ERR_IO, "upload key %s is not a regular file", path);
    }
    while (n <= KEY_FILE_MAX) {
        r = read(fd, text + n, KEY_FILE_MAX + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = text_fail(err, errlen, UA_ERR_IO, "cannot read upload key %s: %s", path,
                      strerror(errno));
            close(fd);
            OPENSSL_cleanse(text, sizeof text);
            return rc;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > KEY_FILE_MAX) {
        OPENSSL_cleanse(text, sizeof text);
        return text_fail(err, errlen, UA_ERR_FORMAT, "upload key %s: file too long (expected %d hex digits)",
                    path, 2 * UA_KEY_LEN);
    }
    rc = ua_key_parse(key, text, n, sub, sizeof sub);
    OPENSSL_cleanse(text, sizeof text);
    if (rc < 0)
        return text_fail(err, errlen, rc, "upload key %s: %s", path, sub);
    if ((st.st_mode & (S_IRWXO | S_IWGRP)) && warn && warnlen)
        snprintf(warn, warnlen, "upload key %s has mode %04o; others may read or change it "
                 "(chmod 600, or 640 with the web server's group)", path,
                 (unsigned)(st.st_mode & 07777));
    return 0;
}

void ua_key_clear(struct upload_key *key)
{
    if (key) {
        mac_free(key);
        OPENSSL_cleanse(key->bytes, sizeof key->bytes);
        key->loaded = 0;
    }
}

/* HMAC of the canonical text into mac[32].  Returns 0 or UA_ERR_*. */
static int ua_mac(const struct upload_key *key, const char *name, long long max_nbytes,
                  unsigned char mac[32])
{
    char msg[LIM_NAME_LEN + 64];
    unsigned int maclen = 0;
    int n;

    if (!key || !key->loaded || !name || !upload_name_valid(name, strlen(name)) ||
        max_nbytes < 0 || max_nbytes > UPREQ_NUMBER_MAX)
        return UA_ERR_ARG;
    n = snprintf(msg, sizeof msg, "name=%s\nmax_nbytes=%lld\n", name, max_nbytes);
    if (n < 0 || (size_t)n >= sizeof msg)
        return UA_ERR_ARG;
    if (key->mac && key->mac_of == key) {
        /* the keyed context, started again with its key (no key given) */
        EVP_MAC_CTX *ctx = key->mac;
        size_t len = 0;
        if (!EVP_MAC_init(ctx, NULL, 0, NULL) ||
            !EVP_MAC_update(ctx, (const unsigned char *)msg, (size_t)n) ||
            !EVP_MAC_final(ctx, mac, &len, 32) || len != 32)
            return UA_ERR_CRYPTO;
        return 0;
    }
    if (!HMAC(EVP_sha256(), key->bytes, UA_KEY_LEN, (const unsigned char *)msg, (size_t)n, mac,
              &maclen) || maclen != 32)
        return UA_ERR_CRYPTO;
    return 0;
}

int ua_sign(const struct upload_key *key, const char *name, long long max_nbytes,
            char out[UA_SIG_HEX + 1])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char mac[32];
    int rc, i;

    if (!out)
        return UA_ERR_ARG;
    out[0] = '\0';
    if ((rc = ua_mac(key, name, max_nbytes, mac)) < 0)
        return rc;
    for (i = 0; i < 32; i++) {
        out[2 * i] = digits[mac[i] >> 4];
        out[2 * i + 1] = digits[mac[i] & 15];
    }
    out[UA_SIG_HEX] = '\0';
    return 0;
}

int ua_verify(const struct upload_key *key, const char *name, long long max_nbytes,
              const char *sig, size_t siglen)
{
    unsigned char want[32], got[32];
    size_t start = 0, end = siglen;
    int rc;

    if ((rc = ua_mac(key, name, max_nbytes, want)) < 0)
        return rc;
    if (!sig)
        return UA_ERR_BADSIG;
    while (start < end && text_is_space(sig[start]))
        start++;
    while (end > start && text_is_space(sig[end - 1]))
        end--;
    if (end - start != UA_SIG_HEX || unhex(sig + start, got, 32, NULL) < 0)
        return UA_ERR_BADSIG;
    return CRYPTO_memcmp(want, got, 32) == 0 ? 0 : UA_ERR_BADSIG;
}
