/*
 * test_crypto.c - tests of BOINC-format code signing (crypto_sign.h) and
 * of the upload permission HMAC (upload_auth.h).
 *
 * Known answers: the code_sign_key and the file_signature of the file
 * with md5 99af8f51318f74287e1cde406b225d8d are from a reply the real
 * BOINC client 7.20.5 accepted (locality-jobs-reply.xml in the protocol
 * notes); the HMAC value was computed with
 *   printf 'name=min_1_0_0\nmax_nbytes=100000\n' |
 *     openssl dgst -sha256 -mac HMAC -macopt hexkey:000102...1f
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "crypto_sign.h"
#include "tap.h"
#include "upload_auth.h"

static const char real_key[] =
    "1024\n"
    "b15243b0dab79402244ed11a9643ca9bb9ff120b37b3f6857f856f238ab7549c\n"
    "4619578c0989d9d5d68bd18cfe0cafa96057c946e5ddb24e5d2422858055c610\n"
    "623376bf8611cfbc789057db675ec2a34bd26a54c7a5bf860dc3d3dab36cd348\n"
    "fad23467144ef34bd580f798899fb59c098af6fdf5ba9c142d0ff6b17ae4b6b9\n"
    "0000000000000000000000000000000000000000000000000000000000000000\n"
    "0000000000000000000000000000000000000000000000000000000000000000\n"
    "0000000000000000000000000000000000000000000000000000000000000000\n"
    "0000000000000000000000000000000000000000000000000000000000010001\n"
    ".\n";
static const char real_sig[] =
    "ad439513ede9473516301bd7d0e63f3559f1cb0d8cdad324e32c58c2e26062cc\n"
    "8767cbf6c2f4eb7d7a37cdf9621d5e473865722058805dacbed7236d4725a41d\n"
    "982a4aa147204abc3a3097ccec986360d37bc97da8d952e361b0764d414e6c0f\n"
    "49f712deffd072aee2b0460711cada7c88e9bd605212680bb23786bcf3e3dcb2\n"
    ".\n";
static const char real_md5[] = "99af8f51318f74287e1cde406b225d8d";

static const char hkey_hex[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
static const char hmac_known[] = "7fb8281d4ac4f961df7c059c592e870a00d31243fc36c9ab2ef44aed0528063b";

static char tmpdir[160];

/* Write data to tmpdir/name with mode; returns the path (static buffer). */
static const char *write_tmp(const char *name, const char *data, size_t len, mode_t mode)
{
    static char path[sizeof tmpdir + 64];
    int fd;

    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    unlink(path);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
        perror(path);
        exit(2);
    }
    fchmod(fd, mode);
    close(fd);
    return path;
}

static int count_char(const char *s, char c)
{
    int n = 0;

    for (; *s; s++)
        n += *s == c;
    return n;
}

static void test_known_answer(void)
{
    char err[256], crlf[600], bad[sizeof real_sig];
    size_t i, o = 0;

    TAP_EQ_INT(cs_verify_md5(real_key, strlen(real_key), real_sig, strlen(real_sig), real_md5,
                             err, sizeof err), 0, "real client-accepted signature verifies");
    TAP_EQ_INT(cs_verify_md5(real_key, strlen(real_key), real_sig, strlen(real_sig),
                             "99af8f51318f74287e1cde406b225d8e", err, sizeof err),
               CS_ERR_BADSIG, "real signature rejected for another md5");
    memcpy(bad, real_sig, sizeof real_sig);
    bad[10] = bad[10] == '0' ? '1' : '0';
    TAP_EQ_INT(cs_verify_md5(real_key, strlen(real_key), bad, strlen(bad), real_md5, err,
                             sizeof err), CS_ERR_BADSIG, "tampered real signature rejected");
    /* The same signature as the client may store it: CRLF, leading blank line. */
    crlf[o++] = '\n';
    for (i = 0; real_sig[i] && o + 2 < sizeof crlf; i++) {
        if (real_sig[i] == '\n')
            crlf[o++] = '\r';
        crlf[o++] = real_sig[i];
    }
    crlf[o] = '\0';
    TAP_EQ_INT(cs_verify_md5(real_key, strlen(real_key), crlf, strlen(crlf), real_md5, err,
                             sizeof err), 0, "signature with CRLF and leading newline verifies");
    /* Our writer reproduces the real key text exactly. */
    {
        EVP_PKEY *pub = NULL;
        char text[CS_PUBKEY_TEXT_MAX];
        TAP_EQ_INT(cs_public_key_parse(real_key, strlen(real_key), &pub, err, sizeof err), 0,
                   "real key text parses");
        TAP_EQ_INT(cs_public_key_text(pub, text, sizeof text, err, sizeof err), 0,
                   "real key text re-written");
        TAP_EQ_STR(text, real_key, "re-written real key text is byte-identical");
        EVP_PKEY_free(pub);
    }
}

