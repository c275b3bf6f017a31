/*
 * batch_change.c - the shared main of abort_batch and retire_batch (see
 * batch_change.h): arguments, the batch lookup, one transaction that
 * checks the state and applies the change, and messages that name the
 * batch and say that nothing changed when anything went wrong.
 */
#include "batch_change.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_admin.h"
#include "tool_common.h"

const char *batch_state_text(int state)
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

struct change_tx {
    const struct batch_change *bc;
    const char *arg;
    int now;
    struct db_batch_row batch;
    void *counts;
    enum why why;
};

static int change_body(struct db_conn *c, void *p)
{
    struct change_tx *t = p;
    int r;

    t->why = WHY_NONE;
    memset(t->counts, 0, t->bc->counts_size);
    r = db_batch_lookup(c, t->arg, tool_parse_id(t->arg), 1, &t->batch);
    if (r == DB_NOTFOUND) {
        t->why = WHY_NOTFOUND;
        return DB_ABORT;
    }
    if (r != DB_OK)
        return r;
    if (!t->bc->allowed(t->batch.state)) {
        t->why = WHY_STATE;
        return DB_ABORT;
    }
    r = t->bc->apply(c, &t->batch, t->now, t->counts);
    if (r == DB_OK)
        r = db_batch_set_state(c, t->batch.id, t->bc->new_state);
    return r;
}

/* Report a failed change on stderr; nothing was changed. */
static void report_failure(const struct batch_change *bc, const struct change_tx *t, int r,
                           struct db_conn *db)
{
    if (r == DB_ABORT && t->why == WHY_NOTFOUND)
        fprintf(stderr, "%s: no batch named or numbered '%s'; nothing changed\n", bc->prog,
                t->arg);
    else if (r == DB_ABORT && t->why == WHY_STATE)
        fprintf(stderr, "%s: batch '%s' [batch#%d] is %s: only %s%s; nothing changed\n",
                bc->prog, t->batch.name, t->batch.id, batch_state_text(t->batch.state),
                bc->refusal, bc->advice ? bc->advice(t->batch.state) : "");
    else if (t->batch.id)
        fprintf(stderr, "%s: batch '%s' [batch#%d]: %s; nothing changed\n", bc->prog,
                t->batch.name, t->batch.id, db_error(db));
    else
        fprintf(stderr, "%s: batch '%s': %s; nothing changed\n", bc->prog, t->arg,
                db_error(db));
}

int batch_change_main(int argc, char **argv, const struct batch_change *bc)
{
    const char *config = NULL, *arg = NULL;
    struct config cfg;
    struct db_conn *db = NULL;
    struct change_tx t;
    int i, r;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            bc->usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config = argv[++i];
        } else if (argv[i][0] == '-' || arg) {
            fprintf(stderr, "%s: unexpected argument '%s'\n", bc->prog, argv[i]);
            bc->usage(stderr);
            return 2;
        } else {
            arg = argv[i];
        }
    }
    if (!arg) {
        bc->usage(stderr);
        return 2;
    }
    if (tool_open(bc->prog, config, &cfg, &db) < 0)
        return 1;
    memset(&t, 0, sizeof t);
    t.bc = bc;
    t.arg = arg;
    t.now = (int)time(NULL);
    t.counts = calloc(1, bc->counts_size ? bc->counts_size : 1);
    if (!t.counts) {
        fprintf(stderr, "%s: out of memory\n", bc->prog);
        db_close(db);
        return 1;
    }
    r = db_transaction(db, bc->what, change_body, &t);
    if (r == DB_OK)
        bc->report(&t.batch, t.counts);
    else
        report_failure(bc, &t, r, db);
    free(t.counts);
    db_close(db);
    return r == DB_OK ? 0 : 1;
}
