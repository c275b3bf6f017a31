/*
 * crypto_sign.c - BOINC-format code signing with OpenSSL 3's EVP API
 * (see crypto_sign.h for the formats).
 *
 * BOINC's "file signature" is textbook RSA private-key encryption of the
 * md5 text with PKCS#1 v1.5 type-1 padding and no DigestInfo.  With the
 * EVP API that is EVP_PKEY_sign() with RSA_PKCS1_PADDING and no signature
 * digest set (the provider then pads and signs the raw bytes); checking it
 * is EVP_PKEY_verify_recover() and a comparison of the recovered bytes.
 *
 * Security assumptions: key and signature text may come from anywhere and
 * are parsed with fixed-size buffers; a modulus over 1024 bits is refused
 * everywhere because the client would refuse it.  Private key material in
 * our buffers is cleansed before it is released.
 */
#include "crypto_sign.h"
#include "text_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#if OPENSSL_VERSION_NUMBER < 0x30000000L
#error "crypto_sign.c needs OpenSSL 3 (EVP_PKEY_fromdata, EVP_PKEY_get_bn_param)"
#endif

static const char hexdigits[] = "0123456789abcdef";

/* Fail with OpenSSL's most recent error appended, and empty its queue. */
static int fail_ssl(char *err, size_t errlen, const char *what)
{
    char buf[256];
    unsigned long e = ERR_get_error();

    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "unknown error");
    ERR_clear_error();
    return text_fail(err, errlen, CS_ERR_CRYPTO, "%s: %s", what, buf);
}

/*
 * Append n bytes as lowercase hex, 32 bytes per line, then ".\n", to
 * out at *pos.  Returns 0, or CS_ERR_ARG if out is too small.
 */
static int put_hex_block(const unsigned char *b, size_t n, char *out, size_t outlen, size_t *pos)
{
    size_t i, p = *pos;

    for (i = 0; i < n; i++) {
        if (p + 4 > outlen)
            return CS_ERR_ARG;
        out[p++] = hexdigits[b[i] >> 4];
        out[p++] = hexdigits[b[i] & 15];
        if (i % 32 == 31 || i + 1 == n)
            out[p++] = '\n';
    }
    if (p + 3 > outlen)
        return CS_ERR_ARG;
    out[p++] = '.';
    out[p++] = '\n';
    out[p] = '\0';
    *pos = p;
    return 0;
}

/*
 * Parse hex bytes from s[*pos..len) up to a "." terminator: whitespace may
 * separate byte pairs; after the "." only whitespace may follow.  At most
 * max bytes are stored in out; *nout gets the count.  Returns 0, or
 * CS_ERR_FORMAT (bad character, odd digit, too many bytes, no ".").
 */
static int parse_hex_block(const char *s, size_t len, size_t pos, unsigned char *out,
                           size_t max, size_t *nout, char *err, size_t errlen)
{
    size_t n = 0;
    int hi, lo;

    for (;;) {
        while (pos < len && text_is_space(s[pos]))
            pos++;
        if (pos >= len)
            return text_fail(err, errlen, CS_ERR_FORMAT, "hex block has no closing \".\"");
        if (s[pos] == '.')
            break;
        if (pos + 1 >= len || (hi = text_hexval(s[pos])) < 0 || (lo = text_hexval(s[pos + 1])) < 0)
            return text_fail(err, errlen, CS_ERR_FORMAT, "bad hex at offset %zu", pos);
        if (n >= max)
            return text_fail(err, errlen, CS_ERR_FORMAT, "hex block longer than %zu bytes", max);
        out[n++] = (unsigned char)(hi << 4 | lo);
        pos += 2;
    }
    for (pos++; pos < len; pos++)
        if (!text_is_space(s[pos]))
            return text_fail(err, errlen, CS_ERR_FORMAT, "text after the closing \".\"");
    *nout = n;
    return 0;
}

