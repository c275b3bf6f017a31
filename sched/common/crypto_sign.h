/*
 * crypto_sign.h - BOINC-format code signing: keys, md5 and file signatures.
 *
 * The BOINC client accepts an app version's files only with a
 * <file_signature>: an RSA PKCS#1 v1.5 type-1 "private encrypt" of the
 * 32-character lowercase hex md5 of the file (the ASCII text itself, no
 * DigestInfo), written as hex.  It checks it against the project's
 * <code_sign_key>, sent in the scheduler reply in BOINC's own key text
 * format.  The client's RSA code accepts moduli of at most 1024 bits.
 *
 * Text formats (lowercase hex, 32 bytes = 64 hex digits per line):
 *   public key:  "BITS\n" + hex(modulus right-aligned in 128 bytes ||
 *                exponent right-aligned in 128 bytes) + ".\n"
 *   signature:   hex(signature, modulus size bytes) + ".\n"
 *
 * Security assumptions: the private key lives on an offline machine (only
 * sandboxes keep one in the project); the server only ever handles the
 * public key text and signatures made elsewhere.  Parsers here accept
 * untrusted text and are bounded.
 *
 * All functions return 0 or a negative CS_ERR_* code, with a message in
 * err (if err is not NULL).  Requires OpenSSL 3 (EVP_PKEY_fromdata).
 */
#ifndef LOCSCHED_CRYPTO_SIGN_H
#define LOCSCHED_CRYPTO_SIGN_H

#include <stddef.h>
#include <openssl/evp.h>

#define CS_MAX_BITS        1024   /* the client's MAX_RSA_MODULUS_BITS */
#define CS_MIN_BITS        512    /* below this OpenSSL refuses to work */
#define CS_KEY_FIELD_BYTES 128    /* modulus and exponent slots in the text */
#define CS_MD5_HEX_LEN     32
/* "1024\n" + 8 lines of 65 + ".\n" = 527; room to spare. */
#define CS_PUBKEY_TEXT_MAX 640
/* 4 lines of 65 + ".\n" = 262. */
#define CS_SIG_TEXT_MAX    320

enum cs_err {
    CS_OK = 0,
    CS_ERR_ARG = -1,      /* bad argument (md5 not 32 hex, buffer too small) */
    CS_ERR_IO = -2,       /* a file could not be read or written */
    CS_ERR_FORMAT = -3,   /* key or signature text malformed */
    CS_ERR_KEYSIZE = -4,  /* key larger than 1024 bits or too small */
    CS_ERR_CRYPTO = -5,   /* OpenSSL failed */
    CS_ERR_BADSIG = -6    /* well-formed signature that does not match */
};

/* Generate an RSA key of bits (CS_MIN_BITS..CS_MAX_BITS, multiple of 8)
 * with public exponent 65537.  *out is owned by the caller (EVP_PKEY_free). */
int cs_generate_key(int bits, EVP_PKEY **out, char *err, size_t errlen);

/* Write the public half of an RSA key (<= 1024 bits) in BOINC text format,
 * NUL-terminated, into out (outlen >= CS_PUBKEY_TEXT_MAX is enough). */
int cs_public_key_text(EVP_PKEY *key, char *out, size_t outlen, char *err, size_t errlen);

/* Parse BOINC public key text (untrusted).  Whitespace between byte pairs
 * and around the text is accepted; the closing "." is required.  The bits
 * line must equal the modulus' bit length.  *out is owned by the caller. */
int cs_public_key_parse(const char *text, size_t len, EVP_PKEY **out, char *err, size_t errlen);

/* Read a private key from a PEM file (PKCS#1 or PKCS#8, not encrypted).
 * Refuses keys that are not RSA or larger than 1024 bits. */
int cs_private_key_load(const char *path, EVP_PKEY **out, char *err, size_t errlen);

/* PEM (PKCS#8, unencrypted) of a private key into out, NUL-terminated.
 * The caller should OPENSSL_cleanse(out) after use. */
int cs_private_key_pem(EVP_PKEY *key, char *out, size_t outlen, char *err, size_t errlen);

/* md5 of an open file (read from offset 0 with pread) or of a file by
 * path, as 32 lowercase hex digits + NUL in hex; the size in *size if
 * size is not NULL. */
int cs_md5_fd(int fd, char hex[CS_MD5_HEX_LEN + 1], long long *size, char *err, size_t errlen);
int cs_md5_file(const char *path, char hex[CS_MD5_HEX_LEN + 1], long long *size,
                char *err, size_t errlen);

/* Nonzero if s[0..len) is exactly 32 lowercase hex digits. */
int cs_md5_hex_valid(const char *s, size_t len);

/* Sign a 32-char lowercase hex md5 with a private key: signature text
 * (hex, 32 bytes per line, ".\n"), NUL-terminated, into out
 * (outlen >= CS_SIG_TEXT_MAX is enough). */
int cs_sign_md5(EVP_PKEY *priv, const char *md5hex, char *out, size_t outlen,
                char *err, size_t errlen);

/* Check a signature text against a public key and an md5 hex string.
 * Returns 0 if the signature is the key's signature of exactly md5hex,
 * CS_ERR_BADSIG if it is well-formed but does not match, another negative
 * code if something is malformed. */
int cs_verify_md5_key(EVP_PKEY *pub, const char *sigtext, size_t siglen, const char *md5hex,
                      char *err, size_t errlen);

/* The same with the public key given as BOINC key text. */
int cs_verify_md5(const char *pubtext, size_t publen, const char *sigtext, size_t siglen,
                  const char *md5hex, char *err, size_t errlen);

#endif /* LOCSCHED_CRYPTO_SIGN_H */