static void test_key_text_malformed(void)
{
    char err[256], buf[1024];
    EVP_PKEY *pub = NULL;
    char *p;

    /* no closing dot */
    snprintf(buf, sizeof buf, "%s", real_key);
    p = strrchr(buf, '.');
    *p = '\0';
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text without '.' rejected (%s)", err);
    /* wrong bit count */
    snprintf(buf, sizeof buf, "1000%s", real_key + 4);
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text with a wrong bit count rejected (%s)", err);
    /* 2048 bits claimed */
    snprintf(buf, sizeof buf, "2048%s", real_key + 4);
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_KEYSIZE,
               "key text claiming 2048 bits rejected (%s)", err);
    /* one byte short */
    snprintf(buf, sizeof buf, "%s", real_key);
    p = strstr(buf, "10001\n.");
    memmove(p + 3, p + 5, strlen(p + 5) + 1);
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text one byte short rejected (%s)", err);
    /* one byte too many */
    snprintf(buf, sizeof buf, "%s", real_key);
    p = strstr(buf, "\n.");
    memmove(p + 2, p, strlen(p) + 1);
    p[0] = '0';
    p[1] = '0';
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text one byte long rejected (%s)", err);
    /* non-hex character */
    snprintf(buf, sizeof buf, "%s", real_key);
    buf[20] = 'g';
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text with a non-hex character rejected (%s)", err);
    /* garbage after the dot */
    snprintf(buf, sizeof buf, "%sx\n", real_key);
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text with text after '.' rejected (%s)", err);
    /* even exponent */
    snprintf(buf, sizeof buf, "%s", real_key);
    p = strstr(buf, "10001\n.");
    p[4] = '2';
    TAP_EQ_INT(cs_public_key_parse(buf, strlen(buf), &pub, err, sizeof err), CS_ERR_FORMAT,
               "key text with an even exponent rejected (%s)", err);
    TAP_CHECK(cs_public_key_parse("", 0, &pub, err, sizeof err) < 0, "empty key text rejected");
    TAP_CHECK(pub == NULL, "no key returned on failure");
}

