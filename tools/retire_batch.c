/*
 * retire_batch.c - retire a batch that is over: in one transaction a
 * COMPLETE or ABORTED batch becomes RETIRED, its teams are dissolved
 * (batch_host rows removed, its cursors' team figures set to 0).  Files
 * are not touched.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_admin.h"
#include "db_batch.h"
#include "tool_common.h"

#define PROG "retire_batch"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: retire_batch [--config FILE] BATCH\n"
        "\n"
        "Retires a complete or aborted batch (BATCH: its name, else its id), in one\n"
        "transaction: the batch becomes RETIRED, the hosts of its teams leave them\n"
        "(its batch_host rows are removed) and its cursors' team figures (nhosts,\n"
        "expavg_credit, max_host_credit) become 0.  Any other batch is refused.\n"
        "This tool deletes no files: input files in the download folder and output\n"
        "files in the upload folder stay where they are.  Prints what it changed.\n"
        "\n"
        "--config FILE  the configuration (default $LOCSCHED_CONFIG, else\n"
        "  ./locsched.conf).\n"
        "Exit status: 0, 1 on any error (message naming the batch), 2 for usage.\n");
}

static const char *state_text(int state)
{
    switch (state) {
    case BS_INIT: return "init";
    case BS_IN_PROGRESS: return "in progress";
    case BS_COMPLETE: return "complete";
    case BS_ABORTED: return "aborted";
    case BS_RETIRED: return "retired";
    }
    return "in an unknown state";
}

enum why { WHY_NONE, WHY_NOTFOUND, WHY_STATE };

struct retire_tx {
    const char *arg;
    struct db_batch_row batch;
    struct db_retire_counts n;
    enum why why;
};

static int retire_body(struct db_conn *c, void *p)
{
    struct retire_tx *t = p;
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
    if (t->batch.state != BS_COMPLETE && t->batch.state != BS_ABORTED) {
        t->why = WHY_STATE;
        return DB_ABORT;
    }
    r = db_batch_retire_teams(c, t->batch.id, &t->n);
    if (r == DB_OK)
        r = db_batch_set_state(c, t->batch.id, BS_RETIRED);
    return r;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *arg = NULL;
    struct config cfg;
    struct db_conn *db = NULL;
    struct retire_tx t;
    int i, r;

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
    r = db_transaction(db, "retire batch", retire_body, &t);
    if (r == DB_ABORT && t.why == WHY_NOTFOUND) {
        fprintf(stderr, PROG ": no batch named or numbered '%s'; nothing changed\n", arg);
    } else if (r == DB_ABORT && t.why == WHY_STATE) {
        fprintf(stderr, PROG ": batch '%s' [batch#%d] is %s: only a complete or aborted batch "
                "can be retired%s; nothing changed\n", t.batch.name, t.batch.id,
                state_text(t.batch.state),
                t.batch.state == BS_IN_PROGRESS ? " (abort it first with abort_batch)" : "");
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
    printf("batch %d '%s' retired (was %s): %lld team members removed, %lld cursors reset; "
           "no files deleted\n", t.batch.id, t.batch.name, state_text(t.batch.state),
           t.n.members_removed, t.n.cursors_emptied);
    db_close(db);
    return 0;
}
