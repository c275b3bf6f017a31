/*
 * random_hex.c - random lower-case hex strings (random_hex.h).
 */
#include "random_hex.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

int random_hex(char *out, size_t nbytes)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char raw[64];
    size_t i;
    if (nbytes > sizeof raw || RAND_bytes(raw, (int)nbytes) != 1)
        return -1;
    for (i = 0; i < nbytes; i++) {
        out[2 * i] = digits[raw[i] >> 4];
        out[2 * i + 1] = digits[raw[i] & 15];
    }
    out[2 * nbytes] = '\0';
    OPENSSL_cleanse(raw, sizeof raw);
    return 0;
}
