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
    /* admin tools */
    SLOT_ADMIN_FIRST = 40,
    /* daemons */
    SLOT_DAEMON_FIRST = 100,
    SLOT_LAST = 159
};

#endif
