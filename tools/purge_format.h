/*
 * purge_format.h - the text of db_purge's archives (pure, no I/O): one
 * row per line, columns separated by tabs, in the escaping of MariaDB's
 * SELECT ... INTO OUTFILE and LOAD DATA defaults (backslash, tab,
 * newline, carriage return and NUL written as \\ \t \n \r \0; SQL NULL
 * as \N), so that "LOAD DATA INFILE ... IGNORE 1 LINES" reads a file back.
 * The first line of a file names the columns: '#', then the names
 * separated by tabs.
 */
#ifndef LOCSCHED_PURGE_FORMAT_H
#define LOCSCHED_PURGE_FORMAT_H

#include <stddef.h>

/* A growing text buffer; pf_free releases it. */
struct pf_buf {
    char *p;
    size_t len, cap;
};

void pf_reset(struct pf_buf *b);
void pf_free(struct pf_buf *b);

/*
 * Append one row: ncols values (values[i] NULL for SQL NULL, else lens[i]
 * bytes) escaped, tab-separated, ending with a newline.  With header != 0
 * the names are written instead, after '#'.  Returns 0, or -1 when out
 * of memory.
 */
int pf_row(struct pf_buf *b, int ncols, const char *const *values, const unsigned long *lens);
int pf_header(struct pf_buf *b, int ncols, const char *const *names);

/*
 * The archive file name of a table for a day (Unix time "day", UTC) and a
 * sequence number (1: TABLE_YYYY-MM-DD.tsv.gz, n > 1:
 * TABLE_YYYY-MM-DD.n.tsv.gz).  Returns 0 or -1 if out is too small.
 */
int pf_file_name(char *out, size_t outlen, const char *table, long day, int seq);

#endif
