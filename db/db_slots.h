/*
 * db_slots.h - the statement slot of every prepared statement, so that
 * no two statements share a slot in a connection's cache.
 */
#ifndef LOCSCHED_DB_SLOTS_H
#define LOCSCHED_DB_SLOTS_H

enum db_slot {
    /* scheduler */
    SLOT_AUTH = 0,
    SLOT_HOST_INSERT,
    SLOT_HOST_UPDATE,
    SLOT_REPORTED_READ,
    SLOT_REPORT_UPDATE,
    SLOT_HAV_UPSERT,
    SLOT_CAND_PLAIN,
    SLOT_CAND_CURSOR,
    SLOT_CLAIM,
    SLOT_LOAD_AV,
    SLOT_LOAD_AVF,
    SLOT_LOAD_FILES,
    /* scheduler, locality (db_locality.c) */
    SLOT_ACTIVE_BATCHES,
    SLOT_LOC_CURSORS,
    SLOT_BH_ASSIGN,
    SLOT_CURSOR_ADJUST,
    SLOT_HF_ADD,
    SLOT_HF_DELETE,
    /* admin tools */
    SLOT_ADMIN_FIRST = 40,
    /* batch tools (db_batch.c): 60..79 */
    SLOT_BATCH_LOOKUP = 60,
    SLOT_BATCH_LOOKUP_LOCK,
    SLOT_BATCH_LIST,
    SLOT_BATCH_CURSORS,
    SLOT_BATCH_JOB_COUNTS,
    SLOT_BATCH_JOB_STATES,
    SLOT_BATCH_ABORT_RESULTS,
    SLOT_BATCH_ABORT_WUS,
    SLOT_BATCH_ABORT_INPROG,
    SLOT_BATCH_RETIRE_MEMBERS,
    SLOT_BATCH_RETIRE_CURSORS,
    /* daemons */
    SLOT_DAEMON_FIRST = 100,
    SLOT_LAST = 159
};

#endif