static void test_generated_key(void)
{
    char err[256], text[CS_PUBKEY_TEXT_MAX], text2[CS_PUBKEY_TEXT_MAX];
    char sig[CS_SIG_TEXT_MAX], sig2[CS_SIG_TEXT_MAX], badsig[CS_SIG_TEXT_MAX];
    char pem[4096], md5[CS_MD5_HEX_LEN + 1];
    EVP_PKEY *key = NULL, *pub = NULL, *other = NULL, *loaded = NULL;
    unsigned char raw[128], sigbin[128];
    size_t rawlen = sizeof raw, i;
    EVP_PKEY_CTX *ctx;
    long long size = -1;
    const char *path;

    TAP_EQ_INT(cs_generate_key(1024, &key, err, sizeof err), 0, "1024-bit key generated");
    if (!key)
        return;
    TAP_EQ_INT(cs_public_key_text(key, text, sizeof text, err, sizeof err), 0,
               "public key text written");
    TAP_CHECK(strncmp(text, "1024\n", 5) == 0, "key text starts with 1024");
    TAP_EQ_INT(strlen(text), 5 + 8 * 65 + 2, "key text is 8 lines of 64 hex digits and '.'");
    TAP_EQ_INT(count_char(text, '\n'), 10, "key text has 10 lines");
    TAP_CHECK(strstr(text, "0000000000000000000000000000000000000000000000000000000000010001\n.\n")
              != NULL, "exponent 65537 right-aligned in its 128 bytes");
    TAP_EQ_INT(cs_public_key_parse(text, strlen(text), &pub, err, sizeof err), 0,
               "key text parses back");
    TAP_CHECK(pub && EVP_PKEY_eq(key, pub) == 1, "parsed public key equals the generated one");
    TAP_EQ_INT(cs_public_key_text(pub, text2, sizeof text2, err, sizeof err), 0,
               "parsed key written again");
    TAP_EQ_STR(text2, text, "key text round trip is exact");
    TAP_EQ_INT(cs_public_key_text(key, text2, 100, err, sizeof err), CS_ERR_ARG,
               "small output buffer refused");

    /* md5 of a file */
    path = write_tmp("abc", "abc", 3, 0644);
    TAP_EQ_INT(cs_md5_file(path, md5, &size, err, sizeof err), 0, "md5 of a file");
    TAP_EQ_STR(md5, "900150983cd24fb0d6963f7d28e17f72", "md5 of \"abc\"");
    TAP_EQ_INT(size, 3, "size of the file");
    snprintf(text2, sizeof text2, "%s/none", tmpdir);
    TAP_EQ_INT(cs_md5_file(text2, md5, &size, err, sizeof err), CS_ERR_IO,
               "md5 of a missing file fails (%s)", err);
    TAP_EQ_INT(cs_md5_file(tmpdir, md5, &size, err, sizeof err), CS_ERR_IO,
               "md5 of a folder fails (%s)", err);

    /* sign and verify */
    TAP_EQ_INT(cs_sign_md5(key, "900150983cd24fb0d6963f7d28e17f72", sig, sizeof sig, err,
                           sizeof err), 0, "md5 signed");
    TAP_EQ_INT(strlen(sig), 4 * 65 + 2, "signature is 4 lines of 64 hex digits and '.'");
    TAP_EQ_INT(cs_sign_md5(key, "900150983cd24fb0d6963f7d28e17f72", sig2, sizeof sig2, err,
                           sizeof err), 0, "signed again");
    TAP_EQ_STR(sig2, sig, "type-1 signatures are deterministic");
    TAP_EQ_INT(cs_verify_md5(text, strlen(text), sig, strlen(sig),
                             "900150983cd24fb0d6963f7d28e17f72", err, sizeof err), 0,
               "signature verifies with the key text");
    TAP_EQ_INT(cs_verify_md5(text, strlen(text), sig, strlen(sig),
                             "900150983cd24fb0d6963f7d28e17f73", err, sizeof err), CS_ERR_BADSIG,
               "signature rejected for a wrong md5");
    TAP_EQ_INT(cs_verify_md5(real_key, strlen(real_key), sig, strlen(sig),
                             "900150983cd24fb0d6963f7d28e17f72", err, sizeof err), CS_ERR_BADSIG,
               "signature rejected with another key");
    memcpy(badsig, sig, sizeof sig);
    badsig[100] = badsig[100] == 'a' ? 'b' : 'a';
    TAP_EQ_INT(cs_verify_md5(text, strlen(text), badsig, strlen(badsig),
                             "900150983cd24fb0d6963f7d28e17f72", err, sizeof err), CS_ERR_BADSIG,
               "tampered signature rejected");
    memcpy(badsig, sig, sizeof sig);
    memmove(badsig + 64, badsig + 66, strlen(badsig + 66) + 1);   /* drop one byte */
    TAP_EQ_INT(cs_verify_md5(text, strlen(text), badsig, strlen(badsig),
                             "900150983cd24fb0d6963f7d28e17f72", err, sizeof err), CS_ERR_FORMAT,
               "short signature rejected as malformed (%s)", err);
    TAP_EQ_INT(cs_verify_md5(text, strlen(text), sig, strlen(sig) - 2,
                             "900150983cd24fb0d6963f7d28e17f72", err, sizeof err), CS_ERR_FORMAT,
               "signature without '.' rejected (%s)", err);
    TAP_EQ_INT(cs_sign_md5(key, "900150983CD24FB0D6963F7D28E17F72", sig2, sizeof sig2, err,
                           sizeof err), CS_ERR_ARG, "uppercase md5 refused for signing");
    TAP_EQ_INT(cs_sign_md5(key, "900150983cd24fb0d6963f7d28e17f7", sig2, sizeof sig2, err,
                           sizeof err), CS_ERR_ARG, "31-digit md5 refused for signing");
    TAP_EQ_INT(cs_sign_md5(pub, "900150983cd24fb0d6963f7d28e17f72", sig2, sizeof sig2, err,
                           sizeof err), CS_ERR_CRYPTO, "signing with a public key fails");

    /* The signature is exactly 00 01 ff..ff 00 || md5 text (no DigestInfo). */
    for (i = 0; i < 128; i++) {
        unsigned hv;
        sscanf(sig + i * 2 + i / 32, "%2x", &hv);
        sigbin[i] = (unsigned char)hv;
    }
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pub, NULL);
    TAP_CHECK(ctx && EVP_PKEY_verify_recover_init(ctx) > 0 &&
              EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) > 0 &&
              EVP_PKEY_verify_recover(ctx, raw, &rawlen, sigbin, 128) > 0 && rawlen == 128,
              "raw RSA public operation on the signature");
    EVP_PKEY_CTX_free(ctx);
    {
        int ok = raw[0] == 0 && raw[1] == 1 && raw[128 - 33] == 0 &&
                 memcmp(raw + 128 - 32, "900150983cd24fb0d6963f7d28e17f72", 32) == 0;
        for (i = 2; i < 128 - 33; i++)
            ok = ok && raw[i] == 0xff;
        TAP_CHECK(ok, "padded block is 00 01 ff.. 00 followed by the 32 md5 characters");
    }

    /* private key PEM round trip */
    TAP_EQ_INT(cs_private_key_pem(key, pem, sizeof pem, err, sizeof err), 0,
               "private key written as PEM");
    TAP_CHECK(strstr(pem, "-----BEGIN PRIVATE KEY-----") != NULL, "PEM is PKCS#8");
    path = write_tmp("priv.pem", pem, strlen(pem), 0600);
    TAP_EQ_INT(cs_private_key_load(path, &loaded, err, sizeof err), 0, "PEM loads back");
    TAP_EQ_INT(cs_sign_md5(loaded, "900150983cd24fb0d6963f7d28e17f72", sig2, sizeof sig2, err,
                           sizeof err), 0, "loaded key signs");
    TAP_EQ_STR(sig2, sig, "loaded key makes the same signature");
    path = write_tmp("pub.txt", text, strlen(text), 0644);
    TAP_EQ_INT(cs_private_key_load(path, &other, err, sizeof err), CS_ERR_FORMAT,
               "BOINC key text is not a private key (%s)", err);
    snprintf(text2, sizeof text2, "%s/missing.pem", tmpdir);
    TAP_EQ_INT(cs_private_key_load(text2, &other, err, sizeof err), CS_ERR_IO,
               "missing PEM file reported (%s)", err);
    OPENSSL_cleanse(pem, sizeof pem);

    EVP_PKEY_free(loaded);
    EVP_PKEY_free(pub);
    EVP_PKEY_free(key);
}