/* Check that key is RSA with at most CS_MAX_BITS bits. */
static int check_rsa_key(EVP_PKEY *key, char *err, size_t errlen)
{
    int bits;

    if (!key)
        return text_fail(err, errlen, CS_ERR_ARG, "no key");
    if (!EVP_PKEY_is_a(key, "RSA"))
        return text_fail(err, errlen, CS_ERR_FORMAT, "key is not an RSA key");
    bits = EVP_PKEY_get_bits(key);
    if (bits > CS_MAX_BITS)
        return text_fail(err, errlen, CS_ERR_KEYSIZE,
                    "RSA key has %d bits; BOINC clients accept at most %d", bits, CS_MAX_BITS);
    if (bits < CS_MIN_BITS)
        return text_fail(err, errlen, CS_ERR_KEYSIZE, "RSA key has %d bits; at least %d needed",
                    bits, CS_MIN_BITS);
    return 0;
}

int cs_md5_hex_valid(const char *s, size_t len)
{
    size_t i;

    if (!s || len != CS_MD5_HEX_LEN)
        return 0;
    for (i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

int cs_generate_key(int bits, EVP_PKEY **out, char *err, size_t errlen)
{
    EVP_PKEY_CTX *ctx = NULL;
    BIGNUM *e = NULL;
    EVP_PKEY *key = NULL;
    int rc;

    if (!out)
        return text_fail(err, errlen, CS_ERR_ARG, "no output key");
    *out = NULL;
    if (bits > CS_MAX_BITS)
        return text_fail(err, errlen, CS_ERR_KEYSIZE,
                    "%d bits requested; BOINC clients accept at most %d", bits, CS_MAX_BITS);
    if (bits < CS_MIN_BITS || bits % 8 != 0)
        return text_fail(err, errlen, CS_ERR_KEYSIZE,
                    "%d bits requested; use a multiple of 8 from %d to %d", bits, CS_MIN_BITS,
                    CS_MAX_BITS);
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    e = BN_new();
    if (!ctx || !e || !BN_set_word(e, 65537)) {
        rc = fail_ssl(err, errlen, "cannot set up RSA key generation");
        goto out;
    }
    if (EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits) <= 0 ||
        EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx, e) <= 0) {
        rc = fail_ssl(err, errlen, "cannot set RSA key generation parameters");
        goto out;
    }
    if (EVP_PKEY_generate(ctx, &key) <= 0) {
        rc = fail_ssl(err, errlen, "RSA key generation failed");
        goto out;
    }
    *out = key;
    rc = 0;
out:
    BN_free(e);
    EVP_PKEY_CTX_free(ctx);
    return rc;
}

int cs_public_key_text(EVP_PKEY *key, char *out, size_t outlen, char *err, size_t errlen)
{
    unsigned char buf[2 * CS_KEY_FIELD_BYTES];
    BIGNUM *n = NULL, *e = NULL;
    size_t pos;
    int rc, r;

    if (!out || outlen == 0)
        return text_fail(err, errlen, CS_ERR_ARG, "no output buffer");
    out[0] = '\0';
    if ((rc = check_rsa_key(key, err, errlen)) < 0)
        return rc;
    if (!EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &n) ||
        !EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &e)) {
        rc = fail_ssl(err, errlen, "cannot read the RSA modulus and exponent");
        goto out;
    }
    if (BN_num_bytes(n) > CS_KEY_FIELD_BYTES || BN_num_bytes(e) > CS_KEY_FIELD_BYTES ||
        BN_bn2binpad(n, buf, CS_KEY_FIELD_BYTES) < 0 ||
        BN_bn2binpad(e, buf + CS_KEY_FIELD_BYTES, CS_KEY_FIELD_BYTES) < 0) {
        rc = text_fail(err, errlen, CS_ERR_KEYSIZE, "RSA modulus or exponent too large");
        goto out;
    }
    r = snprintf(out, outlen, "%d\n", BN_num_bits(n));
    if (r < 0 || (size_t)r >= outlen) {
        rc = text_fail(err, errlen, CS_ERR_ARG, "output buffer too small");
        goto out;
    }
    pos = (size_t)r;
    if (put_hex_block(buf, sizeof buf, out, outlen, &pos) < 0) {
        out[0] = '\0';
        rc = text_fail(err, errlen, CS_ERR_ARG, "output buffer too small");
        goto out;
    }
    rc = 0;
