/*
 * upload_auth.h - the server's signature on an output file's upload
 * permission, carried in the output file_info's <xml_signature>.
 *
 * The scheduler gives each output file a name and a max_nbytes.  It signs
 * the pair with HMAC-SHA256 under a secret key only the project's servers
 * hold (PROJECT_DIR/keys/upload_hmac_key, 64 hex digits = 32 bytes):
 *
 *     sig = lowercase hex of HMAC-SHA256(key, "name=NAME\nmax_nbytes=M\n")
 *
 * with M the decimal integer written in the file_info's <max_nbytes>.
 * The client copies the text of <xml_signature> into its upload request
 * (after stripping surrounding whitespace and adding a newline before
 * it); the upload handler recomputes the HMAC for the request's name and
 * max_nbytes and accepts the upload only if they match.  So a client can
 * upload only files the scheduler asked for, no larger than it allowed.
 *
 * Security assumptions: the key file is readable only by the project's
 * account (and the web server's group); whoever reads it can forge upload
 * permissions.  Verification compares in constant time.  Names must pass
 * upload_name_valid(), so the signed text is unambiguous.
 */
#ifndef LOCSCHED_UPLOAD_AUTH_H
#define LOCSCHED_UPLOAD_AUTH_H

#include <stddef.h>

#define UA_KEY_FILE  "upload_hmac_key"   /* in the config's key_dir */
#define UA_KEY_LEN   32                  /* bytes */
#define UA_SIG_HEX   64                  /* hex digits of a signature */

enum ua_err {
    UA_OK = 0,
    UA_ERR_ARG = -1,     /* bad argument: invalid name, negative max_nbytes */
    UA_ERR_IO = -2,      /* key file missing or unreadable */
    UA_ERR_FORMAT = -3,  /* key file not 64 hex digits */
    UA_ERR_CRYPTO = -4,  /* OpenSSL failed */
    UA_ERR_BADSIG = -5   /* signature does not match */
};

/*
 * The key, and an HMAC context keyed with it once (ua_key_parse), so that
 * a signature costs two SHA-256 blocks instead of OpenSSL's fetch and key
 * schedule each time.  The context belongs to the struct it was made in:
 * a copy of the struct signs with its own bytes, the slow way, and its
 * ua_key_clear frees nothing.  Not for use from two threads at once.
 */
struct upload_key {
    unsigned char bytes[UA_KEY_LEN];
    int loaded;
    void *mac;                        /* EVP_MAC_CTX keyed with bytes, or NULL */
    const struct upload_key *mac_of;  /* the struct mac was made in */
};

/* Parse key text: 64 hex digits with optional surrounding whitespace.
 * key must be zeroed or cleared (ua_key_clear) or hold a parsed key. */
int ua_key_parse(struct upload_key *key, const char *text, size_t len, char *err, size_t errlen);

/*
 * Load the key from a file.  Returns 0 or a negative UA_ERR_* with a
 * message naming the file.  A file that others may read or write, or
 * that its group may write, loads but sets a warning in warn (otherwise
 * warn is set to ""); group read is allowed, since the web server's
 * group may need it.
 */
int ua_key_load(struct upload_key *key, const char *path, char *warn, size_t warnlen,
                char *err, size_t errlen);

/* Forget the key (cleanses the bytes, frees its HMAC context). */
void ua_key_clear(struct upload_key *key);

/*
 * The signature of (name, max_nbytes): 64 lowercase hex digits + NUL in
 * out.  Returns UA_ERR_ARG if name fails upload_name_valid() or
 * max_nbytes is negative or above UPREQ_NUMBER_MAX.
 */
int ua_sign(const struct upload_key *key, const char *name, long long max_nbytes,
            char out[UA_SIG_HEX + 1]);

/*
 * Check sig[0..siglen) (surrounding whitespace ignored, hex digits of
 * either case) against (name, max_nbytes).  Returns 0 if it matches,
 * UA_ERR_BADSIG if not (also for malformed text), UA_ERR_ARG for a bad
 * name or max_nbytes.  The comparison runs in constant time.
 */
int ua_verify(const struct upload_key *key, const char *name, long long max_nbytes,
              const char *sig, size_t siglen);

#endif /* LOCSCHED_UPLOAD_AUTH_H */
