/*
 * db_purge.c - archive and delete the rows of workunits (and their
 * results) assimilated, with their files deleted, at least
 * purge_min_age_days ago, so that the tables stay small.
 *
 * One run: up to --max such workunits (id order) are read whole (every
 * column, SELECT *) with their results and written, in the text format of
 * purge_format.h, to two gzip files in archive_dir, one per table:
 * workunit_YYYY-MM-DD.tsv.gz and result_YYYY-MM-DD.tsv.gz (the UTC day of
 * the run; a later run the same day writes .2, .3, ...).  The files are
 * written under temporary names, flushed to disk and renamed; only then
 * are the rows deleted, a transaction per PU_DELETE_CHUNK workunits, each
 * workunit only if it still has exactly the results archived (else it is
 * left for a later run).  So a row is never deleted unless it is in an
 * archive on disk; after a crash between the two, the next run archives
 * the rows again (they then appear in two files, identical).
 * Runs repeat until fewer than --max workunits were found.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "db_assim.h"
#include "purge_format.h"
#include "tool_common.h"

#define PROG "db_purge"
#define PU_LIST_CHUNK 1000
#define PU_DELETE_CHUNK 100
#define PU_FLUSH_BYTES (1 << 20)

static void usage(FILE *out)
{
    fprintf(out,
        "usage: db_purge [--config FILE] [--min-age-days D] [--max N]\n"
        "\n"
        "Archives, then deletes, the rows of workunits assimilated (assimilate_state 2)\n"
        "with their files deleted (file_delete_state 2) at least D days ago, and of\n"
        "their results.  Archives go to archive_dir: workunit_YYYY-MM-DD.tsv.gz and\n"
        "result_YYYY-MM-DD.tsv.gz (a second run the same day: .2, and so on), gzip\n"
        "text, one row per line, tab-separated, MariaDB's LOAD DATA escaping (\\N for\n"
        "NULL), the first line '#' and the column names.  A row is deleted only once\n"
        "its archive is on disk.  Prints what it archived and deleted.\n"
        "\n"
        "--config FILE      the configuration (default $LOCSCHED_CONFIG, else\n"
        "                   ./locsched.conf)\n"
        "--min-age-days D   instead of purge_min_age_days (0 to 36500; 0: all)\n"
        "--max N            workunits per archive file (default 100000)\n"
        "Exit status: 0, 1 on any error (nothing unarchived is deleted), 2 for usage.\n");
}

/* One archive file being written. */
struct arch {
    const char *table;
    char tmp[CONFIG_STR_MAX + 300];
    int fd;
    gzFile gz;
    struct pf_buf buf;
    int header_done;
    long long rows;
};

