/*
 * db_lost.h - the transitioner's statements for hosts presumed gone
 * (doc/locality.md, "Lost hosts and tail replicas").  Each function is one
 * prepared statement.
 */
#ifndef LOCSCHED_DB_LOST_H
#define LOCSCHED_DB_LOST_H

#include "db.h"

/* result.replica_flags bits */
enum { RF_BACKUP = 1, RF_HOST_LOST = 2 };

/* The limits of silence (host_rhythm.h), for the listing's filter. */
struct db_lost_limits {
    int now;
    int lookback_from;             /* hosts silent since before this are left alone */
    double gap_factor;
    int min_silence, new_silence;
};

/*
 * Up to limit hosts not presumed gone yet (lost_time 0) that have been
 * silent longer than their limit and hold a result in progress whose
 * deadline has not passed (ind_host_lost, then ind_res_host_state).
 * Only reads.
 */
int db_lost_hosts_list(struct db_conn *c, const struct db_lost_limits *l, int mod_n, int mod_i,
                       int limit, int *ids, int *n);

/* A host's rhythm, locked (FOR UPDATE).  DB_NOTFOUND if it is gone. */
struct db_lost_host {
    int id;
    int rpc_time, lost_time;
    double rpc_gap_avg, rpc_gap_dev;
    int rpc_gap_n;
};
int db_lost_host_lock(struct db_conn *c, int hostid, struct db_lost_host *h);

/*
 * Presume a host gone at now (one statement): host.lost_time = now; its
 * results in progress with their deadline still ahead, of unfinished
 * workunits, get RF_HOST_LOST and their workunits transition_time now
 * (the transitioner then makes the new results).  *nchanged gets the
 * result and workunit rows changed.
 */
int db_lost_host_mark(struct db_conn *c, int hostid, int now, long long *nchanged);

#endif
