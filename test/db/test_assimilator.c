/*
 * test_assimilator.c - the assimilator and the file deleter, run as
 * programs (--one-pass, or looping until a condition holds) on the test
 * sandbox's database with folders of their own: a batch's outputs copied
 * once into its results folder, a crash between the copy and the commit
 * re-run without a second copy, an errored workunit and a missing output
 * recorded as errors, the administrator's command (success, error, a
 * command that hangs: killed at its time limit, retried, given up with its
 * outputs kept), then the file deleter removing the outputs and, once the
 * batch is retired, its input files; db_purge archiving old rows to gzip
 * files that read back, and deleting them.
 *
 * Workunits are finished by SQL (slots 140..159, the tests' own).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_assim.h"
#include "db_test_util.h"
#include "tap.h"

static struct sched_ctx ctx;
static char cwd[2048], bindir[2048];

static void bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

/* The daemons' config: the sandbox's with folders of our own (results,
 * upload, download, log under ./assim-test/TAG) and extra lines. */
static void write_config(const char *path, const char *tag, const char *extra)
{
    const char *src = getenv("LOCSCHED_CONFIG");
    char line[4096];
    FILE *in, *out;

    if (!src || !src[0])
        bail("LOCSCHED_CONFIG", "not set: run through test/run_suite");
    in = fopen(src, "r");
    out = fopen(path, "w");
    if (!in || !out)
        bail("config copy", strerror(errno));
    while (fgets(line, sizeof line, in)) {
        const char *k = line + strspn(line, " \t");
        if (strncmp(k, "log_dir", 7) == 0 || strncmp(k, "log_level", 9) == 0 ||
            strncmp(k, "upload_dir", 10) == 0 || strncmp(k, "download_dir", 12) == 0 ||
            strncmp(k, "results_dir", 11) == 0 || strncmp(k, "assimilate_", 11) == 0)
            continue;
        fputs(line, out);
    }
    fprintf(out, "\nlog_dir = %s/assim-test/log\nlog_level = 0\n"
                 "upload_dir = %s/assim-test/upload\ndownload_dir = %s/assim-test/download\n"
                 "results_dir = %s/assim-test/results-%s\n%s\n",
            cwd, cwd, cwd, cwd, tag, extra ? extra : "");
    fclose(in);
    if (fclose(out) != 0)
        bail("config copy", strerror(errno));
    chmod(path, 0600);
}

/* Run a daemon with --config conf and --one-pass; with
 * until_sql non-NULL, let it loop (--sleep 1) until the query (one int
 * parameter) returns non-zero, then stop it with SIGTERM.  Returns its
 * exit status, -1 if killed or out of time. */
