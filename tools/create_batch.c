/*
 * create_batch.c - create a batch: its files (staged into the download
 * folder with md5 and size computed, generated, or given by URL) and its
 * job description (each job uses a contiguous range of files).
 *
 * A plain batch gets all its workunits and results now, dispatched in job
 * order.  A locality batch (--locality) gets its cursors instead (see
 * doc/locality.md): the work generator makes the workunits as teams work
 * through their ranges, and its input files are sticky.
 *
 * All or nothing: one transaction, and staged files are removed if
 * anything fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch_desc.h"
#include "credit.h"
#include "crypto_sign.h"
#include "cursor_plan.h"
#include "db_admin.h"
#include "db_sched.h"
#include "tool_common.h"

struct bfile {
    char name[256];
    char url[1024];
    char md5[33];
    double nbytes;
    char staged[CONFIG_STR_MAX + 400];
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: create_batch [--config FILE] --name NAME --app APP\n"
            "       (--files LIST | --generate-files N:BYTES)\n"
            "       (--jobs LIST | --uniform NJOBS:FILES_PER_JOB:STRIDE)\n"
            "       [--fpops X] [--delay-bound SECONDS] [--replication N] [--min-quorum N]\n"
            "       [--max-out-bytes N] [--command-line TEXT]\n"
            "       [--locality [--cursors N]]\n"
            "\n"
            "--files LIST: one file a line, 'NAME PATH' (copied into the download folder,\n"
            "  md5 and size computed) or 'NAME URL NBYTES [MD5]' (served elsewhere).\n"
            "--generate-files N:BYTES: make N files of BYTES bytes (for tests and demos).\n"
            "--jobs LIST: one job a line, 'FIRST_FILE NFILES [FPOPS [COMMAND LINE]]', file\n"
            "  numbers counted from 0 in the order of the file list.\n"
            "--uniform NJOBS:K:S: job j uses files j*S .. j*S+K-1.\n"
            "--locality: a locality batch: sticky input files, jobs in file order (a job\n"
            "  never starts at an earlier file than the job before it), cut into cursors\n"
            "  worked by teams of hosts.  The number of cursors follows from the hosts\n"
            "  seen within host_idle_timeout and team_size_min/max (config: one team per\n"
            "  (min + max) / 2 hosts), unless --cursors\n"
            "  N is given; ranges have about equal work.  No workunits are made here:\n"
            "  the work_generator daemon makes them.\n"
            "Defaults: --fpops 3.6e12 (an hour at 1 GFLOPS), --delay-bound 604800,\n"
            "--replication 1, --min-quorum 1, --max-out-bytes 1000000.\n");
}

/* The whole text of a list file, malloc'd, its size in *len.  Returns
 * NULL after printing why. */
static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *text = NULL, *p;
    size_t cap = 0, n = 0, got;

    if (!f) {
        fprintf(stderr, "create_batch: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            p = realloc(text, cap);
            if (!p) {
                fprintf(stderr, "create_batch: %s: out of memory\n", path);
                goto fail;
            }
            text = p;
        }
        got = fread(text + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "create_batch: cannot read %s: %s\n", path, strerror(errno));
        goto fail;
    }
    fclose(f);
    *len = n;
    return text;
fail:
    fclose(f);
    free(text);
    return NULL;
}