static int arch_open(struct arch *a, const char *dir, const char *table, long day)
{
    char name[256];
    a->table = table;
    a->header_done = 0;
    a->rows = 0;
    a->gz = NULL;
    if (pf_file_name(name, sizeof name, table, day, 1) < 0 ||
        snprintf(a->tmp, sizeof a->tmp, "%s/.%s.tmp", dir, name) >= (int)sizeof a->tmp) {
        fprintf(stderr, PROG ": archive path too long in %s\n", dir);
        return -1;
    }
    unlink(a->tmp);          /* left by a run that was killed */
    a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (a->fd < 0 || !(a->gz = gzdopen(dup(a->fd), "wb6"))) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", a->tmp, strerror(errno));
        if (a->fd >= 0)
            close(a->fd);
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

static int arch_flush(struct arch *a)
{
    if (a->buf.len && gzwrite(a->gz, a->buf.p, (unsigned)a->buf.len) != (int)a->buf.len) {
        int e;
        fprintf(stderr, PROG ": cannot write %s: %s\n", a->tmp, gzerror(a->gz, &e));
        return -1;
    }
    pf_reset(&a->buf);
    return 0;
}

/* Close, flush to disk.  Returns 0 or -1. */
static int arch_close(struct arch *a)
{
    int r = arch_flush(a);
    if (gzclose(a->gz) != Z_OK)
        r = -1;
    a->gz = NULL;
    if (fsync(a->fd) != 0)
        r = -1;
    close(a->fd);
    if (r < 0)
        fprintf(stderr, PROG ": cannot finish %s\n", a->tmp);
    return r;
}

static void arch_abandon(struct arch *a)
{
    if (a->gz) {
        gzclose(a->gz);
        close(a->fd);
        a->gz = NULL;
    }
    unlink(a->tmp);
}

static int arch_row(void *ctx, int ncols, const char *const *names, const char *const *values,
                    const unsigned long *lens)
{
    struct arch *a = ctx;
    if (!a->header_done && pf_header(&a->buf, ncols, names) < 0)
        return DB_ERR;
    a->header_done = 1;
    if (pf_row(&a->buf, ncols, values, lens) < 0)
        return DB_ERR;
    a->rows++;
    if (a->buf.len >= PU_FLUSH_BYTES && arch_flush(a) < 0)
        return DB_ERR;
    return 0;
}

struct run {
    struct config cfg;
    struct db_conn *db;
    int before, max;
    long day;
    int *ids;
    long long *nres;
    int n;
    struct arch wu, res;
    long long deleted_wus, deleted_results, skipped;
};

/* Archive up to max workunits.  Returns 0 (r->n set) or -1. */
static int archive(struct run *r)
{
    int after = 0, chunk[PU_LIST_CHUNK], n, i, st;

    r->n = 0;
    do {
        int want = r->max - r->n < PU_LIST_CHUNK ? r->max - r->n : PU_LIST_CHUNK;
        st = db_pu_wus(r->db, r->before, after, want, chunk, &n);
        for (i = 0; st == DB_OK && i < n; i++) {
            long long before_rows = r->res.rows;
            st = db_pu_rows(r->db, 0, chunk[i], arch_row, &r->wu);
            if (st == DB_OK)
                st = db_pu_rows(r->db, 1, chunk[i], arch_row, &r->res);
            r->ids[r->n] = chunk[i];
            r->nres[r->n] = r->res.rows - before_rows;
            r->n++;
        }
        db_commit(r->db);
        if (st != DB_OK) {
            fprintf(stderr, PROG ": %s\n", db_error(r->db));
            return -1;
        }
        if (n > 0)
            after = chunk[n - 1];
    } while (n == PU_LIST_CHUNK && r->n < r->max);
    return 0;
}

/* Rename the archives to their final names (the first free sequence
 * number of the day).  Returns 0 or -1. */
static int publish(struct run *r)
{
    char fw[CONFIG_STR_MAX + 300], fr[CONFIG_STR_MAX + 300], nw[256], nr[256];
    struct stat st;
    int seq, fd;

    for (seq = 1; seq < 100000; seq++) {
        if (pf_file_name(nw, sizeof nw, "workunit", r->day, seq) < 0 ||
            pf_file_name(nr, sizeof nr, "result", r->day, seq) < 0)
            return -1;
        snprintf(fw, sizeof fw, "%s/%s", r->cfg.archive_dir, nw);
        snprintf(fr, sizeof fr, "%s/%s", r->cfg.archive_dir, nr);
        if (stat(fw, &st) != 0 && stat(fr, &st) != 0)
            break;
    }
    if (rename(r->wu.tmp, fw) != 0 || rename(r->res.tmp, fr) != 0) {
        fprintf(stderr, PROG ": cannot rename the archives into %s: %s\n", r->cfg.archive_dir,
                strerror(errno));
        return -1;
    }
    fd = open(r->cfg.archive_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        fprintf(stderr, PROG ": cannot flush %s: %s\n", r->cfg.archive_dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    printf("archived %d workunits to %s, %lld results to %s\n", r->n, fw, r->res.rows, fr);
    return 0;
}

struct del_tx {
    struct run *r;
    int first, count;
};

static int delete_body(struct db_conn *c, void *arg)
{
    struct del_tx *t = arg;
    int i, st;
    for (i = t->first; i < t->first + t->count; i++)
        if ((st = db_pu_delete(c, t->r->ids[i], t->r->nres[i])) != DB_OK)
            return st;
    return DB_OK;
}

/* Delete what was archived.  Returns 0, or -1 on a database failure. */
static int delete_archived(struct run *r)
{
    int i, k, st;
    for (i = 0; i < r->n; i += PU_DELETE_CHUNK) {
        struct del_tx t = { r, i, r->n - i < PU_DELETE_CHUNK ? r->n - i : PU_DELETE_CHUNK };
        st = db_transaction(r->db, "delete archived rows", delete_body, &t);
        if (st == DB_ABORT) {
            /* one of them changed since it was archived: one at a time */
            for (k = i; k < i + t.count; k++) {
                struct del_tx one = { r, k, 1 };
                st = db_transaction(r->db, "delete archived rows", delete_body, &one);
                if (st == DB_ABORT) {
                    fprintf(stderr, PROG ": [wu#%d] kept: %s\n", r->ids[k], db_error(r->db));
                    r->skipped++;
                } else if (st != DB_OK) {
                    break;
                } else {
                    r->deleted_wus++;
                    r->deleted_results += r->nres[k];
                }
            }
        } else if (st == DB_OK) {
            r->deleted_wus += t.count;
            for (k = i; k < i + t.count; k++)
                r->deleted_results += r->nres[k];
        }
        if (st != DB_OK && st != DB_ABORT) {
            fprintf(stderr, PROG ": %s\n", db_error(r->db));
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *config_path = NULL;
    double days = -1;
    long max = 100000;
    struct run r;
    int i, rc = 1;

    memset(&r, 0, sizeof r);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else if (strcmp(argv[i], "--min-age-days") == 0 && i + 1 < argc) {
            if (tool_parse_double(argv[++i], 0, 36500, &days) < 0) {
                fprintf(stderr, PROG ": --min-age-days wants a number of days from 0 to 36500\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
            if (tool_parse_long(argv[++i], 1, 10000000, &max) < 0) {
                fprintf(stderr, PROG ": --max wants a whole number from 1 to 10000000\n");
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (tool_open(PROG, config_path, &r.cfg, &r.db) < 0)
        return 1;
    if (days < 0)
        days = r.cfg.purge_min_age_days;
    r.day = (long)time(NULL);
    r.before = (int)(r.day - (long)(days * 86400));
    r.max = (int)max;
    r.ids = malloc(sizeof *r.ids * (size_t)max);
    r.nres = malloc(sizeof *r.nres * (size_t)max);
    if (!r.ids || !r.nres) {
        fprintf(stderr, PROG ": out of memory\n");
        goto out;
    }
    if (mkdir(r.cfg.archive_dir, 0750) != 0 && errno != EEXIST) {
        fprintf(stderr, PROG ": cannot make %s: %s\n", r.cfg.archive_dir, strerror(errno));
        goto out;
    }
    for (;;) {
        if (arch_open(&r.wu, r.cfg.archive_dir, "workunit", r.day) < 0)
            goto out;
        if (arch_open(&r.res, r.cfg.archive_dir, "result", r.day) < 0) {
            arch_abandon(&r.wu);
            goto out;
        }
        if (archive(&r) < 0 || r.n == 0) {
            arch_abandon(&r.wu);
            arch_abandon(&r.res);
            if (r.n == 0)
                break;
            goto out;
        }
        if (arch_close(&r.wu) < 0 || arch_close(&r.res) < 0 || publish(&r) < 0) {
            arch_abandon(&r.wu);
            arch_abandon(&r.res);
            goto out;
        }
        if (delete_archived(&r) < 0)
            goto out;
        if (r.n < r.max)
            break;
    }
    printf("deleted %lld workunits and %lld results assimilated before %d (%.4g days ago)%s\n",
           r.deleted_wus, r.deleted_results, r.before, days,
           r.skipped ? "; some changed since archived and were kept" : "");
    rc = 0;
out:
    pf_free(&r.wu.buf);
    pf_free(&r.res.buf);
    free(r.ids);
    free(r.nres);
    db_close(r.db);
    return rc;
}