out:
    BN_free(n);
    BN_free(e);
    return rc;
}

/* Build an RSA public EVP_PKEY from n and e. */
static int pkey_from_ne(const BIGNUM *n, const BIGNUM *e, EVP_PKEY **out, char *err, size_t errlen)
{
    OSSL_PARAM_BLD *bld = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    int rc;

    *out = NULL;
    bld = OSSL_PARAM_BLD_new();
    if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
        !(params = OSSL_PARAM_BLD_to_param(bld))) {
        rc = fail_ssl(err, errlen, "cannot build RSA key parameters");
        goto out;
    }
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (!ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, out, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        *out = NULL;
        rc = fail_ssl(err, errlen, "cannot make an RSA public key");
        goto out;
    }
    rc = 0;
out:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return rc;
}

int cs_public_key_parse(const char *text, size_t len, EVP_PKEY **out, char *err, size_t errlen)
{
    unsigned char buf[2 * CS_KEY_FIELD_BYTES];
    BIGNUM *n = NULL, *e = NULL;
    size_t pos = 0, nbytes = 0;
    int bits = 0, digits = 0, rc;

    if (!out)
        return text_fail(err, errlen, CS_ERR_ARG, "no output key");
    *out = NULL;
    if (!text)
        return text_fail(err, errlen, CS_ERR_ARG, "no key text");
    while (pos < len && text_is_space(text[pos]))
        pos++;
    while (pos < len && text[pos] >= '0' && text[pos] <= '9' && digits < 5) {
        bits = bits * 10 + (text[pos] - '0');
        pos++;
        digits++;
    }
    if (digits == 0 || digits >= 5 || pos >= len || !text_is_space(text[pos]))
        return text_fail(err, errlen, CS_ERR_FORMAT, "key text does not start with a bit count line");
    if (bits > CS_MAX_BITS)
        return text_fail(err, errlen, CS_ERR_KEYSIZE,
                    "key has %d bits; BOINC clients accept at most %d", bits, CS_MAX_BITS);
    if (bits < CS_MIN_BITS)
        return text_fail(err, errlen, CS_ERR_KEYSIZE, "key has %d bits; at least %d needed", bits,
                    CS_MIN_BITS);
    if ((rc = parse_hex_block(text, len, pos, buf, sizeof buf, &nbytes, err, errlen)) < 0)
        return rc;
    if (nbytes != sizeof buf)
        return text_fail(err, errlen, CS_ERR_FORMAT, "key text holds %zu bytes, expected %zu", nbytes,
                    sizeof buf);
    n = BN_bin2bn(buf, CS_KEY_FIELD_BYTES, NULL);
    e = BN_bin2bn(buf + CS_KEY_FIELD_BYTES, CS_KEY_FIELD_BYTES, NULL);
    if (!n || !e) {
        rc = fail_ssl(err, errlen, "out of memory");
        goto out;
    }
    if (BN_num_bits(n) != bits) {
        rc = text_fail(err, errlen, CS_ERR_FORMAT, "key says %d bits but its modulus has %d", bits,
                  BN_num_bits(n));
        goto out;
    }
    if (!BN_is_odd(n) || !BN_is_odd(e) || BN_is_one(e) || BN_cmp(e, n) >= 0) {
        rc = text_fail(err, errlen, CS_ERR_FORMAT, "key has an impossible modulus or exponent");
        goto out;
    }
    rc = pkey_from_ne(n, e, out, err, errlen);
out:
    BN_free(n);
    BN_free(e);
    return rc;
}