/* The file list at path (batch_desc.h), with the local paths in staged. */
static int read_files(const char *path, struct bfile **out, int *n)
{
    struct batch_desc_reader r;
    struct batch_file f;
    struct bfile *b;
    char err[4400];
    size_t len;
    char *text = read_text(path, &len);
    int cap = 0, k;

    *n = 0;
    if (!text)
        return -1;
    batch_desc_reader_init(&r, text, len, path);
    while ((k = batch_desc_next_file(&r, &f, err, sizeof err)) > 0) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            b = realloc(*out, sizeof **out * (size_t)cap);
            if (!b) {
                snprintf(err, sizeof err, "%s:%d: out of memory", path, r.lineno);
                k = -1;
                break;
            }
            *out = b;
        }
        b = &(*out)[(*n)++];
        memset(b, 0, sizeof *b);
        snprintf(b->name, sizeof b->name, "%s", f.name);
        snprintf(b->url, sizeof b->url, "%s", f.url);
        snprintf(b->md5, sizeof b->md5, "%s", f.md5);
        b->nbytes = f.nbytes;
        snprintf(b->staged, sizeof b->staged, "%s", f.path);   /* source path for now */
    }
    free(text);
    if (k < 0) {
        fprintf(stderr, "create_batch: %s\n", err);
        return -1;
    }
    if (*n == 0) {
        fprintf(stderr, "create_batch: %s: no files listed\n", path);
        return -1;
    }
    return 0;
}

/* The job list at path (batch_desc.h); fpops for jobs that give none. */
static int read_jobs(const char *path, double fpops, struct batch_job **out, int *n)
{
    char err[4400];
    size_t len;
    char *text = read_text(path, &len);
    int r;

    if (!text)
        return -1;
    r = batch_desc_parse_jobs(text, len, path, fpops, out, n, err, sizeof err);
    free(text);
    if (r < 0) {
        fprintf(stderr, "create_batch: %s\n", err);
        return -1;
    }
    return 0;
}

static int write_generated(const char *path, double nbytes, int num)
{
    char block[4096];
    double left = nbytes;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    size_t i;
    if (fd < 0)
        return -1;
    for (i = 0; i < sizeof block; i++)
        block[i] = (char)('a' + (num + (int)i) % 26);
    while (left > 0) {
        size_t n = left < (double)sizeof block ? (size_t)left : sizeof block;
        if (write(fd, block, n) != (ssize_t)n) {
            close(fd);
            return -1;
        }
        left -= (double)n;
    }
    return close(fd);
}

/*
 * The cursors of a locality batch: how many (from the active hosts, or
 * --cursors), their job ranges of about equal work, the last file each
 * range uses, and its credit.  *made gets the count.
 */
static int make_cursors(struct db_conn *db, const struct config *cfg, int batch_id,
                        const struct batch_job *jobs, int njobs, int ncursors_opt, int now,
                        int *made)
{
    double *fpops = malloc(sizeof *fpops * (size_t)njobs);
    int *first = malloc(sizeof *first * (size_t)njobs);
    int *nf = malloc(sizeof *nf * (size_t)njobs);
    int *starts = NULL, n = ncursors_opt, i, k, r = DB_ERR;

    if (!fpops || !first || !nf)
        goto out;
    for (i = 0; i < njobs; i++) {
        fpops[i] = jobs[i].fpops;
        first[i] = jobs[i].first;
        nf[i] = jobs[i].nfiles;
    }
    if (n <= 0) {
        int active = 0;
        r = db_count_active_hosts(db, now - cfg->host_idle_timeout, &active);
        if (r != DB_OK)
            goto out;
        n = cursor_count(active, cfg->team_size_min, cfg->team_size_max, njobs);
    }
    if (n > njobs)
        n = njobs;
    starts = malloc(sizeof *starts * (size_t)(n + 1));
    if (!starts) {
        r = DB_ERR;
        goto out;
    }
    k = cursor_plan(fpops, first, nf, njobs, n, starts);
    r = DB_OK;
    for (i = 0; r == DB_OK && i < k; i++) {
        int a = starts[i], b = starts[i + 1] - 1, j, last_file;
        double credit = 0;
        for (j = a; j <= b; j++)
            credit += credit_of_fpops(fpops[j]);
        last_file = cursor_last_file(first, nf, a, b);
        r = db_cursor_create(db, batch_id, a, b, last_file < 0 ? 0 : last_file, credit, now,
                             NULL);
    }
    *made = k;
out:
    if (r == DB_ERR && !fpops)
        fprintf(stderr, "create_batch: out of memory\n");
    free(fpops);
    free(first);
    free(nf);
    free(starts);
    return r;
}

