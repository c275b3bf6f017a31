/*
 * fuzz_batch_desc.c - libFuzzer target of create_batch's batch
 * description (tools/batch_desc.h): each input is read both as a file
 * list and as a job list.
 *
 * Entries are read one at a time with the reader (as create_batch reads
 * its file list) and checked against the header's promises: names of
 * allowed characters, a path or a URL, sizes finite, md5 valid, fpops
 * positive, command lines without line ends; errors "fuzz.list:...".
 * The whole-list functions must then agree with the reader: same result,
 * same entries, same message.  They are called only for lists of up to
 * WHOLE_MAX entries: an entry of a file list takes 2.3 KB, and growing
 * arrays of megabytes on every input would slow the fuzzer tenfold.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch_desc.h"
#include "crypto_sign.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
#define WHOLE_MAX 64
#define LIST_NAME "fuzz.list"

static void check_file(const struct batch_file *f)
{
    FUZZ_CHECK(FUZZ_TERMINATED(f->name) && FUZZ_TERMINATED(f->path) &&
               FUZZ_TERMINATED(f->url) && FUZZ_TERMINATED(f->md5));
    FUZZ_CHECK(f->name[0] && f->name[0] != '.' && strspn(f->name, NAME_CHARS) == strlen(f->name));
    FUZZ_CHECK(!f->path[0] != !f->url[0]);
    FUZZ_CHECK(isfinite(f->nbytes) && f->nbytes >= 0);
    FUZZ_CHECK(!f->md5[0] || cs_md5_hex_valid(f->md5, strlen(f->md5)));
    FUZZ_CHECK(f->url[0] || (!f->md5[0] && f->nbytes == 0));
}

static int same_file(const struct batch_file *a, const struct batch_file *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->path, b->path) == 0 &&
           strcmp(a->url, b->url) == 0 && strcmp(a->md5, b->md5) == 0 && a->nbytes == b->nbytes;
}

static void check_job(const struct batch_job *j)
{
    FUZZ_CHECK(isfinite(j->fpops) && j->fpops > 0);
    FUZZ_CHECK(FUZZ_TERMINATED(j->cmdline) && !strpbrk(j->cmdline, "\r\n"));
}

static void check_error(const char *err, size_t errlen)
{
    FUZZ_CHECK(memchr(err, '\0', errlen) && strncmp(err, LIST_NAME ":", strlen(LIST_NAME) + 1) == 0);
}

static void files(const char *text, size_t len)
{
    static struct batch_file seen[WHOLE_MAX], sentinel;
    struct batch_desc_reader r;
    struct batch_file f, *arr = &sentinel;           /* the parser must reset it */
    char err[512], err2[512];
    int n = 0, k, rc, n2 = -1, i;

    memset(err, 'x', sizeof err);
    batch_desc_reader_init(&r, text, len, LIST_NAME);
    while ((k = batch_desc_next_file(&r, &f, err, sizeof err)) > 0) {
        check_file(&f);
        if (n < WHOLE_MAX)
            seen[n] = f;
        n++;
    }
    FUZZ_CHECK(k == 0 || k == -1);
    if (k < 0)
        check_error(err, sizeof err);
    if (n > WHOLE_MAX)
        return;

    memset(err2, 'x', sizeof err2);
    rc = batch_desc_parse_files(text, len, LIST_NAME, &arr, &n2, err2, sizeof err2);
    if (k < 0 || n == 0) {
        FUZZ_CHECK(rc == -1 && !arr && n2 == 0);
        check_error(err2, sizeof err2);
        FUZZ_CHECK(k == 0 || strcmp(err, err2) == 0);
        return;
    }
    FUZZ_CHECK(rc == 0 && arr && n2 == n);
    for (i = 0; i < n; i++)
        FUZZ_CHECK(same_file(&arr[i], &seen[i]));
    free(arr);
}

static void jobs(const char *text, size_t len)
{
    static struct batch_job seen[WHOLE_MAX], sentinel;
    struct batch_desc_reader r;
    struct batch_job j, *arr = &sentinel;            /* the parser must reset it */
    char err[512], err2[512];
    int n = 0, k, rc, n2 = -1, i;

    memset(err, 'x', sizeof err);
    batch_desc_reader_init(&r, text, len, LIST_NAME);
    while ((k = batch_desc_next_job(&r, 1e12, &j, err, sizeof err)) > 0) {
        check_job(&j);
        if (n < WHOLE_MAX)
            seen[n] = j;
        n++;
    }
    FUZZ_CHECK(k == 0 || k == -1);
    if (k < 0)
        check_error(err, sizeof err);
    if (n > WHOLE_MAX)
        return;

    memset(err2, 'x', sizeof err2);
    rc = batch_desc_parse_jobs(text, len, LIST_NAME, 1e12, &arr, &n2, err2, sizeof err2);
    if (k < 0) {
        FUZZ_CHECK(rc == -1 && !arr && n2 == 0);
        check_error(err2, sizeof err2);
        FUZZ_CHECK(strcmp(err, err2) == 0);
        return;
    }
    FUZZ_CHECK(rc == 0 && n2 == n && (n == 0) == !arr);
    for (i = 0; i < n; i++)
        FUZZ_CHECK(arr[i].first == seen[i].first && arr[i].nfiles == seen[i].nfiles &&
                   arr[i].fpops == seen[i].fpops && strcmp(arr[i].cmdline, seen[i].cmdline) == 0);
    free(arr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);

    if (!text)
        return 0;
    memcpy(text, data, size);           /* exact size: ASan sees any over-read */
    files(text, size);
    jobs(text, size);
    free(text);
    return 0;
}
