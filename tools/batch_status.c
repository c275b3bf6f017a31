/*
 * batch_status.c - show how far batches have come: per batch and per
 * locality cursor, jobs done / in progress / unsent, the team working the
 * cursor and its estimated time left; as text with progress bars, as one
 * JSON document (--json), and as an SVG picture of the job space (--svg).
 *
 * Reads only, in one snapshot: per batch one statement for its cursors,
 * one for its job counts (aggregated by cursor in the database) and, for
 * the picture, one ordered statement for the per-job states.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_load.h"
#include "batch_render.h"
#include "db_batch.h"
#include "db_validate.h"
#include "tool_common.h"

#define PROG "batch_status"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: batch_status [--config FILE] [--json] [--svg FILE] [--all] [BATCH ...]\n"
        "\n"
        "Shows the progress of batches (BATCH: a batch name, else a batch id; none:\n"
        "every batch that is not retired, or every batch with --all).\n"
        "\n"
        "A job is done when its workunit is finished (a canonical result, or an\n"
        "error); in progress when one of its results is with a host (or all are\n"
        "reported and the transitioner has not decided yet); unsent otherwise,\n"
        "including the jobs of a locality batch that are not generated yet.\n"
        "Per cursor: its job range, first unfinished and first ungenerated job,\n"
        "job counts, team size (nhosts), the team's credit rate (expavg_credit,\n"
        "credit/day), the credit of its unfinished jobs (remaining_credit) and\n"
        "est_time_left = remaining_credit / expavg_credit in days (inf: an empty\n"
        "team with work left).  A batch's est_time_left is its slowest cursor's.\n"
        "\n"
        "Text output: a progress bar per batch and per cursor; plain ASCII without\n"
        "colour when standard output is not a terminal (or NO_COLOR is set).\n"
        "\n"
        "--json  print one JSON document instead:\n"
        "  {\"version\": 1, \"batches\": [{\n"
        "    \"id\", \"name\", \"state\" (init|in_progress|complete|aborted|retired),\n"
        "    \"state_code\" (0-4), \"locality\" (true|false), \"njobs\", \"nfiles\",\n"
        "    \"jobs\": {\"done\", \"in_progress\", \"unsent\"}, \"fraction_done\" (0-1),\n"
        "    \"est_time_left\" (days; null when infinite, or unknown: a plain batch),\n"
        "    \"cursors\": [{\"id\", \"first_job_num\", \"last_job_num\", \"njobs\",\n"
        "      \"first_unfinished_job_num\", \"first_ungenerated_job_num\",\n"
        "      \"jobs\": {\"done\", \"in_progress\", \"unsent\"}, \"fraction_done\",\n"
        "      \"nhosts\", \"expavg_credit\", \"max_host_credit\", \"remaining_credit\",\n"
        "      \"est_time_left\" (days; null: infinite, an empty team with work left)\n"
        "    }]}]}\n"
        "--svg FILE  also write a picture of each batch's job space to FILE: x is the\n"
        "  job number; one band per cursor (one for a batch without cursors) with\n"
        "  its done / in progress / unsent jobs, a marker where its team stands (the\n"
        "  first unfinished job), and a legend.\n"
        "With a validator (validator in the configuration is not none), the text\n"
        "output adds per batch its reported successes by validation state: valid,\n"
        "invalid (outputs that disagreed, or unusable), inconclusive (waiting for\n"
        "another replica) and waiting for the validator.\n"
        "--all   with no BATCH, include retired batches.\n"
        "--config FILE  the configuration (default $LOCSCHED_CONFIG, else\n"
        "  ./locsched.conf).\n"
        "\n"
        "Exit status: 0, or 1 when a batch does not exist or the database fails.\n");
}

struct status {
    struct br_batch *b;
    struct db_va_counts *va;             /* per batch, with a validator */
    int n, cap;
    struct db_conn *db;
};

static struct br_batch *add_batch(struct status *st, const struct db_batch_row *r)
{
    struct br_batch *x;
    if (st->n == st->cap) {
        int cap = st->cap ? st->cap * 2 : 16;
        struct br_batch *v = realloc(st->b, sizeof *v * (size_t)cap);
        if (!v)
            return NULL;
        st->b = v;
        st->cap = cap;
    }
    x = &st->b[st->n++];
    bl_init(x, r);
    return x;
}

static int list_row(void *ctx, const struct db_batch_row *r)
{
    return add_batch(ctx, r) ? 0 : DB_ERR;
}

static int write_file(const char *path, const struct buf *out)
{
    FILE *f = fopen(path, "w");
    int ok;
    if (!f) {
        perror(path);
        return -1;
    }
    ok = fwrite(out->p, 1, out->len, f) == out->len;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, PROG ": cannot write %s\n", path);
    return ok ? 0 : -1;
}

