/*
 * abort_batch.c - stop a batch: in one transaction, its results not sent
 * yet become OVER / DIDNT_NEED, its unfinished workunits are cancelled
 * (error_mask |= WU_ERROR_CANCELLED, transition_time = now, so the
 * transitioner looks at them) and the batch becomes ABORTED.  Results in
 * progress are left to be reported.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_admin.h"
#include "db_batch.h"
#include "tool_common.h"

#define PROG "abort_batch"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: abort_batch [--config FILE] BATCH\n"
        "\n"
        "Aborts a batch (BATCH: its name, else its id), in one transaction:\n"
        "  - its results that were not sent yet become over (outcome DIDNT_NEED);\n"
        "  - its unfinished workunits are cancelled (error_mask gets BOINC's\n"
        "    WU_ERROR_CANCELLED bit, 16) and handed to the transitioner;\n"
        "  - the batch becomes ABORTED: no more jobs are generated or sent.\n"
        "Results in progress on hosts are left alone: they are reported (and\n"
        "credited) as usual, or time out.  Jobs already done keep their results.\n"
        "A complete or retired batch cannot be aborted; aborting an aborted batch\n"
        "again cancels whatever is left.  Prints what it changed.\n"
        "\n"
        "--config FILE  the configuration (default $LOCSCHED_CONFIG, else\n"
        "  ./locsched.conf).\n"
        "Exit status: 0, 1 on any error (message naming the batch), 2 for usage.\n");
}

enum why { WHY_NONE, WHY_NOTFOUND, WHY_STATE };

struct abort_tx {
    const char *arg;
    int now;
    struct db_batch_row batch;
    struct db_abort_counts n;
    enum why why;
};

static int abort_body(struct db_conn *c, void *p)
{
    struct abort_tx *t = p;
    int r;

    t->why = WHY_NONE;
    memset(&t->n, 0, sizeof t->n);
    r = db_batch_lookup(c, t->arg, tool_parse_id(t->arg), 1, &t->batch);
    if (r == DB_NOTFOUND) {
        t->why = WHY_NOTFOUND;
        return DB_ABORT;
    }
    if (r != DB_OK)
        return r;
    if (t->batch.state == BS_COMPLETE || t->batch.state == BS_RETIRED) {
        t->why = WHY_STATE;
        return DB_ABORT;
    }
    r = db_batch_abort_jobs(c, t->batch.id, t->now, &t->n);
    if (r == DB_OK)
        r = db_batch_set_state(c, t->batch.id, BS_ABORTED);
    return r;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *arg = NULL;
    struct config cfg;
    struct db_conn *db = NULL;
    struct abort_tx t;
    int i, r, was;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config = argv[++i];
        } else if (argv[i][0] == '-' || arg) {
            fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            arg = argv[i];
        }
    }
    if (!arg) {
        usage(stderr);
        return 2;
    }
    if (tool_open(PROG, config, &cfg, &db) < 0)
        return 1;
    memset(&t, 0, sizeof t);
    t.arg = arg;
    t.now = (int)time(NULL);
    r = db_transaction(db, "abort batch", abort_body, &t);
    if (r == DB_ABORT && t.why == WHY_NOTFOUND) {
        fprintf(stderr, PROG ": no batch named or numbered '%s'; nothing changed\n", arg);
    } else if (r == DB_ABORT && t.why == WHY_STATE) {
        fprintf(stderr, PROG ": batch '%s' [batch#%d] is %s: only a batch that is not complete "
                "or retired can be aborted; nothing changed\n", t.batch.name, t.batch.id,
                t.batch.state == BS_COMPLETE ? "complete" : "retired");
    } else if (r != DB_OK) {
        if (t.batch.id)
            fprintf(stderr, PROG ": batch '%s' [batch#%d]: %s; nothing changed\n",
                    t.batch.name, t.batch.id, db_error(db));
        else
            fprintf(stderr, PROG ": batch '%s': %s; nothing changed\n", arg, db_error(db));
    }
    if (r != DB_OK) {
        db_close(db);
        return 1;
    }
    was = t.batch.state;
    printf("batch %d '%s' aborted (was %s): %lld unsent results -> over (didn't need), "
           "%lld unfinished workunits cancelled, %lld results in progress left to be "
           "reported\n", t.batch.id, t.batch.name,
           was == BS_INIT ? "init" : was == BS_IN_PROGRESS ? "in progress" : "aborted",
           t.n.results_cancelled, t.n.workunits_cancelled, t.n.results_in_progress);
    db_close(db);
    return 0;
}
