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
    SLOT_HOST_UPDATE_HAV,         /* the host update with its corrections */
    SLOT_HOST_UPDATE_STRETCH,     /* ... and a stretch (db_stretch_write) */
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
    SLOT_CURSOR_ADJUST_UNDO,      /* a move that lost its race gives the member back */
    SLOT_HF_ADD,
    SLOT_HF_DELETE,
    SLOT_LOC_ALL_CURSORS,
    SLOT_LOC_MY_CURSORS,
    /* scheduler, positions in a cursor (db_locality.c) */
    SLOT_STRETCH_READ,
    SLOT_STRETCH_FRONTIER,
    SLOT_STRETCH_SET,
    SLOT_STRETCH_SHRINK,
    SLOT_CAND_FILES,
    SLOT_CAND_TOP,
    /* scheduler, lost results (db_sched.c) */
    SLOT_HOST_IN_PROGRESS,
    SLOT_LOST_UPDATE,
    /* scheduler, tail replicas (db_tail.c) */
    SLOT_TAIL_CANDS,
    SLOT_TAIL_WU_LOCK,
    SLOT_TAIL_BUDGET,
    SLOT_TAIL_INSERT,
    SLOT_SCHED_END,           /* first slot the scheduler leaves free; < SLOT_ADMIN_FIRST */
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
    /* invariant checker (db_check.c): 80..99 */
    SLOT_CHECK_READ_ONLY = 80,
    SLOT_CHECK_SNAPSHOT,
    SLOT_CHECK_SENT_UNASSIGNED,
    SLOT_CHECK_UNSENT_ASSIGNED,
    SLOT_CHECK_SAME_HOST,
    SLOT_CHECK_DUP_NAME,
    SLOT_CHECK_SAME_USER,
    SLOT_CHECK_USER_MISMATCH,
    SLOT_CHECK_WU_STUCK,
    SLOT_CHECK_JOB_TWICE,
    SLOT_CHECK_MEMBER_ORPHAN,
    SLOT_CHECK_CURSORS,
    SLOT_CHECK_CURSOR_JOBS,
    SLOT_CHECK_TWO_BACKUPS,
    SLOT_CHECK_BACKUP_UNSENT,
    SLOT_CHECK_TOO_MANY_RESULTS,
    SLOT_CHECK_LOST_UNFLAGGED,
    SLOT_CHECK_LOST_UNREPLACED,
    SLOT_CHECK_SENT_HOST_MISSING,
    SLOT_CHECK_END,           /* must stay <= 100 */
    /* daemons */
    SLOT_DAEMON_FIRST = 100,
    /* daemons (db_daemon.c): 100..139 */
    SLOT_WG_CURSORS = SLOT_DAEMON_FIRST,
    SLOT_WG_CURSOR_LOCK,
    SLOT_WG_UNSENT,
    SLOT_WG_JOBS,
    SLOT_WG_WU_BY_NAME,
    SLOT_WG_WU_NEVER,
    SLOT_WG_CURSOR_GEN,
    SLOT_TR_DEADLINE_WUS,
    SLOT_TR_DUE_WUS,
    SLOT_TR_WU_LOCK,
    SLOT_TR_RESULTS_LOCK,
    SLOT_TR_TIMEOUT,
    SLOT_TR_GRANT,
    SLOT_TR_DIDNT_NEED,
    SLOT_TR_HOST_LOCK,
    SLOT_TR_HOST_SET,
    SLOT_TR_USER_LOCK,
    SLOT_TR_USER_SET,
    SLOT_TR_WU_DECIDED,
    SLOT_TR_CURSOR_LOCK,
    SLOT_TR_FIRST_UNFINISHED,
    SLOT_TR_UNFINISHED_FPOPS,
    SLOT_TR_CURSOR_PROGRESS,
    SLOT_TR_BATCH_LOCK,
    SLOT_TR_BATCH_UNFIN_LOC,
    SLOT_TR_BATCH_UNFIN_PLAIN,
    SLOT_TR_BATCH_COMPLETE,
    SLOT_TR_STALE_CURSORS,
    SLOT_TR_STALE_BATCHES,
    SLOT_LD_CURSORS,
    SLOT_LD_CURSOR_LOCK,
    SLOT_LD_MEMBERS,
    SLOT_LD_MEMBER_REMOVE,
    SLOT_LD_MEMBER_RATE,
    SLOT_LD_CURSOR_TEAM,
    SLOT_DAEMON_ID_STEP,
    /* transitioner, hosts presumed gone (db_lost.c) */
    SLOT_LOST_HOSTS_LIST,
    SLOT_LOST_HOST_LOCK,
    SLOT_LOST_HOST_MARK,
    SLOT_DAEMON_END,          /* must stay <= 140 */
    SLOT_TEST_FIRST = 140,    /* 140..159: the tests' own statements */
    /* transitioner, finish lines (db_finish.c): 160..164 */
    SLOT_FL_BATCHES = 160,
    SLOT_FL_RESULTS,
    SLOT_FL_FINISHED,
    SLOT_FL_SPEEDS,
    SLOT_FL_SET,
    SLOT_TEST_MORE = 165,     /* 165..175: more of the tests' own statements */
    /* Ranges kept for parts being built in parallel; each part adds its
     * own names inside its range and a _Static_assert that they fit. */
    SLOT_VALIDATE_FIRST = 176,   /* 176..185: validator (db_validate.c) */
    /* invariant checker, validation states (db_check.c): 186..191 */
    SLOT_CHECK_VA_FIRST = 186,
    SLOT_CHECK_CREDIT_NOT_VALID = SLOT_CHECK_VA_FIRST,
    SLOT_CHECK_VALIDATE_STATE,
    SLOT_CHECK_CANONICAL_NOT_VALID,
    SLOT_CHECK_VA_END,        /* must stay <= SLOT_ASSIM_FIRST */
    SLOT_ASSIM_FIRST = 192,      /* 192..207: assimilator, file deleter, purge */
    /* assimilator, file deleter, purge (db_assim.c) */
    SLOT_AS_LIST = SLOT_ASSIM_FIRST,
    SLOT_AS_PROMOTE,
    SLOT_AS_WU_READ,
    SLOT_AS_WU_DONE,
    SLOT_AS_RESULTS_READY,
    SLOT_FD_WUS,
    SLOT_FD_RESULTS,
    SLOT_FD_RESULT_SET,
    SLOT_FD_WU_DONE,
    SLOT_FD_BATCHES,
    SLOT_FD_FILES,
    SLOT_FD_BATCH_DONE,
    SLOT_PU_WUS,
    SLOT_PU_WU_ROW,
    SLOT_PU_RESULT_ROWS,
    SLOT_PU_DELETE,
    SLOT_ASSIM_END,           /* must stay <= SLOT_ACCOUNT_FIRST */
    SLOT_ACCOUNT_FIRST = 208,    /* 208..223: web RPCs, accounts */
    SLOT_STATUS_FIRST = 224,     /* 224..239: status and batch pages */
    SLOT_LAST = 255
};

#endif