static void test_key_sizes(void)
{
    char err[256], text[CS_PUBKEY_TEXT_MAX], sig[CS_SIG_TEXT_MAX], pem[4096];
    EVP_PKEY *key = NULL, *big;
    const char *path;

    TAP_EQ_INT(cs_generate_key(2048, &key, err, sizeof err), CS_ERR_KEYSIZE,
               "2048-bit generation refused (%s)", err);
    TAP_CHECK(key == NULL, "no key returned");
    TAP_EQ_INT(cs_generate_key(1025, &key, err, sizeof err), CS_ERR_KEYSIZE,
               "1025-bit generation refused");
    TAP_EQ_INT(cs_generate_key(1020, &key, err, sizeof err), CS_ERR_KEYSIZE,
               "bits not a multiple of 8 refused");
    TAP_EQ_INT(cs_generate_key(256, &key, err, sizeof err), CS_ERR_KEYSIZE,
               "256-bit generation refused");
    TAP_EQ_INT(cs_generate_key(512, &key, err, sizeof err), 0, "512-bit key generated");
    if (key) {
        EVP_PKEY *pub = NULL;
        TAP_EQ_INT(cs_public_key_text(key, text, sizeof text, err, sizeof err), 0,
                   "512-bit key text written");
        TAP_CHECK(strncmp(text, "512\n", 4) == 0 &&
                  strncmp(text + 4, "0000000000000000000000000000000000000000000000000000000000000000\n"
                          "0000000000000000000000000000000000000000000000000000000000000000\n", 130) == 0,
                  "512-bit modulus right-aligned in 128 bytes");
        TAP_EQ_INT(cs_public_key_parse(text, strlen(text), &pub, err, sizeof err), 0,
                   "512-bit key text parses");
        TAP_EQ_INT(cs_sign_md5(key, real_md5, sig, sizeof sig, err, sizeof err), 0,
                   "512-bit key signs");
        TAP_EQ_INT(strlen(sig), 2 * 65 + 2, "512-bit signature is 64 bytes");
        TAP_EQ_INT(cs_verify_md5(text, strlen(text), sig, strlen(sig), real_md5, err, sizeof err),
                   0, "512-bit signature verifies");
        EVP_PKEY_free(pub);
        EVP_PKEY_free(key);
    }

    big = EVP_RSA_gen(2048);
    TAP_CHECK(big != NULL, "2048-bit key made directly with OpenSSL");
    if (!big)
        return;
    TAP_EQ_INT(cs_public_key_text(big, text, sizeof text, err, sizeof err), CS_ERR_KEYSIZE,
               "2048-bit key text refused (%s)", err);
    TAP_EQ_INT(cs_sign_md5(big, real_md5, sig, sizeof sig, err, sizeof err), CS_ERR_KEYSIZE,
               "signing with a 2048-bit key refused");
    {
        BIO *bio = BIO_new(BIO_s_mem());
        char *data = NULL;
        long n;
        PEM_write_bio_PrivateKey(bio, big, NULL, NULL, 0, NULL, NULL);
        n = BIO_get_mem_data(bio, &data);
        path = write_tmp("big.pem", data, (size_t)n, 0600);
        BIO_free(bio);
        key = NULL;
        TAP_EQ_INT(cs_private_key_load(path, &key, err, sizeof err), CS_ERR_KEYSIZE,
                   "loading a 2048-bit private key refused (%s)", err);
    }
    TAP_EQ_INT(cs_private_key_pem(big, pem, sizeof pem, err, sizeof err), CS_ERR_KEYSIZE,
               "writing a 2048-bit private key refused");
    EVP_PKEY_free(big);
}

