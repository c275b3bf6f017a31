/*
 * assimilate_logic.h - the assimilator's and file deleter's pure
 * decisions: what to do with a finished workunit, the names of the files
 * involved, the administrator's command line, the text of an error
 * record, and how many times a workunit's command failed.  No I/O.
 */
#ifndef LOCSCHED_ASSIMILATE_LOGIC_H
#define LOCSCHED_ASSIMILATE_LOGIC_H

#include <stddef.h>

#define AS_NAME_MAX 255        /* longest file name part we build from */
#define AS_ARGV_MAX 32         /* words of assimilate_command */

/* A plain file name: 1..255 of [A-Za-z0-9_.-], not starting with '.'. */
int as_safe_name(const char *s);

/*
 * The name of a result's output file number idx in the upload folder
 * (RESULT_NAME_IDX, as the scheduler signs it), and the name its copy
 * gets in the batch's results folder (WU_NAME_IDX).  Return 0, or -1 if
 * out is too small.
 */
int as_upload_name(char *out, size_t outlen, const char *result_name, int idx);
int as_results_name(char *out, size_t outlen, const char *wu_name, int idx);

/* The name of a workunit's error record in its batch's results folder. */
int as_error_name(char *out, size_t outlen, const char *wu_name);

enum as_kind {
    AS_SUCCESS,                /* a canonical result: hand over its outputs */
    AS_ERROR                   /* errored (or no canonical result): tell, or record */
};

/*
 * What a finished workunit is: AS_SUCCESS when it has a canonical result
 * whose name is known, else AS_ERROR with a one-word reason in why
 * ("error_mask=0x20", "canonical_result_missing").
 */
enum as_kind as_decide(int canonical_resultid, int error_mask, const char *result_name,
                       char *why, size_t whylen);

/*
 * Split a copy of cmd (in buf, of size buflen) into words at blanks
 * (no quoting, no shell).  argv gets at most max - 1 words and a NULL.
 * Returns the word count, or -1 if cmd is empty, too long or has more
 * words.
 */
int as_split_command(const char *cmd, char *buf, size_t buflen, char **argv, int max);

/*
 * The text of an error record (key value lines): the workunit, its
 * batch, the reason and the time.  Returns 0 or -1 if out is too small.
 */
int as_error_record(char *out, size_t outlen, const char *wu_name, int wu_id,
                    const char *batch_name, int error_mask, const char *reason, long when);

/* Failed command runs per workunit (kept in memory across passes). */
struct as_tries {
    int *ids, *counts;
    int n, cap;
};

/* Count one more failure of wuid; returns the count so far, or -1 when
 * out of memory.  as_tries_forget drops a workunit; as_tries_free all. */
int as_tries_note(struct as_tries *t, int wuid);
void as_tries_forget(struct as_tries *t, int wuid);
void as_tries_free(struct as_tries *t);

#endif