/* Password callback that refuses: servers and tools never prompt. */
static int no_password(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

int cs_private_key_load(const char *path, EVP_PKEY **out, char *err, size_t errlen)
{
    BIO *bio;
    EVP_PKEY *key;
    int rc;

    if (!out || !path)
        return text_fail(err, errlen, CS_ERR_ARG, "no key path");
    *out = NULL;
    bio = BIO_new_file(path, "r");
    if (!bio) {
        ERR_clear_error();
        return text_fail(err, errlen, CS_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    }
    key = PEM_read_bio_PrivateKey(bio, NULL, no_password, NULL);
    BIO_free(bio);
    if (!key) {
        ERR_clear_error();
        return text_fail(err, errlen, CS_ERR_FORMAT,
                    "%s: not an unencrypted PEM private key", path);
    }
    if ((rc = check_rsa_key(key, err, errlen)) < 0) {
        EVP_PKEY_free(key);
        return rc;
    }
    *out = key;
    return 0;
}

int cs_private_key_pem(EVP_PKEY *key, char *out, size_t outlen, char *err, size_t errlen)
{
    BIO *bio;
    char *data = NULL;
    long n;
    int rc;

    if (!out || outlen == 0)
        return text_fail(err, errlen, CS_ERR_ARG, "no output buffer");
    out[0] = '\0';
    if ((rc = check_rsa_key(key, err, errlen)) < 0)
        return rc;
    bio = BIO_new(BIO_s_secmem());
    if (!bio)
        return fail_ssl(err, errlen, "out of memory");
    if (!PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL)) {
        rc = fail_ssl(err, errlen, "cannot write the private key as PEM");
        goto out;
    }
    n = BIO_get_mem_data(bio, &data);
    if (n <= 0 || !data || (size_t)n >= outlen) {
        rc = text_fail(err, errlen, CS_ERR_ARG, "private key PEM does not fit in %zu bytes", outlen);
        goto out;
    }
    memcpy(out, data, (size_t)n);
    out[n] = '\0';
    rc = 0;
out:
    BIO_free(bio);
    return rc;
}

int cs_md5_fd(int fd, char hex[CS_MD5_HEX_LEN + 1], long long *size, char *err, size_t errlen)
{
    unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0, i;
    EVP_MD_CTX *ctx;
    long long total = 0;
    ssize_t r;
    int rc;

    if (!hex)
        return text_fail(err, errlen, CS_ERR_ARG, "no output buffer");
    hex[0] = '\0';
    ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_md5(), NULL)) {
        rc = fail_ssl(err, errlen, "cannot start md5");
        goto out;
    }
    for (;;) {
        r = pread(fd, buf, sizeof buf, (off_t)total);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = text_fail(err, errlen, CS_ERR_IO, "read error: %s", strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)r)) {
            rc = fail_ssl(err, errlen, "md5 failed");
            goto out;
        }
        total += r;
    }
    if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 16) {
        rc = fail_ssl(err, errlen, "md5 failed");
        goto out;
    }
    for (i = 0; i < mdlen; i++) {
        hex[2 * i] = hexdigits[md[i] >> 4];
        hex[2 * i + 1] = hexdigits[md[i] & 15];
    }
    hex[2 * mdlen] = '\0';
    if (size)
        *size = total;
    rc = 0;
out:
    EVP_MD_CTX_free(ctx);
    return rc;
}

int cs_md5_file(const char *path, char hex[CS_MD5_HEX_LEN + 1], long long *size,
                char *err, size_t errlen)
{
    struct stat st;
    char sub[200];
    int fd, rc;

    if (!path || !hex)
        return text_fail(err, errlen, CS_ERR_ARG, "no path");
    hex[0] = '\0';
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return text_fail(err, errlen, CS_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return text_fail(err, errlen, CS_ERR_IO, "%s is not a regular file", path);
    }
    rc = cs_md5_fd(fd, hex, size, sub, sizeof sub);
    close(fd);
    if (rc < 0)
        return text_fail(err, errlen, rc, "%s: %s", path, sub);
    return 0;
}