static void test_hmac(void)
{
    struct upload_key key, k2;
    char err[256], warn[256], sig[UA_SIG_HEX + 1], buf[400];
    const char *path;

    memset(&key, 0, sizeof key);
    TAP_EQ_INT(ua_key_parse(&key, hkey_hex, strlen(hkey_hex), err, sizeof err), 0, "key parses");
    TAP_EQ_INT(ua_sign(&key, "min_1_0_0", 100000, sig), 0, "signature made");
    TAP_EQ_STR(sig, hmac_known, "HMAC-SHA256 known answer (openssl dgst)");

    /* verification, as the client sends it back */
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, sig, strlen(sig)), 0, "exact signature verifies");
    snprintf(buf, sizeof buf, "\n%s", sig);
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), 0,
               "signature with the client's leading newline verifies");
    snprintf(buf, sizeof buf, " \r\n\t%s\r\n  ", sig);
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), 0,
               "signature with surrounding whitespace verifies");
    snprintf(buf, sizeof buf, "%s", sig);
    for (char *p = buf; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), 0,
               "uppercase hex verifies");
    snprintf(buf, sizeof buf, "%s", sig);
    buf[0] = buf[0] == '0' ? '1' : '0';
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), UA_ERR_BADSIG,
               "first digit changed: rejected");
    snprintf(buf, sizeof buf, "%s", sig);
    buf[63] = buf[63] == '0' ? '1' : '0';
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), UA_ERR_BADSIG,
               "last digit changed: rejected");
    TAP_EQ_INT(ua_verify(&key, "min_1_0_1", 100000, sig, strlen(sig)), UA_ERR_BADSIG,
               "other name: rejected");
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100001, sig, strlen(sig)), UA_ERR_BADSIG,
               "other max_nbytes: rejected");
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, sig, 63), UA_ERR_BADSIG,
               "truncated signature: rejected");
    snprintf(buf, sizeof buf, "%s00", sig);
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), UA_ERR_BADSIG,
               "extended signature: rejected");
    snprintf(buf, sizeof buf, "\n%s\n.", sig);
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), UA_ERR_BADSIG,
               "signature with a BOINC-style '.' line: rejected");
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, "", 0), UA_ERR_BADSIG,
               "empty signature (what the client sends without one): rejected");
    snprintf(buf, sizeof buf, "%s", sig);
    buf[5] = 'x';
    TAP_EQ_INT(ua_verify(&key, "min_1_0_0", 100000, buf, strlen(buf)), UA_ERR_BADSIG,
               "non-hex character: rejected");
    TAP_EQ_INT(ua_verify(&key, "../min_1_0_0", 100000, sig, strlen(sig)), UA_ERR_ARG,
               "traversal name refused");
    TAP_EQ_INT(ua_sign(&key, "a\nmax_nbytes=1", 5, sig), UA_ERR_ARG,
               "name with a newline refused for signing");
    TAP_EQ_INT(ua_sign(&key, "min_1_0_0", -1, sig), UA_ERR_ARG, "negative max_nbytes refused");
    TAP_EQ_INT(ua_sign(&key, "min_1_0_0", 0, sig), 0, "max_nbytes 0 signs");
    memset(&k2, 0, sizeof k2);
    TAP_EQ_INT(ua_sign(&k2, "min_1_0_0", 100000, sig), UA_ERR_ARG, "unloaded key refused");
    /* the keyed context against the one-shot HMAC: a copy of the struct
     * signs the slow way, with its own bytes */
    {
        char again[UA_SIG_HEX + 1];
        const char *names[] = { "min_1_0_0", "a", "batch_17_job_000123_r2_0" };
        long long sizes[] = { 0, 1, 100000, 999999999999LL };
        int i, j, same = 0;
        k2 = key;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 4; j++)
                same += ua_sign(&key, names[i], sizes[j], sig) == 0 &&
                        ua_sign(&k2, names[i], sizes[j], again) == 0 && strcmp(sig, again) == 0;
        TAP_EQ_INT(same, 12, "keyed context and one-shot HMAC agree on 12 signatures");
        TAP_EQ_INT(ua_sign(&key, "min_1_0_0", 100000, sig), 0, "signature made again");
        TAP_EQ_STR(sig, hmac_known, "... and still the known answer");
    }
    k2 = key;
    k2.bytes[31] ^= 1;
    TAP_EQ_INT(ua_sign(&k2, "min_1_0_0", 100000, sig), 0, "other key signs");
    TAP_CHECK(strcmp(sig, hmac_known) != 0, "other key gives another signature");

    /* key text */
    TAP_EQ_INT(ua_key_parse(&k2, hkey_hex, 63, err, sizeof err), UA_ERR_FORMAT,
               "63 hex digits refused (%s)", err);
    snprintf(buf, sizeof buf, "%s0", hkey_hex);
    TAP_EQ_INT(ua_key_parse(&k2, buf, strlen(buf), err, sizeof err), UA_ERR_FORMAT,
               "65 hex digits refused");
    snprintf(buf, sizeof buf, "%s", hkey_hex);
    buf[40] = 'z';
    TAP_EQ_INT(ua_key_parse(&k2, buf, strlen(buf), err, sizeof err), UA_ERR_FORMAT,
               "non-hex key refused (%s)", err);
    TAP_CHECK(!k2.loaded, "failed parse leaves the key unloaded");

    /* key file */
    snprintf(buf, sizeof buf, "%s\n", hkey_hex);
    path = write_tmp("k600", buf, strlen(buf), 0600);
    TAP_EQ_INT(ua_key_load(&k2, path, warn, sizeof warn, err, sizeof err), 0, "mode 600 key loads");
    TAP_EQ_STR(warn, "", "no warning for mode 600");
    TAP_CHECK(k2.loaded && memcmp(k2.bytes, key.bytes, UA_KEY_LEN) == 0, "loaded the right bytes");
    path = write_tmp("k640", buf, strlen(buf), 0640);
    TAP_EQ_INT(ua_key_load(&k2, path, warn, sizeof warn, err, sizeof err), 0, "mode 640 key loads");
    TAP_EQ_STR(warn, "", "no warning for mode 640 (web server's group)");
    path = write_tmp("k644", buf, strlen(buf), 0644);
    TAP_EQ_INT(ua_key_load(&k2, path, warn, sizeof warn, err, sizeof err), 0,
               "mode 644 key loads");
    TAP_CHECK(strstr(warn, "0644") != NULL, "mode 644 warned (%s)", warn);
    path = write_tmp("kshort", hkey_hex, 62, 0600);
    TAP_EQ_INT(ua_key_load(&k2, path, warn, sizeof warn, err, sizeof err), UA_ERR_FORMAT,
               "short key file refused (%s)", err);
    TAP_CHECK(strstr(err, "kshort") != NULL, "message names the file");
    memset(buf, 'a', 300);
    path = write_tmp("klong", buf, 300, 0600);
    TAP_EQ_INT(ua_key_load(&k2, path, warn, sizeof warn, err, sizeof err), UA_ERR_FORMAT,
               "long key file refused (%s)", err);
    snprintf(buf, sizeof buf, "%s", hkey_hex);
    buf[0] = 'q';
    path = write_tmp("kbad", buf, strlen(buf), 0600);
    TAP_EQ_INT(ua_key_load(&k2, path, warn, sizeof warn, err, sizeof err), UA_ERR_FORMAT,
               "bad hex key file refused (%s)", err);
    snprintf(buf, sizeof buf, "%s/nokey", tmpdir);
    TAP_EQ_INT(ua_key_load(&k2, buf, warn, sizeof warn, err, sizeof err), UA_ERR_IO,
               "missing key file refused (%s)", err);
    TAP_CHECK(strstr(err, "nokey") != NULL && strstr(err, "No such file") != NULL,
              "message names the file and the reason");
    TAP_EQ_INT(ua_key_load(&k2, tmpdir, warn, sizeof warn, err, sizeof err), UA_ERR_IO,
               "a folder is not a key file");
    ua_key_clear(&k2);
    ua_key_clear(&key);
    TAP_CHECK(!key.loaded, "cleared key is unloaded");
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    char cmd[600];

    if (!t || !*t || strlen(t) > 100)
        t = "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/test_crypto.XXXXXX", t);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_known_answer();
    test_key_text_malformed();
    test_generated_key();
    test_key_sizes();
    test_hmac();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return tap_done();
}
