/*
 * random_hex.h - random lower-case hex strings from the system's
 * cryptographic generator (OpenSSL's RAND_bytes): account keys.
 */
#ifndef LOCSCHED_RANDOM_HEX_H
#define LOCSCHED_RANDOM_HEX_H

#include <stddef.h>

/* Write 2 * nbytes hex digits and a NUL into out (2 * nbytes + 1 bytes)
 * from nbytes random bytes (at most 64).  Returns 0, or -1 when the
 * generator fails or nbytes is too large. */
int random_hex(char *out, size_t nbytes);

#endif