/* A number option, strictly: the whole value a decimal number in [lo, hi],
 * else a message naming the option, and -1. */
static int double_opt(const char *opt, const char *val, double lo, double hi, double *out)
{
    if (tool_parse_double(val, lo, hi, out) == 0)
        return 0;
    fprintf(stderr, "create_batch: %s: '%s' is not a number from %g to %g\n", opt, val, lo, hi);
    return -1;
}

static int int_opt(const char *opt, const char *val, long lo, long hi, int *out)
{
    long v;
    if (tool_parse_long(val, lo, hi, &v) == 0) {
        *out = (int)v;
        return 0;
    }
    fprintf(stderr, "create_batch: %s: '%s' is not a whole number from %ld to %ld\n", opt, val,
            lo, hi);
    return -1;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *name = NULL, *app = NULL, *files_path = NULL, *jobs_path = NULL;
    const char *gen = NULL, *uniform = NULL, *cmdline = "";
    double fpops = 3.6e12, max_out = 1e6;
    int delay = 604800, repl = 1, quorum = 1, i, k, r, nfiles = 0, njobs = 0, nstaged = 0;
    int locality = 0, ncursors_opt = 0, ncursors = 0;
    int appid, batch_id, now = (int)time(NULL);
    struct bfile *files = NULL;
    struct batch_job *jobs = NULL;
    struct config cfg;
    struct db_conn *db = NULL;
    struct db_batch_new bn;
    char err[256];

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--locality") == 0) {
            locality = 1;
            continue;
        }
        if (!val) {
            fprintf(stderr, "create_batch: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--config") == 0) config = val;
        else if (strcmp(a, "--name") == 0) name = val;
        else if (strcmp(a, "--app") == 0) app = val;
        else if (strcmp(a, "--files") == 0) files_path = val;
        else if (strcmp(a, "--generate-files") == 0) gen = val;
        else if (strcmp(a, "--jobs") == 0) jobs_path = val;
        else if (strcmp(a, "--uniform") == 0) uniform = val;
        else if (strcmp(a, "--fpops") == 0) {
            if (double_opt(a, val, 1, 1e30, &fpops) < 0)
                return 2;
        } else if (strcmp(a, "--delay-bound") == 0) {
            if (int_opt(a, val, 60, 10 * 365 * 86400, &delay) < 0)
                return 2;
        } else if (strcmp(a, "--replication") == 0) {
            if (int_opt(a, val, 1, 20, &repl) < 0)
                return 2;
        } else if (strcmp(a, "--min-quorum") == 0) {
            if (int_opt(a, val, 1, 20, &quorum) < 0)
                return 2;
        } else if (strcmp(a, "--max-out-bytes") == 0) {
            if (double_opt(a, val, 1, 1e15, &max_out) < 0)
                return 2;
        } else if (strcmp(a, "--command-line") == 0) cmdline = val;
        else if (strcmp(a, "--cursors") == 0) {
            if (int_opt(a, val, 1, 1000000, &ncursors_opt) < 0)
                return 2;
        }
        else {
            fprintf(stderr, "create_batch: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!name || !app || (!files_path == !gen) || (!jobs_path == !uniform)) {
        usage(stderr);
        return 2;
    }
    if (!(fpops > 0) || !isfinite(fpops) || delay < 60 || repl < 1 || repl > 20 || quorum < 1 ||
        quorum > repl || !(max_out > 0)) {
        fprintf(stderr, "create_batch: need --fpops > 0, --delay-bound >= 60, "
                        "1 <= --min-quorum <= --replication <= 20, --max-out-bytes > 0\n");
        return 2;
    }
    if (ncursors_opt < 0 || (ncursors_opt > 0 && !locality)) {
        fprintf(stderr, "create_batch: --cursors wants a positive number, with --locality\n");
        return 2;
    }
    if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
        strlen(name) || strlen(name) > 64) {
        fprintf(stderr, "create_batch: a batch name uses letters, digits, '_', '-' (64 at most)\n");
        return 2;
    }
    if (tool_open("create_batch", config, &cfg, &db) < 0)
        return 1;

    /* files */
    if (files_path) {
        if (read_files(files_path, &files, &nfiles) < 0)
            goto fail;
    } else {
        double bytes;
        int used = 0;
        if (sscanf(gen, "%d:%lf%n", &nfiles, &bytes, &used) != 2 || gen[used] != '\0' ||
            nfiles < 1 || nfiles > 10000000 || !(bytes >= 0) || !isfinite(bytes)) {
            fprintf(stderr, "create_batch: --generate-files wants N:BYTES\n");
            goto fail;
        }
        files = calloc((size_t)nfiles, sizeof *files);
        if (!files)
            goto fail;
        for (i = 0; i < nfiles; i++) {
            snprintf(files[i].name, sizeof files[i].name, "%s_f%06d", name, i);
            files[i].nbytes = bytes;
        }
    }
    for (i = 0; i < nfiles; i++) {
        struct bfile *b = &files[i];
        char dst[CONFIG_STR_MAX + 300];
        long long size;
        if (b->url[0])
            continue;
        snprintf(dst, sizeof dst, "%s/%s", cfg.download_dir, b->name);
        if (files_path) {
            if (tool_copy_file("create_batch", b->staged, dst) < 0)
                goto fail;
        } else if (write_generated(dst, b->nbytes, i) < 0) {
            fprintf(stderr, "create_batch: cannot write %s: %s\n", dst, strerror(errno));
            goto fail;
        }
        snprintf(b->staged, sizeof b->staged, "%s", dst);
        nstaged = i + 1;
        if (cs_md5_file(dst, b->md5, &size, err, sizeof err) < 0) {
            fprintf(stderr, "create_batch: %s\n", err);
            goto fail;
        }
        b->nbytes = (double)size;
    }

    /* jobs */
    if (jobs_path) {
        if (read_jobs(jobs_path, fpops, &jobs, &njobs) < 0)
            goto fail;
    } else {
        int per, stride, used = 0;
        if (sscanf(uniform, "%d:%d:%d%n", &njobs, &per, &stride, &used) != 3 ||
            uniform[used] != '\0' || njobs < 1 || per < 0 || stride < 0 || njobs > 10000000) {
            fprintf(stderr, "create_batch: --uniform wants NJOBS:FILES_PER_JOB:STRIDE\n");
            goto fail;
        }
        jobs = calloc((size_t)njobs, sizeof *jobs);
        if (!jobs)
            goto fail;
        if ((long long)(njobs - 1) * stride > INT_MAX) {
            fprintf(stderr, "create_batch: --uniform %s: the last job would start past file "
                            "number %d\n", uniform, INT_MAX);
            goto fail;
        }
        for (i = 0; i < njobs; i++) {
            jobs[i].first = i * stride;
            jobs[i].nfiles = per;
            jobs[i].fpops = fpops;
        }
    }
    if (njobs == 0) {
        fprintf(stderr, "create_batch: no jobs\n");
        goto fail;
    }
    for (i = 0; i < njobs; i++) {
        if (jobs[i].first < 0 || jobs[i].nfiles < 0 ||
            (long long)jobs[i].first + jobs[i].nfiles > nfiles) {
            fprintf(stderr, "create_batch: job %d uses files %d..%lld, but there are %d files\n",
                    i, jobs[i].first, (long long)jobs[i].first + jobs[i].nfiles - 1, nfiles);
            goto fail;
        }
        if (!jobs[i].cmdline[0])
            snprintf(jobs[i].cmdline, sizeof jobs[i].cmdline, "%s", cmdline);
        if (locality && i > 0 && jobs[i].first < jobs[i - 1].first) {
            fprintf(stderr, "create_batch: job %d starts at file %d, before job %d (file %d): "
                            "a locality batch needs its jobs in file order\n",
                    i, jobs[i].first, i - 1, jobs[i - 1].first);
            goto fail;
        }
    }

    /* database, one transaction */
    r = db_app_lookup(db, app, &appid);
    if (r == DB_NOTFOUND) {
        fprintf(stderr, "create_batch: no app named '%s' (add one with add_app_version)\n", app);
        goto fail;
    }
    memset(&bn, 0, sizeof bn);
    bn.name = name;
    bn.appid = appid;
    bn.locality = locality;
    bn.njobs = njobs;
    bn.nfiles = nfiles;
    bn.delay_bound = delay;
    bn.target_nresults = repl;
    bn.min_quorum = quorum;
    bn.max_error_results = 3;
    bn.max_total_results = repl + 5;
    bn.rsc_memory_bound = 1e8;
    bn.rsc_disk_bound = 1e9;
    bn.max_out_nbytes = max_out;
    for (i = 0; i < njobs; i++)
        bn.total_fpops += jobs[i].fpops * repl;
    if (r == DB_OK)
        r = db_batch_create(db, &bn, now, &batch_id);
    for (i = 0; r == DB_OK && i < nfiles; i++)
        r = db_file_add(db, batch_id, i, files[i].name, files[i].nbytes, files[i].md5,
                        files[i].url, locality, NULL);
    for (i = 0; r == DB_OK && i < njobs; i++) {
        struct db_workunit_new w;
        char wname[300];
        int wuid;
        r = db_batch_job_add(db, batch_id, i, jobs[i].first, jobs[i].nfiles, jobs[i].fpops,
                             jobs[i].cmdline);
        if (r != DB_OK || locality)
            continue;
        memset(&w, 0, sizeof w);
        snprintf(wname, sizeof wname, "%s_%07d", name, i);
        w.appid = appid;
        w.batch = batch_id;
        w.job_num = i;
        w.first_file_num = jobs[i].first;
        w.nfiles = jobs[i].nfiles;
        w.delay_bound = delay;
        w.min_quorum = quorum;
        w.target_nresults = repl;
        w.max_error_results = 3;
        w.max_total_results = repl + 5;
        w.name = wname;
        w.command_line = jobs[i].cmdline;
        w.rsc_fpops_est = jobs[i].fpops;
        w.rsc_fpops_bound = jobs[i].fpops * 20;
        w.rsc_memory_bound = 1e8;
        w.rsc_disk_bound = 1e9;
        w.max_out_nbytes = max_out;
        r = db_workunit_create(db, &w, now, &wuid);
        for (k = 0; r == DB_OK && k < repl; k++) {
            char rname[320];
            snprintf(rname, sizeof rname, "%s_%d", wname, k);
            r = db_result_create(db, wuid, rname, appid, batch_id, 0, i, RS_UNSENT, now, NULL);
        }
    }
    if (r == DB_OK && locality)
        r = make_cursors(db, &cfg, batch_id, jobs, njobs, ncursors_opt, now, &ncursors);
    if (r == DB_OK)
        r = db_batch_set_state(db, batch_id, BS_IN_PROGRESS);
    if (r == DB_OK)
        r = db_commit(db);
    if (r != DB_OK) {
        fprintf(stderr, "create_batch: %s\n",
                r == DB_DUP ? "a batch, file or job with one of these names exists already"
                            : db_error(db));
        db_rollback(db);
        goto fail;
    }
    if (locality)
        printf("batch %d '%s': %d files, %d jobs, %d cursors (locality)\n", batch_id, name,
               nfiles, njobs, ncursors);
    else
        printf("batch %d '%s': %d files, %d jobs, %d results\n", batch_id, name, nfiles, njobs,
               njobs * repl);
    free(files);
    free(jobs);
    db_close(db);
    return 0;

fail:
    for (i = 0; i < nstaged; i++)
        if (files[i].staged[0] && !files[i].url[0])
            unlink(files[i].staged);
    free(files);
    free(jobs);
    db_close(db);
    return 1;
}
