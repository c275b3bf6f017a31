/*
 * gen_code_sign_key.c - make the project's code-signing key pair.
 *
 *   gen_code_sign_key --out-dir DIR [--bits 1024]
 *
 * Writes DIR/code_sign_public (BOINC key text, for PROJECT_DIR/keys/) and
 * DIR/code_sign_private.pem (mode 600).  Refuses to overwrite either.
 * Makes DIR (mode 700) and any missing folders above it, as on a fresh
 * offline machine.
 *
 * Security assumptions: the private key signs every app file that
 * clients will run, so it belongs on an offline machine; it is created
 * with O_EXCL and mode 600 from the start (never world-readable, even
 * briefly), and our in-memory copy is cleansed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "crypto_sign.h"

#define PUBLIC_NAME  "code_sign_public"
#define PRIVATE_NAME "code_sign_private.pem"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gen_code_sign_key --out-dir DIR [--bits N]\n"
            "\n"
            "Makes the RSA key pair that signs a BOINC project's app files:\n"
            "  DIR/" PUBLIC_NAME "       public key in BOINC text format; copy it to\n"
            "                             PROJECT_DIR/keys/ (clients get it with their first work)\n"
            "  DIR/" PRIVATE_NAME "  private key (PEM), mode 600\n"
            "N is the key size in bits: %d to %d, default %d.  BOINC clients accept at\n"
            "most %d bits.  DIR is made (mode 700) if it does not exist.  Existing files\n"
            "are never overwritten.\n"
            "\n"
            "Keep the private key on an offline machine, not on the project server: whoever\n"
            "holds it can make every attached computer run their programs.  Sign app files\n"
            "there with sign_file and copy only the signatures to the server.\n",
            CS_MIN_BITS, CS_MAX_BITS, CS_MAX_BITS, CS_MAX_BITS);
}

/* Make the folder dir and the missing folders above it: the last one with
 * mode 700 (it will hold the private key), the others 755.  An existing
 * dir is left as it is.  Returns 0, or -1 with a message printed. */
static int make_key_folder(const char *dir)
{
    char path[4096];
    struct stat st;
    size_t len = strlen(dir), i;

    if (len >= sizeof path) {
        fprintf(stderr, "gen_code_sign_key: folder name too long\n");
        return -1;
    }
    memcpy(path, dir, len + 1);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    for (i = 1; i <= len; i++) {
        int last = i == len;
        if (!last && path[i] != '/')
            continue;
        if (!last)
            path[i] = '\0';
        if (mkdir(path, last ? 0700 : 0755) < 0 && errno != EEXIST) {
            fprintf(stderr, "gen_code_sign_key: cannot create folder %s: %s\n", path,
                    strerror(errno));
            return -1;
        }
        if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "gen_code_sign_key: %s is not a folder\n", path);
            return -1;
        }
        if (!last)
            path[i] = '/';
    }
    return 0;
}

/* Create path exclusively with mode and write data.  Returns 0 or -1. */
static int write_new_file(const char *path, const char *data, size_t len, mode_t mode)
{
    size_t done = 0;
    ssize_t w;
    int fd;

    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
        fprintf(stderr, "gen_code_sign_key: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (done < len) {
        w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    if (done < len || fsync(fd) < 0 || close(fd) < 0) {
        fprintf(stderr, "gen_code_sign_key: cannot write %s: %s\n", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    char pub_path[4096], priv_path[4096], err[512];
    char pubtext[CS_PUBKEY_TEXT_MAX], pem[4096];
    const char *dir = NULL;
    EVP_PKEY *key = NULL;
    struct stat st;
    long bits = CS_MAX_BITS;
    char *end;
    int i, rc = 1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--out-dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--bits") == 0 && i + 1 < argc) {
            errno = 0;
            bits = strtol(argv[++i], &end, 10);
            if (errno || end == argv[i] || *end || bits < CS_MIN_BITS || bits > CS_MAX_BITS) {
                fprintf(stderr, "gen_code_sign_key: --bits must be %d to %d (clients accept at "
                        "most %d)\n", CS_MIN_BITS, CS_MAX_BITS, CS_MAX_BITS);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!dir || !*dir) {
        usage(stderr);
        return 2;
    }
    if (make_key_folder(dir) < 0)
        return 1;
    if ((size_t)snprintf(pub_path, sizeof pub_path, "%s/%s", dir, PUBLIC_NAME) >= sizeof pub_path ||
        (size_t)snprintf(priv_path, sizeof priv_path, "%s/%s", dir, PRIVATE_NAME) >=
            sizeof priv_path) {
        fprintf(stderr, "gen_code_sign_key: folder name too long\n");
        return 2;
    }
    if (lstat(pub_path, &st) == 0 || lstat(priv_path, &st) == 0) {
        fprintf(stderr, "gen_code_sign_key: %s or %s already exists; not overwriting\n", pub_path,
                priv_path);
        return 1;
    }
    if (cs_generate_key((int)bits, &key, err, sizeof err) < 0 ||
        cs_public_key_text(key, pubtext, sizeof pubtext, err, sizeof err) < 0 ||
        cs_private_key_pem(key, pem, sizeof pem, err, sizeof err) < 0) {
        fprintf(stderr, "gen_code_sign_key: %s\n", err);
        goto out;
    }
    if (write_new_file(priv_path, pem, strlen(pem), 0600) < 0)
        goto out;
    if (write_new_file(pub_path, pubtext, strlen(pubtext), 0644) < 0) {
        unlink(priv_path);
        goto out;
    }
    printf("wrote %s (%ld-bit public key, BOINC format)\n"
           "wrote %s (private key, mode 600): move it to an offline machine\n",
           pub_path, bits, priv_path);
    rc = 0;
out:
    OPENSSL_cleanse(pem, sizeof pem);
    EVP_PKEY_free(key);
    return rc;
}
