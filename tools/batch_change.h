/*
 * batch_change.h - the skeleton shared by the tools that change a batch's
 * state (abort_batch, retire_batch): parse "[--config FILE] BATCH", find
 * the batch by name or id, and in one transaction check that its state
 * allows the change, apply it and set the new state.  Each tool supplies
 * only what differs: its help, which states it accepts, the change, and
 * what it prints.
 */
#ifndef LOCSCHED_BATCH_CHANGE_H
#define LOCSCHED_BATCH_CHANGE_H

#include <stdio.h>

#include "db.h"
#include "db_batch.h"

struct batch_change {
    const char *prog;          /* program name, for messages */
    const char *what;          /* the transaction, for errors: "abort batch" */
    int new_state;             /* BS_* the batch gets */
    void (*usage)(FILE *out);
    /* Whether a batch in this state may be changed. */
    int (*allowed)(int state);
    /* Why a batch in this state may not: the end of "only ... ". */
    const char *refusal;
    /* Extra advice for a refused state (may return ""). */
    const char *(*advice)(int state);
    /* The change, inside the transaction; counts is the tool's own
     * struct, zeroed before each try. */
    int (*apply)(struct db_conn *c, const struct db_batch_row *b, int now, void *counts);
    size_t counts_size;
    /* Print what changed (b as it was before). */
    void (*report)(const struct db_batch_row *b, const void *counts);
};

/* "init", "in progress", "complete", "aborted", "retired". */
const char *batch_state_text(int state);

/* The whole program: returns the exit status (0, 1 on error, 2 usage). */
int batch_change_main(int argc, char **argv, const struct batch_change *bc);

#endif
