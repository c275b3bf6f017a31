/*
 * lost_hosts.h - the transitioner's step for hosts presumed gone: a host
 * silent far longer than its rhythm (host_rhythm.h) is marked
 * (host.lost_time), its results in progress get RF_HOST_LOST and their
 * workunits a transition now, and tl_decide() then makes each of them a
 * new result (transition_logic.h).  The original still counts if it
 * comes back.  See doc/locality.md, "Lost hosts and tail replicas".
 */
#ifndef LOCSCHED_LOST_HOSTS_H
#define LOCSCHED_LOST_HOSTS_H

#include "daemon.h"

/* Hosts silent for longer than this are left to their results' deadlines. */
#define LOST_LOOKBACK (30 * 86400)

/* One step: list the hosts newly silent beyond their limit and mark each
 * in its own transaction.  Returns the hosts marked, or a negative
 * db_status after logging. */
long lost_hosts_step(struct daemon *d);

#endif