int cs_sign_md5(EVP_PKEY *priv, const char *md5hex, char *out, size_t outlen,
                char *err, size_t errlen)
{
    unsigned char sig[CS_KEY_FIELD_BYTES];
    size_t siglen = 0, pos = 0;
    EVP_PKEY_CTX *ctx = NULL;
    int rc;

    if (!out || outlen == 0)
        return text_fail(err, errlen, CS_ERR_ARG, "no output buffer");
    out[0] = '\0';
    if (!md5hex || !cs_md5_hex_valid(md5hex, strlen(md5hex)))
        return text_fail(err, errlen, CS_ERR_ARG, "md5 must be 32 lowercase hex digits");
    if ((rc = check_rsa_key(priv, err, errlen)) < 0)
        return rc;
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, priv, NULL);
    if (!ctx || EVP_PKEY_sign_init(ctx) <= 0 ||
        EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0) {
        rc = fail_ssl(err, errlen, "cannot set up RSA signing");
        goto out;
    }
    if (EVP_PKEY_sign(ctx, NULL, &siglen, (const unsigned char *)md5hex, CS_MD5_HEX_LEN) <= 0 ||
        siglen > sizeof sig) {
        rc = fail_ssl(err, errlen, "cannot size the RSA signature");
        goto out;
    }
    if (EVP_PKEY_sign(ctx, sig, &siglen, (const unsigned char *)md5hex, CS_MD5_HEX_LEN) <= 0) {
        rc = fail_ssl(err, errlen, "RSA signing failed (is this a private key?)");
        goto out;
    }
    if (put_hex_block(sig, siglen, out, outlen, &pos) < 0) {
        out[0] = '\0';
        rc = text_fail(err, errlen, CS_ERR_ARG, "output buffer too small");
        goto out;
    }
    rc = 0;
out:
    EVP_PKEY_CTX_free(ctx);
    return rc;
}

int cs_verify_md5_key(EVP_PKEY *pub, const char *sigtext, size_t siglen, const char *md5hex,
                      char *err, size_t errlen)
{
    unsigned char sig[CS_KEY_FIELD_BYTES], clear[CS_KEY_FIELD_BYTES];
    size_t nsig = 0, nclear = sizeof clear;
    EVP_PKEY_CTX *ctx = NULL;
    int rc, keybytes;

    if (!md5hex || !cs_md5_hex_valid(md5hex, strlen(md5hex)))
        return text_fail(err, errlen, CS_ERR_ARG, "md5 must be 32 lowercase hex digits");
    if (!sigtext)
        return text_fail(err, errlen, CS_ERR_ARG, "no signature text");
    if ((rc = check_rsa_key(pub, err, errlen)) < 0)
        return rc;
    if ((rc = parse_hex_block(sigtext, siglen, 0, sig, sizeof sig, &nsig, err, errlen)) < 0)
        return rc;
    keybytes = EVP_PKEY_get_size(pub);
    if (keybytes <= 0 || nsig != (size_t)keybytes)
        return text_fail(err, errlen, CS_ERR_FORMAT, "signature has %zu bytes, the key needs %d", nsig,
                    keybytes);
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pub, NULL);
    if (!ctx || EVP_PKEY_verify_recover_init(ctx) <= 0 ||
        EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0) {
        rc = fail_ssl(err, errlen, "cannot set up RSA verification");
        goto out;
    }
    if (EVP_PKEY_verify_recover(ctx, clear, &nclear, sig, nsig) <= 0) {
        /* bad padding: not made with this key */
        ERR_clear_error();
        rc = text_fail(err, errlen, CS_ERR_BADSIG, "signature does not match the key");
        goto out;
    }
    if (nclear != CS_MD5_HEX_LEN || memcmp(clear, md5hex, CS_MD5_HEX_LEN) != 0) {
        rc = text_fail(err, errlen, CS_ERR_BADSIG, "signature is for a different md5");
        goto out;
    }
    rc = 0;
out:
    EVP_PKEY_CTX_free(ctx);
    return rc;
}

int cs_verify_md5(const char *pubtext, size_t publen, const char *sigtext, size_t siglen,
                  const char *md5hex, char *err, size_t errlen)
{
    EVP_PKEY *pub = NULL;
    int rc;

    if ((rc = cs_public_key_parse(pubtext, publen, &pub, err, errlen)) < 0)
        return rc;
    rc = cs_verify_md5_key(pub, sigtext, siglen, md5hex, err, errlen);
    EVP_PKEY_free(pub);
    return rc;
}
