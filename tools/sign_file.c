/*
 * sign_file.c - make or check the BOINC <file_signature> of an app file.
 *
 *   sign_file --key code_sign_private.pem FILE
 *       prints the signature text (hex, 32 bytes per line, ".") of FILE's
 *       md5 on stdout: the text of the file_info's <file_signature>.
 *   sign_file --verify --public code_sign_public --signature SIGFILE FILE
 *       checks SIGFILE (signature text) against FILE and the BOINC-format
 *       public key; exit 0 if it matches, 1 if not.
 *
 * Security assumptions: signing runs where the private key is (an offline
 * machine); the key is read once and freed.  Key and signature files are
 * read with a size cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crypto_sign.h"

#define TEXT_FILE_MAX 4096

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sign_file --key PRIVATE.pem FILE\n"
            "       sign_file --verify --public code_sign_public --signature SIGFILE FILE\n"
            "\n"
            "The first form prints FILE's BOINC file signature (RSA of its md5 text) for the\n"
            "file_info's <file_signature>.  Run it on the offline machine that holds the\n"
            "private key (see gen_code_sign_key --help).  The second form checks a\n"
            "signature against the public key in BOINC text format; exit status 0 if it\n"
            "matches, 1 if not.\n");
}

/* Read a small text file into buf (NUL-terminated).  Returns its length or -1. */
static long read_text(const char *path, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        fprintf(stderr, "sign_file: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (n + 1 < cap) {
        r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            fprintf(stderr, "sign_file: cannot read %s: %s\n", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n + 1 >= cap) {
        char extra;
        if (read(fd, &extra, 1) > 0) {
            fprintf(stderr, "sign_file: %s is too large for a key or signature\n", path);
            close(fd);
            return -1;
        }
    }
    close(fd);
    buf[n] = '\0';
    return (long)n;
}

int main(int argc, char **argv)
{
    const char *key_path = NULL, *pub_path = NULL, *sig_path = NULL, *file = NULL;
    char md5[CS_MD5_HEX_LEN + 1], err[512], sig[CS_SIG_TEXT_MAX];
    char pubtext[TEXT_FILE_MAX], sigtext[TEXT_FILE_MAX];
    long long size = 0;
    long publen, siglen;
    EVP_PKEY *key = NULL;
    int verify = 0, i, rc;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
            key_path = argv[++i];
        } else if (strcmp(argv[i], "--public") == 0 && i + 1 < argc) {
            pub_path = argv[++i];
        } else if (strcmp(argv[i], "--signature") == 0 && i + 1 < argc) {
            sig_path = argv[++i];
        } else if (strcmp(argv[i], "--verify") == 0) {
            verify = 1;
        } else if (argv[i][0] == '-' || file) {
            usage(stderr);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file || (verify ? (!pub_path || !sig_path || key_path) : (!key_path || pub_path || sig_path))) {
        usage(stderr);
        return 2;
    }
    if (cs_md5_file(file, md5, &size, err, sizeof err) < 0) {
        fprintf(stderr, "sign_file: %s\n", err);
        return 1;
    }

    if (!verify) {
        if (cs_private_key_load(key_path, &key, err, sizeof err) < 0 ||
            cs_sign_md5(key, md5, sig, sizeof sig, err, sizeof err) < 0) {
            fprintf(stderr, "sign_file: %s\n", err);
            EVP_PKEY_free(key);
            return 1;
        }
        EVP_PKEY_free(key);
        fputs(sig, stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }

    publen = read_text(pub_path, pubtext, sizeof pubtext);
    siglen = read_text(sig_path, sigtext, sizeof sigtext);
    if (publen < 0 || siglen < 0)
        return 1;
    rc = cs_verify_md5(pubtext, (size_t)publen, sigtext, (size_t)siglen, md5, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "sign_file: %s: signature NOT valid: %s\n", file, err);
        return 1;
    }
    printf("%s: signature OK (md5 %s, %lld bytes)\n", file, md5, size);
    return 0;
}
