/*
 * batch_desc.h - the batch description that create_batch reads: its file
 * list and its job list, parsed from text in memory (no I/O here, so the
 * parsers can be unit tested and fuzzed).
 *
 * File list, one file a line:
 *   NAME PATH                  a local file (create_batch copies it)
 *   NAME URL NBYTES [MD5]      a file served elsewhere (http:// or https://)
 * Job list, one job a line:
 *   FIRST_FILE NFILES [FPOPS [COMMAND LINE]]
 * In both, lines starting with '#' and blank lines are skipped, and words
 * are separated by blanks.  Text is read in lines of at most
 * BATCH_DESC_LINE_MAX - 1 bytes: a longer line counts as several (as
 * create_batch always read them).  Errors are one line,
 * "NAME:LINE: reason", NAME being what the caller calls the text.
 */
#ifndef LOCSCHED_BATCH_DESC_H
#define LOCSCHED_BATCH_DESC_H

#include <stddef.h>

#define BATCH_DESC_LINE_MAX 2048

/* One entry of a file list: either path (local) or url is non-empty. */
struct batch_file {
    char name[256];        /* [A-Za-z0-9_.-], not starting with '.' */
    char path[1024];       /* local file to copy; empty for a URL */
    char url[1024];        /* http:// or https://; empty for a local file */
    char md5[33];          /* URL entries: given md5 (32 lowercase hex) or empty */
    double nbytes;         /* URL entries: given size (finite, >= 0); else 0 */
};

/* One entry of a job list.  first and nfiles are not checked here against
 * the number of files (the caller knows it); fpops is finite and > 0. */
struct batch_job {
    int first;
    int nfiles;
    double fpops;
    char cmdline[256];     /* rest of the line, without leading blanks; may be empty */
};

/* A reader of a list's entries, one at a time (no memory but itself). */
struct batch_desc_reader {
    const char *text;
    size_t len, pos;
    const char *name;      /* for messages */
    int lineno;            /* line of the last entry read */
    char line[BATCH_DESC_LINE_MAX];
};

/* Start reading text[0..len) (need not be NUL-terminated; a NUL byte ends
 * its line), called name in messages.  text and name must outlive r. */
void batch_desc_reader_init(struct batch_desc_reader *r, const char *text, size_t len,
                            const char *name);

/*
 * The next entry of a file list into *f.  Returns 1, 0 at the end of the
 * text, or -1 with "NAME:LINE: reason" in err (errlen bytes).
 */
int batch_desc_next_file(struct batch_desc_reader *r, struct batch_file *f, char *err,
                         size_t errlen);

/*
 * The next entry of a job list into *j; a job without FPOPS gets
 * default_fpops.  Returns 1, 0 at the end, or -1 with "NAME:LINE: reason"
 * in err.
 */
int batch_desc_next_job(struct batch_desc_reader *r, double default_fpops, struct batch_job *j,
                        char *err, size_t errlen);

/*
 * A whole file list text[0..len): on success returns 0 with *out a
 * malloc'd array of *n (at least 1) entries, which the caller frees.  On
 * failure returns -1, *out NULL, *n 0, and the reason in err:
 * "NAME:LINE: ..." or "NAME: no files listed".
 */
int batch_desc_parse_files(const char *text, size_t len, const char *name,
                           struct batch_file **out, int *n, char *err, size_t errlen);

/*
 * A whole job list text[0..len): on success returns 0 with *out a
 * malloc'd array of *n entries (NULL and 0 for a list with no jobs),
 * which the caller frees.  On failure returns -1, *out NULL, *n 0, and
 * "NAME:LINE: reason" in err.
 */
int batch_desc_parse_jobs(const char *text, size_t len, const char *name, double default_fpops,
                          struct batch_job **out, int *n, char *err, size_t errlen);

#endif /* LOCSCHED_BATCH_DESC_H */