static int text_flags(void)
{
    const char *term = getenv("TERM"), *no_color = getenv("NO_COLOR");
    const char *lang = getenv("LC_ALL");
    int flags = 0;
    if (!isatty(STDOUT_FILENO))
        return 0;
    if (!(no_color && no_color[0]) && !(term && strcmp(term, "dumb") == 0))
        flags |= BR_COLOR;
    if (!lang || !lang[0])
        lang = getenv("LC_CTYPE");
    if (!lang || !lang[0])
        lang = getenv("LANG");
    if (lang && (strstr(lang, "UTF-8") || strstr(lang, "utf8") || strstr(lang, "UTF8") ||
                 strstr(lang, "utf-8")))
        flags |= BR_UTF8;
    return flags;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *svg_path = NULL;
    const char **names = NULL;
    int i, nnames = 0, json = 0, all = 0, rc = 1, r = DB_OK;
    struct config cfg;
    struct status st = { NULL, NULL, 0, 0, NULL };
    struct buf out;

    buf_init(&out);
    names = calloc((size_t)argc, sizeof *names);
    if (!names)
        return 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(names);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--all") == 0) {
            all = 1;
        } else if (strcmp(a, "--config") == 0 || strcmp(a, "--svg") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, PROG ": %s needs a value\n", a);
                free(names);
                return 2;
            }
            if (strcmp(a, "--config") == 0)
                config = argv[++i];
            else
                svg_path = argv[++i];
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", a);
            free(names);
            return 2;
        } else {
            names[nnames++] = a;
        }
    }
    if (tool_open(PROG, config, &cfg, &st.db) < 0) {
        free(names);
        return 1;
    }

    /* which batches */
    if (nnames == 0) {
        r = db_batch_list(st.db, all, list_row, &st);
        if (r != DB_OK) {
            fprintf(stderr, PROG ": %s\n", db_error(st.db));
            goto out;
        }
    }
    for (i = 0; i < nnames; i++) {
        struct db_batch_row row;
        r = db_batch_lookup(st.db, names[i], tool_parse_id(names[i]), 0, &row);
        if (r == DB_NOTFOUND) {
            fprintf(stderr, PROG ": no batch named or numbered '%s'\n", names[i]);
            goto out;
        }
        if (r != DB_OK) {
            fprintf(stderr, PROG ": batch '%s': %s\n", names[i], db_error(st.db));
            goto out;
        }
        if (!add_batch(&st, &row)) {
            fprintf(stderr, PROG ": out of memory\n");
            goto out;
        }
    }
    for (i = 0; i < st.n; i++) {
        if (bl_load(st.db, &st.b[i], svg_path != NULL, PROG) != DB_OK)
            goto out;
        br_batch_compute(&st.b[i]);
    }
    if (config_validating(&cfg) && !json && st.n > 0) {
        st.va = calloc((size_t)st.n, sizeof *st.va);
        if (!st.va) {
            fprintf(stderr, PROG ": out of memory\n");
            goto out;
        }
        for (i = 0; i < st.n; i++) {
            if (db_va_batch_counts(st.db, st.b[i].id, &st.va[i]) != DB_OK) {
                fprintf(stderr, PROG ": batch '%s': %s\n", st.b[i].name, db_error(st.db));
                goto out;
            }
        }
    }
    db_commit(st.db);   /* end the read snapshot */

    if (svg_path) {
        br_svg(&out, st.b, st.n);
        if (out.oom) {
            fprintf(stderr, PROG ": out of memory\n");
            goto out;
        }
        if (write_file(svg_path, &out) < 0)
            goto out;
        buf_reset(&out);
    }
    if (json) {
        br_json(&out, st.b, st.n);
    } else {
        int flags = text_flags();
        if (st.n == 0)
            buf_puts(&out, nnames || all ? "no batches\n" : "no batches (retired ones: --all)\n");
        else
            br_text_legend(&out, flags);
        for (i = 0; i < st.n; i++) {
            br_text(&out, &st.b[i], flags);
            if (st.va)
                buf_printf(&out, "  validation: %lld valid, %lld invalid, %lld inconclusive, "
                           "%lld waiting\n", st.va[i].valid, st.va[i].invalid,
                           st.va[i].inconclusive, st.va[i].waiting);
        }
    }
    if (out.oom) {
        fprintf(stderr, PROG ": out of memory\n");
        goto out;
    }
    if (out.len && fwrite(out.p, 1, out.len, stdout) != out.len) {
        fprintf(stderr, PROG ": cannot write the output\n");
        goto out;
    }
    if (fflush(stdout) != 0)
        goto out;
    rc = 0;

out:
    for (i = 0; i < st.n; i++)
        bl_free(&st.b[i]);
    free(st.b);
    free(st.va);
    free(names);
    buf_free(&out);
    db_close(st.db);
    return rc;
}
