/*
 * locsched_test_app.c - the BOINC application of the end-to-end test.
 *
 * Runs under the real BOINC client (boinc_init ... boinc_finish).  Reads
 * every input file the scheduler gave the job (open names in_0, in_1, ...
 * as sched/scheduler/reply.c writes them, resolved with boinc_resolve_filename) and
 * writes to the output "out" one line per input, "in_K NBYTES MD5", then a
 * line "files N".  The test recomputes these lines from the batch's files
 * to check that the uploaded output belongs to the right job.
 *
 * Options (the workunit's command line): --sleep SECONDS keeps the job
 * running that long (wall time) so that the client's states can be
 * watched; --progress reports the fraction done meanwhile; --fail CODE
 * ends with boinc_finish(CODE).
 *
 * Progress is off by default: from it the client computes the time left,
 * which it sends in <ip_result> and which goes negative when a job runs
 * longer than that estimate (see doc/real-client.md).
 *
 * Built against Debian's libboinc-app-dev and linked with its shared
 * libraries (the package's static archives hold only LTO stubs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <boinc/boinc_api.h>
#include <boinc/filesys.h>

#define MAX_INPUTS 64
#define PATH_LEN 1024

/* Size and md5 (32 lowercase hex digits) of an open file.  Returns 0, or
 * -1 on a read or digest error. */
static int digest_file(FILE *f, long long *nbytes, char md5_hex[33])
{
    unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0, i;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t n;
    int ok;

    *nbytes = 0;
    if (!ctx)
        return -1;
    ok = EVP_DigestInit_ex(ctx, EVP_md5(), NULL) == 1;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        ok = EVP_DigestUpdate(ctx, buf, n) == 1;
        *nbytes += (long long)n;
    }
    if (ok && ferror(f))
        ok = 0;
    if (ok)
        ok = EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 16;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    for (i = 0; i < mdlen; i++)
        snprintf(md5_hex + 2 * i, 3, "%02x", md[i]);
    return 0;
}

/* Wait SECONDS of wall time, telling the client the fraction done when
 * progress is set.  The BOINC API's timer signal cuts sleep() short, so
 * loop on the clock. */
static void spend(double seconds, int progress)
{
    struct timespec t0, now, step = { 0, 200 * 1000 * 1000 };
    double done;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        done = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (done >= seconds)
            break;
        if (progress)
            boinc_fraction_done(done / seconds);
        nanosleep(&step, NULL);
    }
    if (progress)
        boinc_fraction_done(1.0);
}

int main(int argc, char **argv)
{
    char logical[32], path[PATH_LEN], md5_hex[33];
    double sleep_s = 0;
    int fail = 0, progress = 0, i, k, r;
    FILE *out, *in;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sleep") == 0 && i + 1 < argc)
            sleep_s = atof(argv[++i]);
        else if (strcmp(argv[i], "--fail") == 0 && i + 1 < argc)
            fail = atoi(argv[++i]);
        else if (strcmp(argv[i], "--progress") == 0)
            progress = 1;
    }
    if (!(sleep_s >= 0) || sleep_s > 3600)
        sleep_s = 0;

    r = boinc_init();
    if (r) {
        fprintf(stderr, "locsched_test_app: boinc_init failed: %d\n", r);
        return 1;
    }
    if (boinc_resolve_filename("out", path, (int)sizeof path) != 0) {
        fprintf(stderr, "locsched_test_app: cannot resolve the output 'out'\n");
        boinc_finish(1);
    }
    out = boinc_fopen(path, "w");
    if (!out) {
        fprintf(stderr, "locsched_test_app: cannot write %s: %s\n", path, strerror(errno));
        boinc_finish(1);
    }

    /* inputs in_0, in_1, ... until one is missing: a missing link file
     * resolves to its own name, which does not exist in the slot */
    for (k = 0; k < MAX_INPUTS; k++) {
        long long nbytes;
        snprintf(logical, sizeof logical, "in_%d", k);
        if (boinc_resolve_filename(logical, path, (int)sizeof path) != 0 ||
            access(path, R_OK) != 0)
            break;
        in = boinc_fopen(path, "rb");
        if (!in) {
            fprintf(stderr, "locsched_test_app: cannot read %s (%s): %s\n", logical, path,
                    strerror(errno));
            fclose(out);
            boinc_finish(2);
        }
        r = digest_file(in, &nbytes, md5_hex);
        fclose(in);
        if (r < 0) {
            fprintf(stderr, "locsched_test_app: error reading %s (%s)\n", logical, path);
            fclose(out);
            boinc_finish(2);
        }
        fprintf(out, "%s %lld %s\n", logical, nbytes, md5_hex);
        fprintf(stderr, "locsched_test_app: %s: %lld bytes, md5 %s\n", logical, nbytes, md5_hex);
    }
    fprintf(out, "files %d\n", k);
    if (fclose(out) != 0) {
        fprintf(stderr, "locsched_test_app: error writing the output\n");
        boinc_finish(3);
    }
    spend(sleep_s, progress);
    fprintf(stderr, "locsched_test_app: read %d input file(s), exit status %d\n", k, fail);
    boinc_finish(fail);
    return 0;
}
