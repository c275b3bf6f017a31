/*
 * batch_load.h - read what batch_render shows about a batch from the
 * database (its cursors, job counts and per-job states), for batch_status
 * and status_pages.
 */
#ifndef LOCSCHED_BATCH_LOAD_H
#define LOCSCHED_BATCH_LOAD_H

#include "batch_render.h"
#include "db_batch.h"

/* Start b from a batch row (id, name, state, kind, sizes); no cursors. */
void bl_init(struct br_batch *b, const struct db_batch_row *r);

/* Read b's cursors, job counts and, with with_states, its per-job states
 * (three statements).  Returns DB_OK or an error status, after printing
 * "prog: batch 'NAME' [batch#ID]: why" on standard error. */
int bl_load(struct db_conn *db, struct br_batch *b, int with_states, const char *prog);

/* Free what bl_init and bl_load allocated (not b itself). */
void bl_free(struct br_batch *b);

#endif /* LOCSCHED_BATCH_LOAD_H */