static int run_daemon(const char *prog, const char *conf, const char *until_sql, int param)
{
    char path[2200];
    const char *argv[8];
    int n = 0, st, i;
    pid_t pid;

    snprintf(path, sizeof path, "%s/%s", bindir, prog);
    if (access(path, X_OK) != 0)
        bail("daemon not built", path);
    argv[n++] = path;
    argv[n++] = "--config";
    argv[n++] = conf;
    if (until_sql) {
        argv[n++] = "--sleep";
        argv[n++] = "1";
    } else {
        argv[n++] = "--one-pass";
    }
    argv[n] = NULL;
    pid = tu_spawn(path, argv);
    for (i = 0; i < 1200; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (until_sql && i % 10 == 9 && tu_scalar(&ctx, 140, until_sql, param) != 0)
            kill(pid, SIGTERM);
        usleep(100000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

static void exec1(int slot, const char *sql, int param)
{
    struct db_val p[] = { DBV_INT(param) };
    if (db_exec(ctx.db, slot, sql, p, 1, NULL, "test update") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        bail(sql, db_error(ctx.db));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        bail(path, strerror(errno));
}

/* The whole text of a file ("" if absent; static buffer). */
static const char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = 0;
    buf[0] = '\0';
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Entries in a folder (not . and ..); with hidden != 0 only those
 * starting with '.'. */
static int count_entries(const char *dir, int hidden)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!hidden || e->d_name[0] == '.'))
            n++;
    closedir(d);
    return n;
}

/* Finish a batch's workunits by SQL: every result a success; job_num <
 * nok get their first result as canonical, the others error_mask 32. */
static void finish_batch(int batch, int nok)
{
    struct db_val p[] = { DBV_INT(batch), DBV_INT(nok) };
    exec1(141, "UPDATE result SET server_state = 5, outcome = 1, received_time = 1 "
               "WHERE batch = ?", batch);
    if (db_exec(ctx.db, 142, "UPDATE workunit w SET canonical_resultid = (SELECT MIN(r.id) "
                "FROM result r WHERE r.workunitid = w.id) WHERE w.batch = ? AND w.job_num < ?",
                p, 2, NULL, "finish") != DB_OK ||
        db_exec(ctx.db, 143, "UPDATE workunit SET error_mask = 32 WHERE batch = ? "
                "AND job_num >= ?", p, 2, NULL, "error") != DB_OK ||
        db_commit(ctx.db) != DB_OK)
        bail("finish batch", db_error(ctx.db));
}

/* One integer from a query with one parameter; each distinct query text
 * gets its own statement slot (150..158). */
static long long count_wu(int batch, const char *sql)
{
    static const char *seen[9];
    int i;
    for (i = 0; i < 9 && seen[i] && strcmp(seen[i], sql) != 0; i++)
        ;
    if (i == 9)
        bail("count_wu", "more than 9 queries");
    seen[i] = sql;
    return tu_scalar(&ctx, 150 + i, sql, batch);
}

int main(void)
{
    char conf[2300], conf_cmd[2300], dir[2300], path[2600], name[64], cname[64], up[2300];
    char script[2300], calls[2300], extra[3000];
    int batch, cbatch, i;

    tu_ctx_open(&ctx);
    if (!getcwd(cwd, sizeof cwd - 400))
        bail("getcwd", strerror(errno));
    snprintf(bindir, sizeof bindir, "%s/daemons",
             getenv("top_builddir") && getenv("top_builddir")[0] ? getenv("top_builddir") : "..");
    snprintf(dir, sizeof dir, "%s/assim-test", cwd);
    if (system("rm -rf assim-test && mkdir -p assim-test/log assim-test/upload "
               "assim-test/download") != 0)
        bail("mkdir", "assim-test");
    snprintf(up, sizeof up, "%s/upload", dir);
    snprintf(conf, sizeof conf, "%s/assim-copy.conf", dir);
    write_config(conf, "copy", NULL);
    tu_app(&ctx, NULL);

    /* ---- copy mode: 4 jobs; 0 and 1 with outputs, 2 missing its output,
     * 3 errored */
    snprintf(name, sizeof name, "as%ld", (long)time(NULL) % 100000000);
    batch = tu_batch(&ctx, name, 4, 1, 1e9, 4, 3600);
    for (i = 0; i < 2; i++) {
        char text[64];
        snprintf(path, sizeof path, "%s/%s_%d_0_0", up, name, i);
        snprintf(text, sizeof text, "output of job %d\n", i);
        write_text(path, text);
    }
    finish_batch(batch, 3);
    TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM workunit WHERE batch = ? "
                                    "AND assimilate_state = 0"), 4,
               "finished by SQL: not marked ready (the sweep must find them)");
    TAP_EQ_INT(run_daemon("assimilator", conf, NULL, 0), 0, "assimilator --one-pass");
    snprintf(path, sizeof path, "%s/results-copy/%s/%s_0_0", dir, name, name);
    TAP_CHECK(strcmp(slurp(path), "output of job 0\n") == 0, "job 0's output copied");
    snprintf(path, sizeof path, "%s/results-copy/%s/%s_1_0", dir, name, name);
    TAP_CHECK(strcmp(slurp(path), "output of job 1\n") == 0, "job 1's output copied");
    snprintf(path, sizeof path, "%s/results-copy/%s/%s_2.error", dir, name, name);
    TAP_CHECK(strstr(slurp(path), "reason bad_output") != NULL,
              "job 2 (output missing): error record says bad_output");
    snprintf(path, sizeof path, "%s/results-copy/%s/%s_3.error", dir, name, name);
    TAP_CHECK(strstr(slurp(path), "reason error_mask=0x20") != NULL,
              "job 3 (errored): error record with its error mask");
    snprintf(path, sizeof path, "%s/results-copy/%s", dir, name);
    TAP_EQ_INT(count_entries(path, 0), 4, "4 files in the batch's results folder");
    TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM workunit WHERE batch = ? "
                                    "AND assimilate_state = 2 AND assimilate_time > 0 "
                                    "AND file_delete_state = 1"), 4,
               "all 4 assimilated, ready for file deletion");
    TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM result WHERE batch = ? "
                                    "AND file_delete_state = 1"), 4,
               "their results ready for file deletion");

    /* ---- a crash after the copy, before the commit: the workunit is READY
     * again with its copy in place; the re-run leaves one copy */
    exec1(145, "UPDATE workunit SET assimilate_state = 1 WHERE batch = ? AND job_num = 0", batch);
    TAP_EQ_INT(run_daemon("assimilator", conf, NULL, 0), 0, "assimilator re-run");
    snprintf(path, sizeof path, "%s/results-copy/%s", dir, name);
    TAP_EQ_INT(count_entries(path, 0), 4, "still 4 files: no second copy");
    TAP_EQ_INT(count_entries(path, 1), 0, "no temporary file left");
    snprintf(path, sizeof path, "%s/results-copy/%s/%s_0_0", dir, name, name);
    TAP_CHECK(strcmp(slurp(path), "output of job 0\n") == 0, "job 0's copy intact");
    TAP_EQ_INT(run_daemon("assimilator", conf, NULL, 0), 0, "a third pass");
    snprintf(path, sizeof path, "%s/results-copy/%s", dir, name);
    TAP_EQ_INT(count_entries(path, 0), 4, "nothing assimilated twice");

    /* ---- an output over its cap */
    exec1(146, "UPDATE workunit SET assimilate_state = 1, max_out_nbytes = 4 "
               "WHERE batch = ? AND job_num = 1", batch);
    TAP_EQ_INT(run_daemon("assimilator", conf, NULL, 0), 0, "assimilator: output over cap");
    snprintf(path, sizeof path, "%s/results-copy/%s/%s_1.error", dir, name, name);
    TAP_CHECK(strstr(slurp(path), "over its cap") != NULL,
              "an output over its cap: error record");

    /* ---- command mode: a script logs its arguments; job 1 hangs */
    snprintf(script, sizeof script, "%s/assim.sh", dir);
    snprintf(calls, sizeof calls, "%s/calls.txt", dir);
    {
        char text[4000];
        snprintf(text, sizeof text,
                 "#!/bin/sh\ncase \"$1\" in *_1) sleep 60;; esac\n"
                 "echo \"$1 $2 $3 $(basename \"$4\")\" >>%s\n", calls);
        write_text(script, text);
        chmod(script, 0755);
    }
    snprintf(extra, sizeof extra, "assimilate_command = sh %s\nassimilate_timeout = 1\n"
             "assimilate_tries = 2\n", script);
    snprintf(conf_cmd, sizeof conf_cmd, "%s/assim-cmd.conf", dir);
    write_config(conf_cmd, "cmd", extra);
    snprintf(cname, sizeof cname, "ac%ld", (long)time(NULL) % 100000000);
    cbatch = tu_batch(&ctx, cname, 3, 1, 1e9, 3, 3600);
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s_%d_0_0", up, cname, i);
        write_text(path, "x\n");
    }
    finish_batch(cbatch, 2);
    TAP_EQ_INT(run_daemon("assimilator", conf_cmd,
                          "SELECT COUNT(*) = 3 FROM workunit WHERE batch = ? "
                          "AND assimilate_state = 2", cbatch), 0,
               "assimilator (command) loops until all 3 are done, then stops on SIGTERM");
    {
        char want[512];
        const char *got = slurp(calls);
        snprintf(want, sizeof want, "%s_0 %s success %s_0_0_0\n", cname, cname, cname);
        TAP_CHECK(strstr(got, want) != NULL, "command told of job 0's success with its file");
        snprintf(want, sizeof want, "%s_2 %s error error_mask=0x20\n", cname, cname);
        TAP_CHECK(strstr(got, want) != NULL, "command told of job 2's error");
        snprintf(want, sizeof want, "%s_1 ", cname);
        TAP_CHECK(strstr(got, want) == NULL, "the hanging command never finished");
    }
    snprintf(path, sizeof path, "%s/results-cmd/%s/%s_1.error", dir, cname, cname);
    TAP_CHECK(strstr(slurp(path), "timed out") != NULL,
              "job 1 given up after its tries: error record says it timed out");
    TAP_EQ_INT((int)count_wu(cbatch, "SELECT file_delete_state FROM workunit WHERE batch = ? "
                                     "AND job_num = 1"), 0,
               "job 1's outputs are kept (file_delete_state INIT)");

    /* ---- file deleter: outputs of assimilated workunits */
    TAP_EQ_INT(run_daemon("file_deleter", conf_cmd, NULL, 0), 0, "file_deleter --one-pass");
    snprintf(path, sizeof path, "%s/%s_0_0_0", up, cname);
    TAP_CHECK(!exists(path), "job 0's output deleted");
    snprintf(path, sizeof path, "%s/%s_1_0_0", up, cname);
    TAP_CHECK(exists(path), "job 1's output (given up) kept");
    snprintf(path, sizeof path, "%s/%s_0_0_0", up, name);
    TAP_CHECK(!exists(path), "first batch: job 0's output deleted");
    TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM workunit WHERE batch = ? "
                                    "AND file_delete_state = 2"), 4,
               "first batch: all 4 workunits' files deleted (a missing one too)");
    TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM result WHERE batch = ? "
                                    "AND file_delete_state = 2"), 4,
               "first batch: all 4 results' files deleted");

    /* ---- input files: only once the batch is retired */
    for (i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/download/%s_f%d", dir, name, i);
        write_text(path, "input\n");
    }
    TAP_EQ_INT(run_daemon("file_deleter", conf_cmd, NULL, 0), 0, "file_deleter again");
    snprintf(path, sizeof path, "%s/download/%s_f0", dir, name);
    TAP_CHECK(exists(path), "inputs of a batch not retired are kept");
    exec1(147, "UPDATE batch SET state = 4 WHERE id = ?", batch);
    snprintf(path, sizeof path, "%s/download/%s_f3", dir, name);
    unlink(path);   /* a missing input is no error */
    TAP_EQ_INT(run_daemon("file_deleter", conf_cmd, NULL, 0), 0,
               "file_deleter after retire_batch");
    snprintf(path, sizeof path, "%s/download", dir);
    TAP_EQ_INT(count_entries(path, 0), 0, "the retired batch's input files are deleted");
    TAP_EQ_INT((int)count_wu(batch, "SELECT file_delete_state FROM batch WHERE id = ?"), 2,
               "batch.file_delete_state DONE");

    /* ---- db_purge: rows assimilated 10 days ago, with their files
     * deleted, are archived and deleted; job 1 of the command batch
     * (outputs kept) stays */
    exec1(148, "UPDATE workunit SET assimilate_time = assimilate_time - 864000 "
               "WHERE batch >= ?", batch);
    {
        char cmd[3000], arch[2400], line[8192];
        const char *argv_conf = conf_cmd;
        int wu_lines = 0, res_lines = 0, header = 0, nulls = 0, rc;
        FILE *p;
        snprintf(arch, sizeof arch, "%s/archive", dir);
        snprintf(cmd, sizeof cmd, "%s/tools/db_purge --config %s --min-age-days 1 >%s/purge.out",
                 getenv("top_builddir") && getenv("top_builddir")[0] ? getenv("top_builddir")
                                                                     : "..",
                 argv_conf, dir);
        {
            FILE *f = fopen(argv_conf, "a");
            if (!f)
                bail("config", strerror(errno));
            fprintf(f, "archive_dir = %s\n", arch);
            fclose(f);
        }
        rc = system(cmd);
        TAP_EQ_INT(rc, 0, "db_purge --min-age-days 1");
        TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM workunit WHERE batch = ?"), 0,
                   "first batch: its workunits are purged");
        TAP_EQ_INT((int)count_wu(batch, "SELECT COUNT(*) FROM result WHERE batch = ?"), 0,
                   "first batch: its results are purged");
        TAP_EQ_INT((int)count_wu(cbatch, "SELECT COUNT(*) FROM workunit WHERE batch = ?"), 1,
                   "command batch: only the workunit whose outputs were kept is left");
        snprintf(cmd, sizeof cmd, "gzip -dc %s/workunit_*.tsv.gz", arch);
        p = popen(cmd, "r");
        while (p && fgets(line, sizeof line, p)) {
            if (strncmp(line, "#id\t", 4) == 0)
                header++;
            else if (strstr(line, name) || strstr(line, cname))
                wu_lines++;
        }
        TAP_EQ_INT(p ? pclose(p) : -1, 0, "the workunit archive is valid gzip");
        TAP_CHECK(header >= 1, "the workunit archive starts with its column names");
        TAP_EQ_INT(wu_lines, 6, "6 workunit rows archived (4 + 2)");
        snprintf(cmd, sizeof cmd, "gzip -dc %s/result_*.tsv.gz", arch);
        p = popen(cmd, "r");
        while (p && fgets(line, sizeof line, p)) {
            if (line[0] != '#' && (strstr(line, name) || strstr(line, cname))) {
                res_lines++;
                if (strstr(line, "\t\\N\t"))
                    nulls++;
            }
        }
        TAP_EQ_INT(p ? pclose(p) : -1, 0, "the result archive is valid gzip");
        TAP_EQ_INT(res_lines, 6, "6 result rows archived");
        TAP_EQ_INT(nulls, 6, "SQL NULL (userid of results never sent) written as \\N");
        snprintf(cmd, sizeof cmd, "%s/tools/db_purge --config %s --min-age-days 1 >%s/purge2.out",
                 getenv("top_builddir") && getenv("top_builddir")[0] ? getenv("top_builddir")
                                                                     : "..",
                 argv_conf, dir);
        TAP_EQ_INT(system(cmd), 0, "db_purge again: nothing left to purge is no error");
        snprintf(path, sizeof path, "%s/purge2.out", dir);
        TAP_CHECK(strstr(slurp(path), "deleted 0 workunits") != NULL, "... and it deletes nothing");
    }

    tu_retire_batches_from(&ctx, batch);
    return tap_done();
}
